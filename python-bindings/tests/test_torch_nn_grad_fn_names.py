"""Tensor.grad_fn of torch.nn.functional's calls named as PyTorch's node, one table of calls
decided by torch: softplus with another beta (SoftplusBackward0), the in-place activations'
second overloads (elu_'s EluBackward1, leaky_relu_'s LeakyReluBackward1, selu_'s, celu_'s,
rrelu_'s), rrelu's RreluWithNoiseBackward0, gelu's tanh form (GeluBackward0), batch_norm in
eval (NativeBatchNormBackward0), nll_loss / cross_entropy of (N, C, d1, ...) inputs
(NllLoss2DBackward0, or the view of it), the elementwise losses of reduction='none', the
antialiased resamplings (UpsampleBilinear2DAaBackward0) and mode='area' (PyTorch's adaptive
pools), the adaptive pools (AdaptiveAvgPool2DBackward0, AdaptiveMaxPool3DBackward0, ...) and the
pools PyTorch computes with indices (MaxPool2DWithIndicesBackward0, MaxPool3DWithIndicesBackward0,
AvgPool3DBackward0), the unpools, fold (Col2ImBackward0), channel_shuffle, grid_sample
(GridSampler2DBackward0), affine_grid (AffineGridGeneratorBackward0), multi_margin_loss and
multilabel_margin_loss (their loss's node, every reduction); each call's value and
float64 gradients as PyTorch's too. Skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

_RNG = np.random.default_rng(11)
_X = _RNG.standard_normal((4, 6))
_X4 = _RNG.standard_normal((2, 4, 6, 6))
_T = _RNG.uniform(0.1, 0.9, (4, 6))


def _labels(L, shape):
    return L.tensor(np.random.default_rng(3).integers(0, 4, shape))


def _in_place(f):
    """f applied in place to a computed tensor (x * 1: a leaf refuses in-place writes)."""
    return lambda L, x, x4: f(L, x * 1)


# name: f(L, x, x4) with x (4, 6) and x4 (2, 4, 6, 6) float64 leaves that require grad -> a tensor
_CASES = {
    "softplus beta=2": lambda L, x, x4: L.nn.functional.softplus(x, beta=2),
    "softplus beta=0.5 threshold=1": lambda L, x, x4: L.nn.functional.softplus(x, beta=0.5, threshold=1),
    "softplus beta=-1": lambda L, x, x4: L.nn.functional.softplus(x, beta=-1),
    "nn.Softplus(beta=3)": lambda L, x, x4: L.nn.Softplus(beta=3)(x),
    "elu inplace": _in_place(lambda L, y: L.nn.functional.elu(y, 0.5, inplace=True)),
    "elu_": _in_place(lambda L, y: L.nn.functional.elu_(y)),
    "leaky_relu inplace": _in_place(lambda L, y: L.nn.functional.leaky_relu(y, 0.2, inplace=True)),
    "nn.LeakyReLU(inplace=True)": _in_place(lambda L, y: L.nn.LeakyReLU(inplace=True)(y)),
    "selu inplace": _in_place(lambda L, y: L.nn.functional.selu(y, inplace=True)),
    "celu inplace": _in_place(lambda L, y: L.nn.functional.celu(y, 2.0, inplace=True)),
    "rrelu": lambda L, x, x4: L.nn.functional.rrelu(x),  # (out of training: the mean slope, no draw)
    "rrelu inplace": _in_place(lambda L, y: L.nn.functional.rrelu(y, inplace=True)),
    "gelu tanh": lambda L, x, x4: L.nn.functional.gelu(x, approximate="tanh"),
    "batch_norm eval": lambda L, x, x4: L.nn.functional.batch_norm(
        x4, L.zeros(4, dtype=L.float64), L.ones(4, dtype=L.float64)),
    "nn.BatchNorm2d eval": lambda L, x, x4: L.nn.BatchNorm2d(4).double().eval()(x4),
    "nll_loss 3-d": lambda L, x, x4: L.nn.functional.nll_loss(x4[:, :, 0], _labels(L, (2, 6))),
    "nll_loss 4-d": lambda L, x, x4: L.nn.functional.nll_loss(x4, _labels(L, (2, 6, 6)), reduction="sum"),
    "nll_loss 4-d none": lambda L, x, x4: L.nn.functional.nll_loss(x4, _labels(L, (2, 6, 6)), reduction="none"),
    "nll_loss 3-d none": lambda L, x, x4: L.nn.functional.nll_loss(x4[:, :, 0], _labels(L, (2, 6)),
                                                                   reduction="none"),
    "nll_loss 5-d none": lambda L, x, x4: L.nn.functional.nll_loss(x4[..., None], _labels(L, (2, 6, 6, 1)),
                                                                   reduction="none"),
    "cross_entropy 4-d": lambda L, x, x4: L.nn.functional.cross_entropy(x4, _labels(L, (2, 6, 6))),
    "cross_entropy 3-d sum": lambda L, x, x4: L.nn.functional.cross_entropy(x4[:, :, 0], _labels(L, (2, 6)),
                                                                           reduction="sum"),
    "cross_entropy 4-d none": lambda L, x, x4: L.nn.functional.cross_entropy(x4, _labels(L, (2, 6, 6)),
                                                                            reduction="none"),
    "cross_entropy 3-d none": lambda L, x, x4: L.nn.functional.cross_entropy(x4[:, :, 0], _labels(L, (2, 6)),
                                                                            reduction="none"),
    "cross_entropy 1-d none": lambda L, x, x4: L.nn.functional.cross_entropy(x[0], _labels(L, ()), reduction="none"),
    "cross_entropy 4-d smoothing": lambda L, x, x4: L.nn.functional.cross_entropy(x4, _labels(L, (2, 6, 6)),
                                                                                 label_smoothing=0.1),
    "nn.CrossEntropyLoss 4-d": lambda L, x, x4: L.nn.CrossEntropyLoss()(x4, _labels(L, (2, 6, 6))),
    "mse_loss none": lambda L, x, x4: L.nn.functional.mse_loss(x, L.tensor(_T), reduction="none"),
    "huber_loss none": lambda L, x, x4: L.nn.functional.huber_loss(x, L.tensor(_T), reduction="none"),
    "smooth_l1_loss none": lambda L, x, x4: L.nn.functional.smooth_l1_loss(x, L.tensor(_T), reduction="none"),
    "smooth_l1_loss beta=0": lambda L, x, x4: L.nn.functional.smooth_l1_loss(x, L.tensor(_T), beta=0.0),
    "smooth_l1_loss beta=0 none": lambda L, x, x4: L.nn.functional.smooth_l1_loss(x, L.tensor(_T), beta=0.0,
                                                                                  reduction="none"),
    "binary_cross_entropy none": lambda L, x, x4: L.nn.functional.binary_cross_entropy(
        x.sigmoid(), L.tensor(_T), reduction="none"),
    "binary_cross_entropy weight none": lambda L, x, x4: L.nn.functional.binary_cross_entropy(
        x.sigmoid(), L.tensor(_T), weight=L.tensor(_T[0]), reduction="none"),
    "binary_cross_entropy_with_logits none": lambda L, x, x4: L.nn.functional.binary_cross_entropy_with_logits(
        x, L.tensor(_T), reduction="none"),
    "nn.MSELoss(reduction='none')": lambda L, x, x4: L.nn.MSELoss(reduction="none")(x, L.tensor(_T)),
    "mse_loss weight": lambda L, x, x4: L.nn.functional.mse_loss(x, L.tensor(_T), weight=L.tensor(_T)),
    "mse_loss weight sum": lambda L, x, x4: L.nn.functional.mse_loss(x, L.tensor(_T), weight=L.tensor(_T),
                                                                     reduction="sum"),
    "mse_loss weight none": lambda L, x, x4: L.nn.functional.mse_loss(x, L.tensor(_T), weight=L.tensor(_T),
                                                                      reduction="none"),
    "l1_loss weight none": lambda L, x, x4: L.nn.functional.l1_loss(x, L.tensor(_T), weight=L.tensor(_T),
                                                                    reduction="none"),
    "huber_loss weight": lambda L, x, x4: L.nn.functional.huber_loss(x, L.tensor(_T), weight=L.tensor(_T)),
    "huber_loss weight sum": lambda L, x, x4: L.nn.functional.huber_loss(x, L.tensor(_T), weight=L.tensor(_T),
                                                                         reduction="sum"),
    "interpolate bilinear antialias": lambda L, x, x4: L.nn.functional.interpolate(x4, size=3, mode="bilinear",
                                                                                  antialias=True),
    "interpolate bicubic antialias": lambda L, x, x4: L.nn.functional.interpolate(x4, size=(4, 3), mode="bicubic",
                                                                                 antialias=True),
    "interpolate area 1-d": lambda L, x, x4: L.nn.functional.interpolate(x[None], size=4, mode="area"),
    "interpolate area 2-d": lambda L, x, x4: L.nn.functional.interpolate(x4, size=4, mode="area"),
    "interpolate area 3-d": lambda L, x, x4: L.nn.functional.interpolate(x4[None], size=(1, 3, 4), mode="area"),
    "adaptive_avg_pool2d 2": lambda L, x, x4: L.nn.functional.adaptive_avg_pool2d(x4, 2),
    "adaptive_avg_pool2d 4": lambda L, x, x4: L.nn.functional.adaptive_avg_pool2d(x4, 4),
    "adaptive_avg_pool2d (None, 3) unbatched": lambda L, x, x4: L.nn.functional.adaptive_avg_pool2d(x4[0], (None, 3)),
    "adaptive_avg_pool2d 1": lambda L, x, x4: L.nn.functional.adaptive_avg_pool2d(x4, 1),
    "nn.AdaptiveAvgPool2d((2, 3))": lambda L, x, x4: L.nn.AdaptiveAvgPool2d((2, 3))(x4),
    "adaptive_max_pool2d": lambda L, x, x4: L.nn.functional.adaptive_max_pool2d(x4, 4),
    "adaptive_max_pool2d indices unbatched": lambda L, x, x4: L.nn.functional.adaptive_max_pool2d(
        x4[0], 2, return_indices=True)[0],
    "adaptive_max_pool1d": lambda L, x, x4: L.nn.functional.adaptive_max_pool1d(x, 4),
    "max_pool2d indices": lambda L, x, x4: L.nn.functional.max_pool2d(x4, 2, return_indices=True)[0],
    "max_pool2d dilation": lambda L, x, x4: L.nn.functional.max_pool2d(x4, 2, dilation=2),
    "max_pool2d indices unbatched": lambda L, x, x4: L.nn.MaxPool2d(3, 2, 1, return_indices=True)(x4[0])[0],
    "max_pool3d": lambda L, x, x4: L.nn.functional.max_pool3d(x4[None], (1, 2, 2)),
    "max_pool3d indices unbatched": lambda L, x, x4: L.nn.functional.max_pool3d(x4, 2, return_indices=True)[0],
    "avg_pool3d": lambda L, x, x4: L.nn.functional.avg_pool3d(x4[None], (1, 3, 3), 2, (0, 1, 1), ceil_mode=True,
                                                              count_include_pad=False),
    "avg_pool3d unbatched": lambda L, x, x4: L.nn.AvgPool3d(2)(x4),
    "adaptive_avg_pool3d": lambda L, x, x4: L.nn.functional.adaptive_avg_pool3d(x4[None], (1, 4, 3)),
    "adaptive_avg_pool3d unbatched": lambda L, x, x4: L.nn.functional.adaptive_avg_pool3d(x4, 2),
    "adaptive_max_pool3d": lambda L, x, x4: L.nn.functional.adaptive_max_pool3d(x4[None], (1, 4, 3)),
    "lp_pool2d": lambda L, x, x4: L.nn.functional.lp_pool2d(x4, 2, 2),
    "lp_pool3d": lambda L, x, x4: L.nn.functional.lp_pool3d(x4[None], 2, (1, 2, 2)),
    "max_unpool2d": lambda L, x, x4: L.nn.functional.max_unpool2d(*L.nn.functional.max_pool2d(
        x4, 2, return_indices=True), 2),
    "max_unpool2d unbatched": lambda L, x, x4: L.nn.MaxUnpool2d(2)(*L.nn.MaxPool2d(2, return_indices=True)(x4[0])),
    "max_unpool1d": lambda L, x, x4: L.nn.functional.max_unpool1d(*L.nn.functional.max_pool1d(
        x[None], 2, return_indices=True), 2),
    "max_unpool3d": lambda L, x, x4: L.nn.functional.max_unpool3d(*L.nn.functional.max_pool3d(
        x4[None], (1, 2, 2), return_indices=True), (1, 2, 2)),
    "fold": lambda L, x, x4: L.nn.functional.fold(x4.reshape(2, 16, 9), 4, 2),
    "fold unbatched": lambda L, x, x4: L.nn.Fold((3, 4), (2, 3), padding=1)(x4.reshape(18, 16)[:6]),
    "channel_shuffle": lambda L, x, x4: L.nn.functional.channel_shuffle(x4, 2),
    "nn.ChannelShuffle": lambda L, x, x4: L.nn.ChannelShuffle(4)(x4),
    "grid_sample": lambda L, x, x4: L.nn.functional.grid_sample(x4, x4[:, :2].permute(0, 2, 3, 1).tanh(),
                                                                align_corners=False),
    "grid_sample nearest border": lambda L, x, x4: L.nn.functional.grid_sample(
        x4, x4[:, 1:3].permute(0, 2, 3, 1).tanh(), mode="nearest", padding_mode="border", align_corners=True),
    "grid_sample bicubic": lambda L, x, x4: L.nn.functional.grid_sample(x4, x4[:, :2].permute(0, 2, 3, 1).tanh(),
                                                                        mode="bicubic", align_corners=False),
    "grid_sample 3-d": lambda L, x, x4: L.nn.functional.grid_sample(
        x4[None], x4[:, :3, :2].permute(0, 2, 3, 1)[None].tanh(), align_corners=False),
    "affine_grid": lambda L, x, x4: L.nn.functional.affine_grid(x4[:, 0, :2, :3], (2, 1, 4, 5), align_corners=False),
    "affine_grid 3-d": lambda L, x, x4: L.nn.functional.affine_grid(x4[:, 0, :3, :4], (2, 1, 3, 4, 5),
                                                                    align_corners=True),
    "multi_margin_loss": lambda L, x, x4: L.nn.functional.multi_margin_loss(x, _labels(L, (4,))),
    "multi_margin_loss p=2 weight sum": lambda L, x, x4: L.nn.functional.multi_margin_loss(
        x, _labels(L, (4,)), p=2, weight=L.tensor(_T[0]), reduction="sum"),
    "multi_margin_loss none 1-d": lambda L, x, x4: L.nn.functional.multi_margin_loss(x[0], _labels(L, ()),
                                                                                     reduction="none"),
    "multilabel_margin_loss": lambda L, x, x4: L.nn.functional.multilabel_margin_loss(
        x, L.tensor([[1, 3, -1, 0, 0, 0], [0, -1, 0, 0, 0, 0], [5, 4, 3, 2, 1, 0], [-1, 0, 0, 0, 0, 0]])),
    "nn.MultiLabelMarginLoss(reduction='none')": lambda L, x, x4: L.nn.MultiLabelMarginLoss(reduction="none")(
        x, L.tensor([[1, 3, -1, 0, 0, 0], [0, -1, 0, 0, 0, 0], [5, 4, 3, 2, 1, 0], [-1, 0, 0, 0, 0, 0]])),
    "embedding_bag": lambda L, x, x4: L.nn.functional.embedding_bag(L.tensor([1, 2, 3, 0]), x, L.tensor([0, 2])),
    "embedding_bag max": lambda L, x, x4: L.nn.functional.embedding_bag(L.tensor([[1, 2], [3, 3]]), x, mode="max"),
    "embedding_bag sum per_sample_weights": lambda L, x, x4: L.nn.functional.embedding_bag(
        L.tensor([1, 2, 3, 0]), x, L.tensor([0, 1]), mode="sum", per_sample_weights=x4[0, 0, 0, :4]),
    "embedding_bag padding_idx": lambda L, x, x4: L.nn.functional.embedding_bag(L.tensor([[1, 2], [3, 3]]), x,
                                                                               padding_idx=2),
    "conv_transpose3d": lambda L, x, x4: L.nn.functional.conv_transpose3d(x4[None], x4[:, :3, :2, :2, None],
                                                                          x[0, :3], stride=(2, 1, 1)),
    "conv_transpose3d unbatched": lambda L, x, x4: L.nn.functional.conv_transpose3d(x4, x4[:, :2, :2, :2, None]),
    "conv_tbc": lambda L, x, x4: L.conv_tbc(x4[0, :3], x4[1, :2, :, :3], x[0, :3], 1),
    "bilinear": lambda L, x, x4: L.nn.functional.bilinear(x[:, :3], x[:, 3:5], x4[0, :, :3, :2]),
    "bilinear bias": lambda L, x, x4: L.nn.functional.bilinear(x[:, :3], x[:, 3:5], x4[0, :, :3, :2], x[0, :4]),
    "multi_head_attention_forward": lambda L, x, x4: _attention(L, x, x4)[0],
    "multi_head_attention_forward weights": lambda L, x, x4: _attention(L, x, x4)[1],
    "multi_head_attention_forward per-head weights": lambda L, x, x4: _attention(L, x, x4, False)[1],
    "multi_head_attention_forward unbatched": lambda L, x, x4: _attention(L, x[:3], x4)[0],
    "pad circular 1-d": lambda L, x, x4: L.nn.functional.pad(x[None], (2, 1), mode="circular"),
    "pad circular 2-d": lambda L, x, x4: L.nn.functional.pad(x4, (1, 2, 2, 1), mode="circular"),
    "nn.CircularPad3d": lambda L, x, x4: L.nn.CircularPad3d(1)(x4),
}


def _attention(L, x, x4, average=True):
    """F.multi_head_attention_forward over a query of x, (L, N, E) = (3, 2, 4) or unbatched (3, 4)
    for x[:3], with weights cut from x4, for 2 heads."""
    q = x.reshape(3, 2, 4) if x.shape[0] == 4 else x[:, :4]
    flat = x4.reshape(-1)
    return L.nn.functional.multi_head_attention_forward(
        q, q, q, 4, 2, flat[:48].reshape(12, 4), flat[48:60], None, None, False, 0.0, flat[60:76].reshape(4, 4),
        flat[76:80], average_attn_weights=average)


def _run(L, name):
    x = L.tensor(_X, requires_grad=True)
    x4 = L.tensor(_X4, requires_grad=True)
    y = _CASES[name](L, x, x4)
    node = (type(y.grad_fn).__name__, y.grad_fn.name())
    (y * L.tensor(np.linspace(0.5, 1.5, y.numel()).reshape(tuple(y.shape)))).sum().backward()
    grads = [np.zeros_like(a) if t.grad is None else t.grad.numpy() for t, a in ((x, _X), (x4, _X4))]
    return node, y.detach().numpy(), grads


@pytest.mark.parametrize("name", sorted(_CASES))
def test_a_functional_call_is_named_and_differentiated_as_torch(name):
    want_node, want_value, want_grads = _run(torch, name)
    node, value, grads = _run(gg, name)
    assert node == want_node
    np.testing.assert_allclose(value, want_value, rtol=1e-10, atol=1e-12)
    for g, w in zip(grads, want_grads):
        np.testing.assert_allclose(g, w, rtol=1e-8, atol=1e-10)


def test_a_batch_first_multihead_attention_layer_is_named_as_torch():
    """PyTorch's batch_first layer transposes the functional form's (L, N, E) output back."""
    names = []
    for L in (torch, gg):
        layer = L.nn.MultiheadAttention(4, 2, batch_first=True, dtype=L.float64)
        q = L.tensor(_X.reshape(2, 3, 4))
        names.append([type(t.grad_fn).__name__ for t in layer(q, q, q)]
                     + [type(layer(q, q, q, average_attn_weights=False)[1].grad_fn).__name__])
    assert names[1] == names[0]


def test_rrelu_in_training_is_named_as_torch():
    x = gg.tensor(_X, requires_grad=True)
    assert type(gg.nn.functional.rrelu(x, training=True).grad_fn).__name__ == "RreluWithNoiseBackward0"
    y = x * 1
    assert type(gg.nn.functional.rrelu(y, training=True, inplace=True).grad_fn).__name__ == "RreluWithNoiseBackward1"


@pytest.mark.parametrize("loss", ["mse_loss", "l1_loss", "huber_loss"])
def test_an_elementwise_weight_of_another_size_is_pytorchs_value_error(loss):
    for L in (torch, gg):
        with pytest.raises(ValueError, match="Weights and input must have the same size"):
            getattr(L.nn.functional, loss)(L.tensor(_X), L.tensor(_T), weight=L.ones(6, dtype=L.float64))


def test_without_grad_the_calls_record_no_name():
    F = gg.nn.functional
    x, x4 = gg.tensor(_X), gg.tensor(_X4)
    for y in (F.softplus(x, beta=2), F.rrelu(x), F.mse_loss(x, x, reduction="none"),
              F.nll_loss(x4, _labels(gg, (2, 6, 6)), reduction="none"), F.interpolate(x4, size=4, mode="area")):
        assert y.grad_fn is None and not y.requires_grad


def test_kl_div_mean_warns_pytorchs_text_word_for_word():
    texts = []
    for L in (torch, gg):
        with pytest.warns(UserWarning) as record:
            L.nn.functional.kl_div(L.tensor(_X).log_softmax(1), L.tensor(_T), reduction="mean")
        texts.append([str(w.message) for w in record if "batchmean" in str(w.message)])
    assert texts[0] and texts[1] == texts[0]
