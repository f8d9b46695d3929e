"""glassgrad.vision.models' ConvNeXt, checked without torch: torchvision's documented parameter
counts (every size by counting the architecture's layers, tiny by building it), state_dict names
and order, LayerNorm2d against a NumPy reference, layer scale and stochastic depth, initialization,
a training step and the refusal of pretrained weights. test_vision_models_torchvision.py compares
the outputs with torchvision's."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
from glassgrad.vision import models
from vision_model_checks import assert_pretrained_refused, count

COUNTS = {"convnext_tiny": 28589128, "convnext_small": 50223688, "convnext_base": 88591464,
          "convnext_large": 197767336}
# The paper's stage widths and depths.
STAGES = {"convnext_tiny": ([96, 192, 384, 768], [3, 3, 9, 3]), "convnext_small": ([96, 192, 384, 768], [3, 3, 27, 3]),
          "convnext_base": ([128, 256, 512, 1024], [3, 3, 27, 3]),
          "convnext_large": ([192, 384, 768, 1536], [3, 3, 27, 3])}


def _architecture_count(widths, depths, num_classes=1000):
    """Stem 4x4 convolution (bias) + norm; per block a 7x7 depthwise convolution (bias), a norm,
    Linear(d, 4d), Linear(4d, d) and the layer scale; between stages a norm and a 2x2
    convolution (bias); the classifier's norm and Linear."""
    total = 3 * widths[0] * 16 + widths[0] + 2 * widths[0]
    for i, (d, n) in enumerate(zip(widths, depths)):
        total += n * (d * 49 + d + 2 * d + d * 4 * d + 4 * d + 4 * d * d + d + d)
        if i + 1 < len(widths):
            total += 2 * d + d * widths[i + 1] * 4 + widths[i + 1]
    return total + 2 * widths[-1] + widths[-1] * num_classes + num_classes


@pytest.mark.parametrize("name", list(COUNTS))
def test_every_size_has_torchvisions_parameter_count(name):
    assert _architecture_count(*STAGES[name]) == COUNTS[name]


def test_tiny_built_names_order_and_initialization():
    gg.manual_seed(0)
    model = models.convnext_tiny()
    assert count(model) == COUNTS["convnext_tiny"]
    assert [n for n, _ in model.named_children()] == ["features", "avgpool", "classifier"]
    assert len(model.features) == 8 and [len(model.features[i]) for i in (1, 3, 5, 7)] == [3, 3, 9, 3]
    keys = list(model.state_dict())
    assert keys[:8] == ["features.0.0.weight", "features.0.0.bias", "features.0.1.weight", "features.0.1.bias",
                        "features.1.0.layer_scale", "features.1.0.block.0.weight", "features.1.0.block.0.bias",
                        "features.1.0.block.2.weight"]
    assert "features.2.1.weight" in keys and keys[-4:] == ["classifier.0.weight", "classifier.0.bias",
                                                           "classifier.2.weight", "classifier.2.bias"]
    assert isinstance(model.features[0][1], models.LayerNorm2d) and isinstance(model.features[2][0], models.LayerNorm2d)
    assert isinstance(model.classifier[0], models.LayerNorm2d) and isinstance(model.features[1][0].block[2],
                                                                              nn.LayerNorm)
    assert tuple(model.features[1][0].layer_scale.shape) == (96, 1, 1)
    assert np.all(model.features[1][0].layer_scale.detach().numpy() == np.float32(1e-6))
    probs = [b.stochastic_depth.p for i in (1, 3, 5, 7) for b in model.features[i]]
    assert probs[0] == 0.0 and abs(probs[-1] - 0.1) < 1e-12 and abs(probs[9] - 0.1 * 9 / 17) < 1e-12
    w = model.features[5][0].block[3].weight.detach().numpy()  # trunc_normal_(std=0.02)
    assert abs(w.std() - 0.02) < 0.001 and np.all(model.features[5][0].block[3].bias.detach().numpy() == 0)
    assert models.convnext_base(stochastic_depth_prob=0.0).features[7][2].stochastic_depth.p == 0.0


def test_layer_norm_2d_normalizes_channels_at_each_position():
    layer = models.LayerNorm2d(4, eps=1e-6)
    with gg.no_grad():
        layer.weight.copy_(gg.tensor([1.0, 2.0, 0.5, -1.0]))
        layer.bias.copy_(gg.tensor([0.0, 0.1, -0.2, 0.3]))
    x = np.random.RandomState(0).randn(2, 4, 3, 5)
    mean, var = x.mean(1, keepdims=True), x.var(1, keepdims=True)
    expected = (x - mean) / np.sqrt(var + 1e-6) * layer.weight.detach().numpy()[None, :, None, None] \
        + layer.bias.detach().numpy()[None, :, None, None]
    np.testing.assert_allclose(layer(gg.tensor(x.astype(np.float32))).detach().numpy(), expected, rtol=1e-4,
                               atol=1e-5)
    layer64 = models.LayerNorm2d(4).double()
    assert gg.debug.gradcheck(lambda t: layer64(t), [x])


def test_a_small_convnext_trains_and_drops_blocks_only_in_training():
    gg.manual_seed(0)
    setting = [models.CNBlockConfig(16, 32, 1), models.CNBlockConfig(32, None, 2)]
    model = models.ConvNeXt(setting, stochastic_depth_prob=0.5, layer_scale=0.5, num_classes=3)
    assert model.features[3][1].stochastic_depth.p == 0.5 and model.classifier[2].in_features == 32
    opt = gg.optim.SGD(model.parameters(), lr=0.1)
    before = model.features[1][0].layer_scale.detach().numpy().copy()
    loss = nn.functional.cross_entropy(model(gg.randn(4, 3, 32, 32)), gg.tensor([0, 1, 2, 0]))
    loss.backward()
    opt.step()
    assert np.isfinite(loss.item()) and not np.array_equal(before, model.features[1][0].layer_scale.detach().numpy())
    model.eval()
    x = gg.randn(2, 3, 32, 32)
    with gg.no_grad():
        np.testing.assert_array_equal(model(x).numpy(), model(x).numpy())
    with pytest.raises(ValueError, match="should not be empty"):
        models.ConvNeXt([])
    with pytest.raises(TypeError, match="List\\[CNBlockConfig\\]"):
        models.ConvNeXt([(16, 32, 1)])


@pytest.mark.parametrize("name", ["convnext_tiny", "convnext_large"])
def test_pretrained_weights_are_refused(name):
    assert_pretrained_refused(name)
