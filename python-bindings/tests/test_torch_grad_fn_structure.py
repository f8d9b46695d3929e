"""Tensor.grad_fn graphs compared with PyTorch's for the same expression, three levels of
next_functions down (torch-free expected graphs: test_grad_fn_structure.py). Skipped when torch
is not importable."""
import numpy as np
import pytest

import glassgrad as gg
from grad_fn_walk import walk

torch = pytest.importorskip("torch")


def _F(lib):
    return lib.nn.functional


_T = [0, 3, 1, 1]
_EXPRESSIONS = {
    "x ** 2": lambda L, x, w: x ** 2, "2 ** x": lambda L, x, w: 2 ** x, "pow(x, 3)": lambda L, x, w: L.pow(x, 3),
    "x ** w": lambda L, x, w: x.abs() ** w, "1 - x": lambda L, x, w: 1 - x, "x - 1": lambda L, x, w: x - 1,
    "x[0]": lambda L, x, w: x[0], "x[:, 0]": lambda L, x, w: x[:, 0], "x[1:, 0]": lambda L, x, w: x[1:, 0],
    "x[0, 1:]": lambda L, x, w: x[0, 1:], "x[0, 1]": lambda L, x, w: x[0, 1], "x[-1, -2]": lambda L, x, w: x[-1, -2],
    "x[None]": lambda L, x, w: x[None], "x[None, 0]": lambda L, x, w: x[None, 0],
    "x[0, None]": lambda L, x, w: x[0, None], "x[:, None, 0]": lambda L, x, w: x[:, None, 0],
    "x[1:, None]": lambda L, x, w: x[1:, None], "x[1:, 2:]": lambda L, x, w: x[1:, 2:],
    "x[..., 0]": lambda L, x, w: x[..., 0], "x[None, 1:]": lambda L, x, w: x[None, 1:],
    "x[0][1]": lambda L, x, w: x[0][1],
    "cross_entropy": lambda L, x, w: _F(L).cross_entropy(x, L.tensor(_T)),
    "cross_entropy sum": lambda L, x, w: _F(L).cross_entropy(x, L.tensor(_T), reduction="sum"),
    "cross_entropy none": lambda L, x, w: _F(L).cross_entropy(x, L.tensor(_T), reduction="none"),
    "cross_entropy weight": lambda L, x, w: _F(L).cross_entropy(x, L.tensor(_T), weight=w[0].abs().detach()),
    "cross_entropy unbatched": lambda L, x, w: _F(L).cross_entropy(x[0], L.tensor(2)),
    "CrossEntropyLoss of a Linear": lambda L, x, w: L.nn.CrossEntropyLoss()(x @ w, L.tensor(_T)),
    "nll_loss": lambda L, x, w: _F(L).nll_loss(x.log_softmax(1), L.tensor(_T)),
    "nll_loss sum": lambda L, x, w: _F(L).nll_loss(x, L.tensor(_T), reduction="sum"),
    "nll_loss none": lambda L, x, w: _F(L).nll_loss(x, L.tensor(_T), reduction="none"),
    "conv2d": lambda L, x, w: _F(L).conv2d(x.reshape(1, 1, 4, 4), w[0].reshape(1, 1, 2, 2)),
    "conv2d bias": lambda L, x, w: _F(L).conv2d(x.reshape(1, 1, 4, 4), w[0].reshape(1, 1, 2, 2), w[0, :1]),
    "conv2d unbatched": lambda L, x, w: _F(L).conv2d(x.reshape(1, 4, 4), w[0].reshape(1, 1, 2, 2)),
    "conv1d": lambda L, x, w: _F(L).conv1d(x.reshape(1, 4, 4), w.reshape(2, 4, 2)),
    "conv1d unbatched": lambda L, x, w: _F(L).conv1d(x, w.reshape(2, 4, 2), w[0, :2]),
    "conv_transpose2d": lambda L, x, w: _F(L).conv_transpose2d(x.reshape(1, 1, 4, 4), w[0].reshape(1, 1, 2, 2)),
    "conv_transpose1d bias": lambda L, x, w: _F(L).conv_transpose1d(x.reshape(1, 4, 4), w.reshape(4, 2, 2), w[0, :2]),
    "conv3d": lambda L, x, w: _F(L).conv3d(x.reshape(1, 1, 1, 4, 4), w[0].reshape(1, 1, 1, 2, 2), padding=1),
    "pad": lambda L, x, w: _F(L).pad(x, (1, 1)), "pad crop": lambda L, x, w: _F(L).pad(x, (-1, 1, 0, 2)),
    "pad value": lambda L, x, w: _F(L).pad(x, (1, 1), value=2.0),
    "pad reflect": lambda L, x, w: _F(L).pad(x[None], (1, 1), mode="reflect"),
    "pad reflect 2d": lambda L, x, w: _F(L).pad(x[None, None], (1, 1, 2, 0), mode="reflect"),
    "pad replicate": lambda L, x, w: _F(L).pad(x[None], (2, 1), mode="replicate"),
    "roll": lambda L, x, w: x.roll(1, 0), "roll flat": lambda L, x, w: x.roll(3),
    "roll two dims": lambda L, x, w: x.roll((1, 2), (0, 1)),
    "diagonal": lambda L, x, w: x.diagonal(1), "diag": lambda L, x, w: x.diag(-1), "diag vector": lambda L, x, w: x[0].diag(),
    "masked_select": lambda L, x, w: x.masked_select(w > 0), "take": lambda L, x, w: x.take(L.tensor([1, 5])),
    "nansum": lambda L, x, w: x.nansum(), "logcumsumexp": lambda L, x, w: x.logcumsumexp(1),
    "soft_margin_loss": lambda L, x, w: _F(L).soft_margin_loss(x, w.sign().detach(), reduction="sum"),
    "selu": lambda L, x, w: _F(L).selu(x), "celu": lambda L, x, w: _F(L).celu(x, 0.5),
    "prelu": lambda L, x, w: _F(L).prelu(x, w[0]), "prelu 1-d": lambda L, x, w: _F(L).prelu(x[0], w[1, :1]),
    "logit": lambda L, x, w: x.sigmoid().logit(), "logit eps": lambda L, x, w: x.sigmoid().logit(0.01),
    "Tensor.unfold": lambda L, x, w: x.unfold(0, 2, 1), "Tensor.unfold apart": lambda L, x, w: x.unfold(1, 2, 2),
    "F.unfold": lambda L, x, w: _F(L).unfold(x[None, None], 2),
    "pixel_shuffle": lambda L, x, w: _F(L).pixel_shuffle(x.reshape(1, 4, 2, 2), 2),
    "pixel_unshuffle": lambda L, x, w: _F(L).pixel_unshuffle(x.reshape(1, 1, 4, 4), 2),
    "interpolate nearest": lambda L, x, w: _F(L).interpolate(x[None, None], scale_factor=2),
    "interpolate nearest 1d": lambda L, x, w: _F(L).interpolate(x[None], size=6),
    "interpolate nearest-exact": lambda L, x, w: _F(L).interpolate(x[None, None], size=(5, 3), mode="nearest-exact"),
    "interpolate bilinear": lambda L, x, w: _F(L).interpolate(x[None, None], scale_factor=2, mode="bilinear"),
    "interpolate bicubic": lambda L, x, w: _F(L).interpolate(x[None, None], size=(5, 7), mode="bicubic"),
    "interpolate linear": lambda L, x, w: _F(L).interpolate(x[None], scale_factor=2, mode="linear"),
    "interpolate trilinear": lambda L, x, w: _F(L).interpolate(x[None, None, None], scale_factor=2, mode="trilinear"),
    "group_norm": lambda L, x, w: _F(L).group_norm(x.reshape(2, 2, 4), 2),
    "group_norm affine": lambda L, x, w: _F(L).group_norm(x.reshape(1, 4, 4), 2, w[0], w[1]),
    "cdist": lambda L, x, w: L.cdist(x, w), "cdist p=1": lambda L, x, w: L.cdist(x[None], w[None], p=1),
    "pairwise_distance": lambda L, x, w: _F(L).pairwise_distance(x, w),
    "norm": lambda L, x, w: x.norm(), "norm dim": lambda L, x, w: x.norm(dim=0),
    "vector_norm p=3": lambda L, x, w: L.linalg.vector_norm(x, 3),
    "v @ x": lambda L, x, w: w[0] @ x, "x @ v": lambda L, x, w: x @ w[0], "dot": lambda L, x, w: L.dot(x[0], w[1]),
    "t().reshape": lambda L, x, w: x.t().reshape(16), "t().flatten()": lambda L, x, w: x.t().flatten(),
    "permute().reshape(-1)": lambda L, x, w: x.permute(1, 0).reshape(-1),
    "x[:, :2].reshape": lambda L, x, w: x[:, :2].reshape(8), "x[:2].reshape": lambda L, x, w: x[:2].reshape(8),
    "unsqueeze_": lambda L, x, w: (x * 1).unsqueeze_(0), "squeeze_()": lambda L, x, w: (x * 1)[None].squeeze_(),
    "squeeze_(dim)": lambda L, x, w: (x * 1)[:, None].squeeze_(1), "t_": lambda L, x, w: (x * w).t_(),
    "transpose_": lambda L, x, w: (x * 1).transpose_(1, 0), "swapdims_": lambda L, x, w: (x * 1).swapdims_(0, 1),
    "sdpa": lambda L, x, w: _F(L).scaled_dot_product_attention(x[None, None], w[None, None], w[None, None]),
    "sdpa causal": lambda L, x, w: _F(L).scaled_dot_product_attention(x[None, None], w[None, None], w[None, None],
                                                                     is_causal=True),
    "sdpa mask": lambda L, x, w: _F(L).scaled_dot_product_attention(x[None, None], w[None, None], w[None, None],
                                                                   attn_mask=L.ones(4, 4, dtype=L.bool).tril()),
}


def _graph(lib, f):
    x = lib.tensor(np.random.default_rng(4).standard_normal((4, 4)), requires_grad=True)
    w = lib.tensor(np.random.default_rng(5).standard_normal((4, 4)), requires_grad=True)
    return walk(f(lib, x, w).grad_fn)


@pytest.mark.parametrize("name", list(_EXPRESSIONS))
def test_grad_fn_graph_is_torchs(name):
    assert _graph(gg, _EXPRESSIONS[name]) == _graph(torch, _EXPRESSIONS[name])
