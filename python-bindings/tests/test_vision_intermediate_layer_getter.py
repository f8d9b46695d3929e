"""torchvision.models._utils.IntermediateLayerGetter, the backbone wrapper of detection and
segmentation code (`from torchvision.models._utils import IntermediateLayerGetter`, DETR's
backbone.py): the model's children up to the last named one, run in turn, the named outputs
returned in an OrderedDict under their new names."""
from collections import OrderedDict

import numpy as np
import pytest

import glassgrad.torch as torch
from glassgrad import nn
from glassgrad.vision import models
from glassgrad.vision.models._utils import IntermediateLayerGetter, _make_divisible


def _image(seed=0, size=64):
    return torch.from_numpy(np.random.default_rng(seed).standard_normal((2, 3, size, size)).astype(np.float32))


def test_named_children_outputs_under_their_new_names():
    model = models.resnet18().eval()
    body = IntermediateLayerGetter(model, return_layers={"layer2": "0", "layer4": "feat"})
    out = body(_image())
    assert isinstance(out, OrderedDict) and list(out) == ["0", "feat"]
    # the same children, run by hand
    x = _image()
    with torch.no_grad():
        x = model.maxpool(model.relu(model.bn1(model.conv1(x))))
        l2 = model.layer2(model.layer1(x))
        l4 = model.layer4(model.layer3(l2))
    np.testing.assert_array_equal(out["0"].detach().numpy(), l2.numpy())
    np.testing.assert_array_equal(out["feat"].detach().numpy(), l4.numpy())
    assert tuple(out["feat"].shape) == (2, 512, 2, 2)


def test_children_after_the_last_named_one_are_dropped():
    model = models.resnet18()
    body = IntermediateLayerGetter(model, {"layer3": "c4"})
    assert list(body.keys()) == ["conv1", "bn1", "relu", "maxpool", "layer1", "layer2", "layer3"]
    # the model's own keys, so a backbone's weights load with strict=False
    keys = set(body.state_dict())
    assert keys and keys < set(model.state_dict()) and not any(k.startswith(("layer4", "fc")) for k in keys)
    assert body.return_layers == {"layer3": "c4"}


def test_gradients_reach_the_backbone():
    body = IntermediateLayerGetter(models.resnet18(), {"layer1": "a", "layer2": "b"})
    out = body(_image(1, 32))
    (out["a"].mean() + out["b"].mean()).backward()
    assert body.conv1.weight.grad is not None and body.layer2[0].conv1.weight.grad is not None


def test_a_detr_style_backbone():
    # DETR's Backbone: resnet50 with a frozen norm layer and the last stride replaced by dilation,
    # every layer returned under its index
    class FrozenBatchNorm2d(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.register_buffer("weight", torch.ones(n))
            self.register_buffer("bias", torch.zeros(n))
            self.register_buffer("running_mean", torch.zeros(n))
            self.register_buffer("running_var", torch.ones(n))

        def forward(self, x):
            scale = self.weight.reshape(1, -1, 1, 1) * (self.running_var.reshape(1, -1, 1, 1) + 1e-5).rsqrt()
            return x * scale + (self.bias.reshape(1, -1, 1, 1) - self.running_mean.reshape(1, -1, 1, 1) * scale)

    backbone = models.resnet50(replace_stride_with_dilation=[False, False, True], norm_layer=FrozenBatchNorm2d)
    body = IntermediateLayerGetter(backbone, return_layers={"layer1": "0", "layer2": "1", "layer3": "2", "layer4": "3"})
    shapes = {k: tuple(v.shape) for k, v in body(_image(2)).items()}
    assert shapes == {"0": (2, 256, 16, 16), "1": (2, 512, 8, 8), "2": (2, 1024, 4, 4), "3": (2, 2048, 4, 4)}


def test_a_name_that_is_no_child_is_refused_as_torchvision_refuses_it():
    with pytest.raises(ValueError, match="^return_layers are not present in model") as info:
        IntermediateLayerGetter(models.resnet18(), {"layer1.0": "x"})
    assert "['layer1.0']" in str(info.value) and "'layer4', 'avgpool', 'fc'" in str(info.value)
    assert "fix: " in str(info.value)


def test_make_divisible():
    assert [_make_divisible(v, 8) for v in (3, 32 * 0.75, 37, 100.0)] == [8, 24, 40, 104]
