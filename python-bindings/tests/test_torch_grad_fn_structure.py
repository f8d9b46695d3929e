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
}


def _graph(lib, f):
    x = lib.tensor(np.random.default_rng(4).standard_normal((4, 4)), requires_grad=True)
    w = lib.tensor(np.random.default_rng(5).standard_normal((4, 4)), requires_grad=True)
    return walk(f(lib, x, w).grad_fn)


@pytest.mark.parametrize("name", list(_EXPRESSIONS))
def test_grad_fn_graph_is_torchs(name):
    assert _graph(gg, _EXPRESSIONS[name]) == _graph(torch, _EXPRESSIONS[name])
