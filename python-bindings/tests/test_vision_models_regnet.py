"""glassgrad.vision.models' RegNet X and Y, checked without torch: the stage parameters of each
size (depths, widths, group widths), torchvision's documented parameter counts (of every size by
counting the architecture's layers from the stage parameters, and of the small sizes by building
them), state_dict names and order, initialization, a training step and the refusal of pretrained
weights. test_vision_models_torchvision.py compares the outputs with torchvision's."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
from glassgrad.vision import models
from vision_model_checks import assert_pretrained_refused, count
from glassgrad.vision.models import regnet

# torchvision's documented parameter counts.
COUNTS = {"regnet_y_400mf": 4344144, "regnet_y_800mf": 6432512, "regnet_y_1_6gf": 11202430,
          "regnet_y_3_2gf": 19436338, "regnet_y_8gf": 39381472, "regnet_y_16gf": 83590140,
          "regnet_y_32gf": 145046770, "regnet_y_128gf": 644812894, "regnet_x_400mf": 5495976,
          "regnet_x_800mf": 7259656, "regnet_x_1_6gf": 9190136, "regnet_x_3_2gf": 15296552,
          "regnet_x_8gf": 39572648, "regnet_x_16gf": 54278536, "regnet_x_32gf": 107811560}
# The stage depths and widths the RegNet paper's models have (its Table / torchvision's pycls port).
STAGES = {"regnet_y_400mf": ([1, 3, 6, 6], [48, 104, 208, 440]), "regnet_x_400mf": ([1, 2, 7, 12], [32, 64, 160, 400]),
          "regnet_x_8gf": ([2, 5, 15, 1], [80, 240, 720, 1920]),
          "regnet_y_128gf": ([2, 7, 17, 1], [528, 1056, 2904, 7392])}


def _params(name):
    depth, w_0, w_a, w_m, group_width = regnet._CONFIGS[name]
    return regnet.BlockParams.from_init_params(depth=depth, w_0=w_0, w_a=w_a, w_m=w_m, group_width=group_width,
                                               se_ratio=0.25 if name.startswith("regnet_y") else None)


def _architecturecount(params, num_classes=1000, stem=32):
    """Parameters of the architecture, layer by layer: every convolution is bias-free and
    followed by a norm (2 per channel); the squeeze-excitation's 1x1 convolutions have biases."""
    total, width_in = 3 * stem * 9 + 2 * stem, stem
    for width, depth, group_width in zip(params.widths, params.depths, params.group_widths):
        for i in range(depth):
            w_in = width_in if i == 0 else width
            w_b = width
            total += w_in * w_b + 2 * w_b + w_b * group_width * 9 + 2 * w_b + w_b * width + 2 * width
            if params.se_ratio:
                squeeze = int(round(params.se_ratio * w_in))
                total += 2 * w_b * squeeze + squeeze + w_b
            if i == 0:  # the projection: the width or the resolution changes (stride 2)
                total += w_in * width + 2 * width
        width_in = width
    return total + width_in * num_classes + num_classes


@pytest.mark.parametrize("name", list(STAGES))
def test_stage_parameters(name):
    params = _params(name)
    assert (params.depths, params.widths) == STAGES[name]
    assert params.strides == [2] * 4 and params.bottleneck_multipliers == [1.0] * 4


@pytest.mark.parametrize("name", list(COUNTS))
def test_every_size_has_torchvisions_parametercount(name):
    assert _architecturecount(_params(name)) == COUNTS[name]


@pytest.mark.parametrize("name", ["regnet_y_400mf", "regnet_x_400mf", "regnet_y_800mf", "regnet_x_1_6gf"])
def test_built_models_have_the_counted_parameters(name):
    assert count(getattr(models, name)()) == COUNTS[name]


def test_names_order_blocks_and_initialization():
    gg.manual_seed(0)
    model = models.regnet_y_400mf(num_classes=10)
    assert [n for n, _ in model.named_children()] == ["stem", "trunk_output", "avgpool", "fc"]
    assert [n for n, _ in model.trunk_output.named_children()] == ["block1", "block2", "block3", "block4"]
    assert [n for n, _ in model.trunk_output.block2.named_children()] == ["block2-0", "block2-1", "block2-2"]
    keys = list(model.state_dict())
    assert keys[:3] == ["stem.0.weight", "stem.1.weight", "stem.1.bias"]
    first = "trunk_output.block1.block1-0."
    assert keys[6:10] == [first + k for k in ("proj.0.weight", "proj.1.weight", "proj.1.bias", "proj.1.running_mean")]
    assert [n for n, _ in model.trunk_output.block1[0].f.named_children()] == ["a", "b", "se", "c"]
    assert model.trunk_output.block2[1].proj is None and keys[-2:] == ["fc.weight", "fc.bias"]
    b = model.trunk_output.block3[0].f.b[0]  # grouped 3x3: 208 channels in groups of 8
    assert b.groups == 26 and tuple(b.weight.shape) == (208, 8, 3, 3) and b.stride == (2, 2)
    assert tuple(model.trunk_output.block3[0].f.se.fc1.weight.shape) == (26, 208, 1, 1)  # round(0.25 * 104)
    w = model.trunk_output.block4[0].f.c[0].weight.detach().numpy()  # normal, std sqrt(2 / (1 * 1 * 440))
    assert abs(w.std() - np.sqrt(2.0 / 440)) < 0.05 * np.sqrt(2.0 / 440)
    assert abs(model.fc.weight.detach().numpy().std() - 0.01) < 0.001 and np.all(model.fc.bias.detach().numpy() == 0)
    x_model = models.regnet_x_400mf()
    assert [n for n, _ in x_model.trunk_output.block1[0].f.named_children()] == ["a", "b", "c"]
    with pytest.raises(ValueError, match="Invalid RegNet settings"):
        regnet.BlockParams.from_init_params(depth=4, w_0=12, w_a=8.0, w_m=2.0, group_width=8)


def test_a_training_step_and_eval_forward():
    gg.manual_seed(0)
    model = models.regnet_x_400mf(num_classes=3)
    opt = gg.optim.SGD(model.parameters(), lr=0.05)
    before = model.stem[0].weight.detach().numpy().copy()
    loss = nn.functional.cross_entropy(model(gg.randn(2, 3, 32, 32)), gg.tensor([0, 2]))
    loss.backward()
    opt.step()
    assert np.isfinite(loss.item()) and not np.array_equal(before, model.stem[0].weight.detach().numpy())
    with gg.no_grad():
        assert tuple(model.eval()(gg.randn(1, 3, 48, 48)).shape) == (1, 3)


@pytest.mark.parametrize("name", ["regnet_y_400mf", "regnet_x_32gf"])
def test_pretrained_weights_are_refused(name):
    assert_pretrained_refused(name)
