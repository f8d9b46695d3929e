"""glassgrad.vision.models' Swin Transformer V1 and V2, checked without torch: torchvision's
documented parameter counts (every size by counting the architecture's layers, Swin-T and V2-T by
building them), state_dict names and order, shifted-window attention against a NumPy reference
written from the paper (windows, roll, mask, relative position bias; cosine attention for V2) and
its float64 gradient against finite differences, the relative position index and V2's
log-spaced offsets, a training step and the refusal of pretrained weights.
test_vision_models_torchvision.py compares the outputs with torchvision's."""
import math

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.vision import models
from glassgrad.vision.models import swin_transformer as swin
from vision_model_checks import assert_pretrained_refused, assert_sgd_step_moves, count

COUNTS = {"swin_t": 28288354, "swin_s": 49606258, "swin_b": 87768224, "swin_v2_t": 28351570,
          "swin_v2_s": 49737442, "swin_v2_b": 87930848}


def _architecture_count(name, num_classes=1000):
    """Patch 4x4 convolution (bias) + norm; per block two norms, qkv and proj (biases), the MLP
    (4x, biases) and the attention's position terms (V1: a (2w-1)^2 x heads table; V2: a logit
    scale per head and the Linear(2, 512) + Linear(512, heads, no bias) MLP); patch merging
    (a norm over 4C or 2C, Linear(4C, 2C) without bias); the final norm and the head."""
    embed, depths, heads, window, _, v2 = swin._CONFIGS[name]
    total = 3 * 16 * embed + embed + 2 * embed
    for i, (depth, h) in enumerate(zip(depths, heads)):
        d = embed * 2 ** i
        block = 4 * d + (3 * d * d + 3 * d) + (d * d + d) + (4 * d * d + 4 * d) + (4 * d * d + d)
        block += (h + 2 * 512 + 512 + 512 * h) if v2 else (2 * window - 1) ** 2 * h
        total += depth * block
        if i + 1 < len(depths):
            total += (2 * 2 * d if v2 else 2 * 4 * d) + 4 * d * 2 * d
    final = embed * 2 ** (len(depths) - 1)
    return total + 2 * final + final * num_classes + num_classes


@pytest.mark.parametrize("name", list(COUNTS))
def test_every_size_has_torchvisions_parameter_count(name):
    assert _architecture_count(name) == COUNTS[name]


