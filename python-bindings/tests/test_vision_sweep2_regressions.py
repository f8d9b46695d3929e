"""Differences from torchvision that a sweep against torchvision 0.29 found, each with the
behaviour torchvision documents or shows (torch-free: the expected outcomes are written down)."""
import io

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import nn
from glassgrad.vision import transforms as T
from glassgrad.vision import utils as vutils


def test_transforms_are_modules_as_in_torchvision():
    # torchvision documents nn.Sequential(transforms.CenterCrop(10), transforms.Normalize(...)).
    for t in (T.Resize(3), T.CenterCrop(2), T.Normalize([0.5], [0.5]), T.RandomApply([T.CenterCrop(2)]),
              T.ColorJitter(0.1), T.RandomRotation(5), T.GaussianBlur(3), T.AutoAugment()):
        assert isinstance(t, nn.Module), type(t).__name__
    for t in (T.ToTensor(), T.PILToTensor(), T.ToPILImage(), T.Compose([]), T.Lambda(abs),
              T.RandomChoice([abs]), T.RandomOrder([abs])):
        assert not isinstance(t, nn.Module), type(t).__name__
    seq = nn.Sequential(T.CenterCrop(4), T.Normalize([0.5] * 3, [0.5] * 3))
    out = seq(gg.ones(3, 6, 6))
    assert tuple(out.shape) == (3, 4, 4) and float(out.sum()) == 48.0
    assert "(0): CenterCrop(size=(4, 4))" in repr(seq)


def test_random_apply_takes_a_module_list():
    x = gg.tensor(np.arange(36, dtype=np.float32).reshape(1, 6, 6))
    ra = T.RandomApply(nn.ModuleList([T.CenterCrop(2)]), p=1.0)
    assert ra(x).tolist() == [[[14.0, 15.0], [20.0, 21.0]]]
    assert T.RandomApply(nn.ModuleList([T.CenterCrop(2)]), p=0.0)(x) is x
    # Inside Compose it gets a tensor and hands it to any callable.
    composed = T.Compose([T.RandomApply([T.Lambda(lambda t: t + 1)], p=1.0), T.CenterCrop(2)])
    assert composed(x).tolist() == [[[15.0, 16.0], [21.0, 22.0]]]


def test_normalize_of_a_1d_tensor_is_not_an_image():
    with pytest.raises(TypeError, match="not a torch image"):
        T.Normalize([0.5], [0.5])(gg.ones(3))
    with pytest.raises(ValueError, match=r"\(\.\.\., C, H, W\)"):  # 2-d: torchvision's ValueError
        T.Normalize([0.5], [0.5])(gg.ones(3, 3))


def test_gaussian_blur_refuses_a_kernel_reaching_past_the_image():
    # torchvision pads by reflection, which needs the pad below the image's size: 31 // 2 = 15 >= 13.
    img = gg.zeros(3, 13, 17, dtype=gg.uint8)
    with pytest.raises(RuntimeError, match="Padding size should be less than"):
        T.functional.gaussian_blur(img, 31)
    assert tuple(T.functional.gaussian_blur(img, 25).shape) == (3, 13, 17)  # 12 < 13


def test_make_grid_of_images_of_different_sizes_is_torch_stacks_error():
    with pytest.raises(RuntimeError, match=r"stack expects each tensor to be equal size.*\[3, 3, 3\] at entry 1"):
        vutils.make_grid([gg.zeros(3, 2, 2), gg.zeros(3, 3, 3)])


def test_integer_images_are_refused_where_torchvision_rescales_in_place():
    imgs = gg.zeros(2, 3, 4, 4, dtype=gg.uint8)
    assert vutils.make_grid(imgs).dtype == gg.uint8  # without normalize they are only laid out
    with pytest.raises(RuntimeError, match="can't be cast"):
        vutils.make_grid(imgs, normalize=True)
    with pytest.raises(RuntimeError, match="can't be cast"):
        vutils.save_image(imgs, io.BytesIO(), format="png")
