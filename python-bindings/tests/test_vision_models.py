"""glassgrad.vision.models' ResNets: torchvision's architectures (the parameter counts torchvision
documents for its models), submodule names and order (state_dicts load both ways; scripts rebuild
the network from children()), initialization, options, and the refusal of pretrained weights."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
from glassgrad.vision import models

# torchvision's documented parameter counts ("num_params" of each model's weights entry).
COUNTS = {"resnet18": 11689512, "resnet34": 21797672, "resnet50": 25557032, "resnext50_32x4d": 25028904,
          "wide_resnet50_2": 68883240}


@pytest.mark.parametrize("name", list(COUNTS))
def test_parameter_counts_are_torchvisions(name):
    model = getattr(models, name)()
    assert sum(p.numel() for p in model.parameters()) == COUNTS[name]


def test_resnet18_names_order_and_output():
    model = models.resnet18(num_classes=10)
    assert [n for n, _ in model.named_children()] == ["conv1", "bn1", "relu", "maxpool", "layer1", "layer2", "layer3",
                                                      "layer4", "avgpool", "fc"]
    keys = list(model.state_dict())
    assert keys[:6] == ["conv1.weight", "bn1.weight", "bn1.bias", "bn1.running_mean", "bn1.running_var",
                        "bn1.num_batches_tracked"]
    assert "layer2.0.downsample.0.weight" in keys and "layer2.0.downsample.1.running_var" in keys
    assert "layer1.0.downsample.0.weight" not in keys and keys[-2:] == ["fc.weight", "fc.bias"]
    assert model.fc.in_features == 512
    out = model(gg.randn(2, 3, 32, 32))
    assert tuple(out.shape) == (2, 10)
    out.sum().backward()
    assert model.conv1.weight.grad is not None


def test_initialization_is_kaiming_fan_out_and_zero_init_residual_zeroes_last_norms():
    gg.manual_seed(0)
    model = models.resnet50(zero_init_residual=True)
    w = model.layer3[0].conv2.weight.detach().numpy()  # [256, 256, 3, 3]: fan_out 256 * 9
    assert abs(w.std() - np.sqrt(2.0 / (256 * 9))) < 0.05 * np.sqrt(2.0 / (256 * 9))
    assert np.all(model.layer1[0].bn3.weight.detach().numpy() == 0) and np.all(model.layer1[0].bn2.weight.detach().numpy() == 1)
    assert np.all(model.bn1.bias.detach().numpy() == 0)
    small = models.resnet18(zero_init_residual=True)
    assert np.all(small.layer4[1].bn2.weight.detach().numpy() == 0)


def test_dilation_keeps_the_resolution_and_basic_blocks_refuse_what_torchvision_refuses():
    model = models.resnet50(replace_stride_with_dilation=[False, True, True], num_classes=4)
    x = gg.randn(1, 3, 64, 64)
    feats = model.layer4(model.layer3(model.layer2(model.layer1(model.maxpool(model.relu(model.bn1(
        model.conv1(x))))))))
    assert tuple(feats.shape) == (1, 2048, 8, 8)  # stride 8, not 32
    with pytest.raises(NotImplementedError, match="Dilation > 1"):
        models.resnet18(replace_stride_with_dilation=[False, False, True])
    with pytest.raises(ValueError, match="groups=1 and base_width=64"):
        models.resnet18(groups=2)


def test_pretrained_weights_are_refused_with_the_way_to_load_them():
    with pytest.raises(gg.GlassgradError, match="downloads nothing"):
        models.resnet18(weights="IMAGENET1K_V1")


def test_a_replaced_first_layer_keeps_its_place_as_in_siamese_networks():
    # pytorch/examples' siamese_network: a 1-channel conv1, then Sequential(*children()[:-1]).
    model = models.resnet18()
    model.conv1 = nn.Conv2d(1, 64, kernel_size=(7, 7), stride=(2, 2), padding=(3, 3), bias=False)
    trunk = nn.Sequential(*(list(model.children())[:-1]))
    assert tuple(trunk(gg.randn(2, 1, 28, 28)).shape) == (2, 512, 1, 1)