@pytest.mark.parametrize("name", ["swin_t", "swin_v2_t"])
def test_built_tiny_models_names_and_order(name):
    gg.manual_seed(0)
    model = getattr(models, name)()
    assert count(model) == COUNTS[name]
    assert [n for n, _ in model.named_children()] == ["features", "norm", "permute", "avgpool", "flatten", "head"]
    assert len(model.features) == 8 and [len(model.features[i]) for i in (1, 3, 5, 7)] == [2, 2, 6, 2]
    keys = list(model.state_dict())
    attn = "features.1.0.attn."
    if name == "swin_t":
        assert keys[4:12] == ["features.1.0.norm1.weight", "features.1.0.norm1.bias",
                              attn + "relative_position_bias_table", attn + "relative_position_index",
                              attn + "qkv.weight", attn + "qkv.bias", attn + "proj.weight", attn + "proj.bias"]
        assert tuple(model.features[1][0].attn.relative_position_bias_table.shape) == (169, 3)
        assert isinstance(model.features[2], swin.PatchMerging)
    else:
        assert keys[6:11] == [attn + "logit_scale", attn + "relative_coords_table", attn + "relative_position_index",
                              attn + "qkv.weight", attn + "qkv.bias"]
        assert keys[13:16] == [attn + "cpb_mlp.0.weight", attn + "cpb_mlp.0.bias", attn + "cpb_mlp.2.weight"]
        assert isinstance(model.features[2], swin.PatchMergingV2) and model.features[2].norm.normalized_shape == (192,)
        np.testing.assert_allclose(model.features[1][0].attn.logit_scale.detach().numpy(), np.log(10.0), rtol=1e-6)
    shifts = [b.attn.shift_size for b in model.features[5]]
    side = 7 if name == "swin_t" else 8
    assert shifts == [[0, 0], [side // 2] * 2] * 3
    probs = [b.stochastic_depth.p for i in (1, 3, 5, 7) for b in model.features[i]]
    assert probs[0] == 0.0 and abs(probs[-1] - 0.2) < 1e-12
    w = model.features[5][0].mlp[0].weight.detach().numpy()  # every Linear: trunc_normal_(std=0.02)
    assert abs(w.std() - 0.02) < 0.001 and np.all(model.head.bias.detach().numpy() == 0)


def test_relative_position_index_and_v2_coordinates():
    index = swin._relative_position_index([2, 3])
    # Pixels (0, 0) and (1, 2): offset (-1, -2) -> row (-1 + 1) * 5 + (-2 + 2) = 0; reversed (1, 2) -> 1 * 5 + 4 + 5.
    assert index.shape == (36,) and index.reshape(6, 6)[0, 5] == 0 and index.reshape(6, 6)[5, 0] == 14
    assert np.all(np.diag(index.reshape(6, 6)) == 1 * 5 + 2)
    table = swin._relative_coords_table([3, 3])
    assert table.shape == (1, 5, 5, 2) and table.dtype == np.float32
    t = np.array([-2.0, -1.0, 0.0, 1.0, 2.0]) / 2 * 8
    np.testing.assert_allclose(table[0, :, 0, 0], np.sign(t) * np.log2(np.abs(t) + 1) / 3, rtol=1e-6)


def _reference_window_attention(x, qkv_w, qkv_b, proj_w, proj_b, table, window, heads, shift, logit_scale=None):
    """The paper's shifted-window attention in NumPy, float64, one window at a time over the
    padded and rolled map; the mask compares the region each pixel came from."""
    b, h, w, c = x.shape
    ph, pw = -h % window[0], -w % window[1]
    xp = np.pad(x, ((0, 0), (0, ph), (0, pw), (0, 0)))
    H, W = h + ph, w + pw
    shift = [0 if window[0] >= H else shift[0], 0 if window[1] >= W else shift[1]]
    region = np.zeros((H, W))
    for r, hs in enumerate((slice(0, H - window[0]), slice(H - window[0], H - shift[0]), slice(H - shift[0], H))):
        for s, ws in enumerate((slice(0, W - window[1]), slice(W - window[1], W - shift[1]), slice(W - shift[1], W))):
            region[hs, ws] = 3 * r + s
    xr = np.roll(xp, (-shift[0], -shift[1]), (1, 2))
    out = np.zeros_like(xr)
    d = c // heads
    index = swin._relative_position_index(window)
    bias = table[index].reshape(window[0] * window[1], window[0] * window[1], heads).transpose(2, 0, 1)
    for n in range(b):
        for i in range(0, H, window[0]):
            for j in range(0, W, window[1]):
                tokens = xr[n, i:i + window[0], j:j + window[1]].reshape(-1, c)
                qb = qkv_b.copy()
                if logit_scale is not None:
                    qb[c:2 * c] = 0
                q, k, v = np.split(tokens @ qkv_w.T + qb, 3, axis=1)
                labels = region[i:i + window[0], j:j + window[1]].reshape(-1)
                mask = np.where(labels[None, :] != labels[:, None], -100.0, 0.0) if sum(shift) else 0.0
                mixed = []
                for hd in range(heads):
                    qh, kh, vh = (m[:, hd * d:(hd + 1) * d] for m in (q, k, v))
                    if logit_scale is None:
                        logits = (qh * d ** -0.5) @ kh.T
                    else:
                        qn = qh / np.maximum(np.linalg.norm(qh, axis=1, keepdims=True), 1e-12)
                        kn = kh / np.maximum(np.linalg.norm(kh, axis=1, keepdims=True), 1e-12)
                        logits = qn @ kn.T * math.exp(min(logit_scale[hd], math.log(100.0)))
                    logits = logits + bias[hd] + mask
                    p = np.exp(logits - logits.max(1, keepdims=True))
                    mixed.append((p / p.sum(1, keepdims=True)) @ vh)
                y = np.concatenate(mixed, 1) @ proj_w.T + proj_b
                out[n, i:i + window[0], j:j + window[1]] = y.reshape(window[0], window[1], c)
    return np.roll(out, shift, (1, 2))[:, :h, :w]


@pytest.mark.parametrize("v2", [False, True])
@pytest.mark.parametrize("shift", [[0, 0], [1, 2]])
def test_shifted_window_attention_against_numpy_and_finite_differences(v2, shift):
    rng = np.random.default_rng(0)
    window, heads, c = [3, 4], 2, 4
    x = rng.standard_normal((2, 5, 7, c))  # padded to 6 x 8: two windows each way
    qkv_w, qkv_b = rng.standard_normal((3 * c, c)) * 0.5, rng.standard_normal(3 * c) * 0.1
    proj_w, proj_b = rng.standard_normal((c, c)) * 0.5, rng.standard_normal(c) * 0.1
    table = rng.standard_normal(((2 * window[0] - 1) * (2 * window[1] - 1), heads))
    scale = np.log(np.array([10.0, 150.0])).reshape(heads, 1, 1) if v2 else None  # 150 is capped at 100
    index = gg.tensor(swin._relative_position_index(window))

    def run(x_, qkv_w_, table_, proj_w_):
        bias = swin._gather_bias(table_, index, window)
        return swin.shifted_window_attention(x_, qkv_w_, proj_w_, bias, window, heads, shift,
                                             qkv_bias=gg.tensor(qkv_b), proj_bias=gg.tensor(proj_b),
                                             logit_scale=None if scale is None else gg.tensor(scale))

    expected = _reference_window_attention(x, qkv_w, qkv_b, proj_w, proj_b, table, window, heads, shift,
                                           None if scale is None else scale.reshape(-1))
    got = run(gg.tensor(x), gg.tensor(qkv_w), gg.tensor(table), gg.tensor(proj_w)).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    assert gg.debug.gradcheck(run, [x, qkv_w, table, proj_w])


def test_patch_merging_pads_odd_sides_and_orders_neighbours():
    x = np.arange(2 * 3 * 3 * 1, dtype=np.float64).reshape(2, 3, 3, 1)
    merged = swin._patch_merging_pad(gg.tensor(x)).numpy()
    assert merged.shape == (2, 2, 2, 4)
    np.testing.assert_array_equal(merged[0, 0, 0], [x[0, 0, 0, 0], x[0, 1, 0, 0], x[0, 0, 1, 0], x[0, 1, 1, 0]])
    np.testing.assert_array_equal(merged[0, 1, 1], [x[0, 2, 2, 0], 0, 0, 0])
    assert gg.debug.gradcheck(lambda t: swin._patch_merging_pad(t), [x])


@pytest.mark.parametrize("v2", [False, True])
def test_a_small_swin_trains(v2):
    gg.manual_seed(0)
    extra = {"block": swin.SwinTransformerBlockV2, "downsample_layer": swin.PatchMergingV2} if v2 else {}
    model = models.SwinTransformer(patch_size=[4, 4], embed_dim=8, depths=[2, 2], num_heads=[2, 4],
                                   window_size=[2, 2], stochastic_depth_prob=0.2, num_classes=3, **extra)
    assert model.head.in_features == 16
    attn = model.features[1][1].attn
    watched = attn.cpb_mlp[0].weight if v2 else attn.relative_position_bias_table
    assert_sgd_step_moves(model, watched, gg.randn(2, 3, 24, 20), [0, 2])
    with pytest.raises(ValueError, match="must be of length 2"):
        swin.ShiftedWindowAttention(8, [7], [0, 0], 2)


@pytest.mark.parametrize("name", ["swin_t", "swin_v2_b"])
def test_pretrained_weights_are_refused(name):
    assert_pretrained_refused(name)
