"""glassgrad.vision.models' MaxViT, checked without torch: torchvision's documented parameter count,
state_dict names and order, window and grid partitions against NumPy, the input-size check,
initialization, a training step and the refusal of pretrained weights.
test_vision_models_torchvision.py compares the outputs with torchvision's."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
from glassgrad.vision import models
from glassgrad.vision.models import maxvit
from vision_model_checks import assert_pretrained_refused, assert_sgd_step_moves, count

SMALL = dict(input_size=(32, 32), stem_channels=8, partition_size=2, block_channels=[8, 16], block_layers=[1, 2],
             head_dim=4, stochastic_depth_prob=0.2)


def test_maxvit_t_count_names_and_order():
    gg.manual_seed(0)
    model = models.maxvit_t()
    assert count(model) == 30919624
    assert [n for n, _ in model.named_children()] == ["stem", "blocks", "classifier"]
    assert [len(b.layers) for b in model.blocks] == [2, 2, 5, 2]
    assert [b.grid_size for b in model.blocks] == [(56, 56), (28, 28), (14, 14), (7, 7)]
    layer = model.blocks[0].layers[0].layers
    assert [n for n, _ in layer.named_children()] == ["MBconv", "window_attention", "grid_attention"]
    assert [n for n, _ in layer.MBconv.layers.named_children()] == ["pre_norm", "conv_a", "conv_b",
                                                                   "squeeze_excitation", "conv_c"]
    keys = list(model.state_dict())
    assert keys[:3] == ["stem.0.0.weight", "stem.0.1.weight", "stem.0.1.bias"]
    attn = "blocks.0.layers.0.layers.window_attention.attn_layer.1."
    assert [k for k in keys if k.startswith(attn)] == [attn + k for k in (
        "relative_position_bias_table", "relative_position_index", "to_qkv.weight", "to_qkv.bias", "merge.weight",
        "merge.bias")]
    # classifier: pool, Flatten, LayerNorm, Linear, Tanh, Linear without bias.
    assert keys[-5:] == ["classifier.2.weight", "classifier.2.bias", "classifier.3.weight", "classifier.3.bias",
                         "classifier.5.weight"]
    mha = layer.window_attention.attn_layer[1]
    assert tuple(mha.relative_position_bias_table.shape) == (169, 2) and tuple(mha.relative_position_index.shape) == (
        49, 49)
    assert layer.window_attention.p == 7 and layer.grid_attention.p == 8  # 56 // 7 windows a side
    assert isinstance(layer.MBconv.proj[0], nn.AvgPool2d) and isinstance(layer.MBconv.stochastic_depth, nn.Identity)
    assert abs(model.blocks[3].layers[1].layers.MBconv.stochastic_depth.p - 0.2) < 1e-12
    bn = model.stem[0][1]
    assert abs(bn.eps - 1e-3) < 1e-12 and abs(bn.momentum - 0.01) < 1e-12
    w = model.blocks[2].layers[0].layers.grid_attention.mlp_layer[1].weight.detach().numpy()  # normal(std=0.02)
    assert abs(w.std() - 0.02) < 0.001


def test_window_and_grid_partitions():
    x = np.random.RandomState(0).randn(2, 3, 4, 6)
    parts = maxvit.WindowPartition()(gg.tensor(x), 2).numpy()
    assert parts.shape == (2, 6, 4, 3)
    # Window 4 (second row of windows, second column): pixels (2..3, 2..3), in row-major order.
    np.testing.assert_array_equal(parts[1, 4, :, 0], x[1, 0, 2:4, 2:4].reshape(-1))
    back = maxvit.WindowDepartition()(gg.tensor(parts), 2, 2, 3).numpy()
    np.testing.assert_array_equal(back, x)
    swapped = maxvit.SwapAxes(-2, -3)(gg.tensor(parts)).numpy()
    np.testing.assert_array_equal(swapped, parts.swapaxes(-2, -3))


def test_relative_attention_against_numpy():
    gg.manual_seed(0)
    mha = maxvit.RelativePositionalMultiHeadAttention(8, 4, 4)
    x = np.random.RandomState(1).randn(2, 3, 4, 8).astype(np.float32)
    got = mha(gg.tensor(x)).detach().numpy()
    w, b = mha.to_qkv.weight.detach().numpy(), mha.to_qkv.bias.detach().numpy()
    q, k, v = np.split(x @ w.T + b, 3, axis=-1)
    table, index = mha.relative_position_bias_table.detach().numpy(), mha.relative_position_index.detach().numpy()
    out = np.zeros_like(x)
    for h in range(2):
        sl = slice(4 * h, 4 * h + 4)
        logits = q[..., sl] @ (k[..., sl] * 8 ** -0.5).swapaxes(-1, -2) + table[index, h]
        p = np.exp(logits - logits.max(-1, keepdims=True))
        out[..., sl] = (p / p.sum(-1, keepdims=True)) @ v[..., sl]
    expected = out @ mha.merge.weight.detach().numpy().T + mha.merge.bias.detach().numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def test_a_small_maxvit_trains_and_checks_its_input_size():
    gg.manual_seed(0)
    model = models.MaxVit(num_classes=3, **SMALL)
    # The first layer's stochastic depth probability is 0 (linspace from 0), so its table always learns.
    table = model.blocks[0].layers[0].layers.grid_attention.attn_layer[1].relative_position_bias_table
    assert_sgd_step_moves(model, table, gg.randn(2, 3, 32, 32), [0, 2])
    with pytest.raises(ValueError, match="not divisible by partition size 2"):
        models.MaxVit(**{**SMALL, "input_size": (40, 40)})
    with pytest.raises(ValueError, match="must be divisible by head_dim"):
        maxvit.RelativePositionalMultiHeadAttention(10, 4, 4)


def test_pretrained_weights_are_refused():
    assert_pretrained_refused("maxvit_t")
