"""Differences from torchvision that a sweep against torchvision 0.29 found, each with the
behaviour torchvision documents or shows (torch-free: the expected outcomes are written down)."""
import io

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import nn
from glassgrad.vision import transforms as T
from glassgrad.vision import tv_tensors as tv
from glassgrad.vision.transforms import v2
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


# ---- transforms.v2 ------------------------------------------------------------------------------


def test_every_v2_transform_is_a_module():
    for t in (v2.Compose([v2.ToImage()]), v2.ToTensor(), v2.Lambda(abs), v2.RandomChoice([abs]), v2.ToImage(),
              v2.ToDtype(gg.float32), v2.ToPILImage(), v2.PILToTensor(), v2.RandomOrder([abs]), v2.Identity(),
              v2.Resize(3)):
        assert isinstance(t, nn.Module), type(t).__name__


def test_v2_lambda_takes_types_and_gives_them_all_entries():
    img = gg.zeros(1, 2, 2)
    out = v2.Lambda(lambda x: x + 1, gg.Tensor)((img, 3))
    assert out[0].tolist() == [[[1.0, 1.0], [1.0, 1.0]]] and out[1] == 3
    out = v2.Lambda(lambda x: x * 2)((img + 1, 3))  # types default to object: the number too
    assert out[0].tolist() == [[[2.0, 2.0], [2.0, 2.0]]] and out[1] == 6
    assert repr(v2.Lambda(abs, gg.Tensor)) == "Lambda(abs, types=['Tensor'])"


def test_v2_resize_with_only_max_size_sets_the_longer_edge():
    out = v2.Resize(None, max_size=10)(gg.zeros(3, 13, 17, dtype=gg.uint8))
    assert tuple(out.shape) == (3, 7, 10)  # int(10 * 13 / 17)
    with pytest.raises(ValueError, match="max_size must be an integer when size is None"):
        v2.Resize(None)
    with pytest.raises(TypeError, match="Size should be int or sequence"):  # v1 keeps refusing it
        T.Resize(None, max_size=10)


def test_v2_masks_and_boxes_alone_are_transformed_by_their_own_size():
    mask = v2.Resize((6, 8))(tv.Mask(gg.ones(1, 13, 17, dtype=gg.uint8)))
    assert isinstance(mask, tv.Mask) and tuple(mask.shape) == (1, 6, 8)
    boxes = v2.Resize((26, 34))(tv.BoundingBoxes([[1, 2, 5, 6]], format="XYXY", canvas_size=(13, 17)))
    assert isinstance(boxes, tv.BoundingBoxes) and boxes.tolist() == [[2, 4, 10, 12]]
    assert tuple(boxes.canvas_size) == (26, 34)


def test_v2_compose_keeps_the_image_type_to_image_gave():
    pic = np.zeros((13, 17, 3), np.uint8)
    assert type(v2.Compose([v2.ToImage(), v2.CenterCrop(5)])(pic)) is tv.Image
    out = v2.Compose([v2.ToImage(), v2.CenterCrop(5)])((pic, 3))
    assert type(out[0]) is tv.Image and out[1] == 3
    assert type(v2.Compose([v2.ToImage(), v2.ToPureTensor()])(pic)) is gg.Tensor
    assert type(v2.Compose([v2.CenterCrop(5)])(gg.zeros(3, 6, 6))) is gg.Tensor


# ---- datasets -----------------------------------------------------------------------------------
def _legacy_mnist(root, name="MNIST"):
    processed = root / name / "processed"
    processed.mkdir(parents=True)
    images = np.arange(3 * 28 * 28, dtype=np.int64).reshape(3, 28, 28) % 251
    gg.save((gg.tensor(images.astype(np.uint8)), gg.tensor([7, 8, 9])), str(processed / "training.pt"))
    gg.save((gg.tensor(images[:1].astype(np.uint8)), gg.tensor([4])), str(processed / "test.pt"))


def test_mnist_reads_torchvision_s_old_processed_files(tmp_path):
    # torchvision reads root/MNIST/processed/{training,test}.pt (torch.save of (data, targets))
    # before it looks for the raw files.
    from glassgrad.vision import datasets
    _legacy_mnist(tmp_path)
    train = datasets.MNIST(str(tmp_path))
    assert len(train) == 3 and train.targets.tolist() == [7, 8, 9] and train.data.dtype == gg.uint8
    img, label = train[1]
    assert label == 8 and img.size == (28, 28) and np.asarray(img)[0, :3].tolist() == [31, 32, 33]
    test = datasets.MNIST(str(tmp_path), train=False)
    assert len(test) == 1 and test.targets.tolist() == [4]
    _legacy_mnist(tmp_path, "FashionMNIST")
    assert datasets.FashionMNIST(str(tmp_path)).targets.tolist() == [7, 8, 9]
