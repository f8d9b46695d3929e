"""A second backward() without retain_graph through one op, as PyTorch answers it: a node whose
PyTorch counterpart saved tensors raises ("Trying to backward through the graph a second time"),
one that saved none (sums, views, adds, concatenations) runs again. glassgrad decides this per
forward op from the values its gradient reads, plus the ops PyTorch saves a value for that the
gradient here does not read (backward.cpp, saves_unread_value). Skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F

torch = pytest.importorskip("torch")

_W = np.random.default_rng(5).standard_normal((4, 4))

# (name, input shape, f(lib, functional, x)), each run the same way in both libraries
_CASES = [
    ("avg_pool1d", (2, 3, 7), lambda L, F, x: F.avg_pool1d(x, 3)),
    ("avg_pool1d padded", (3, 9), lambda L, F, x: F.avg_pool1d(x, 3, 2, 1, count_include_pad=False)),
    ("avg_pool2d", (2, 3, 7, 5), lambda L, F, x: F.avg_pool2d(x, 3)),
    ("avg_pool2d ceil", (1, 2, 7, 7), lambda L, F, x: F.avg_pool2d(x, 2, ceil_mode=True)),
    ("avg_pool3d", (2, 3, 5, 5, 5), lambda L, F, x: F.avg_pool3d(x, 2)),
    ("adaptive_avg_pool2d", (2, 3, 7, 7), lambda L, F, x: F.adaptive_avg_pool2d(x, 2)),
    ("max_pool2d", (2, 3, 7, 7), lambda L, F, x: F.max_pool2d(x, 2)),
    ("x * 3", (3, 4), lambda L, F, x: x * 3),
    ("x / 2", (3, 4), lambda L, F, x: x / 2),
    ("exp", (3, 4), lambda L, F, x: x.exp()),
    ("relu", (3, 4), lambda L, F, x: F.relu(x)),
    ("softmax", (3, 4), lambda L, F, x: x.softmax(1)),
    ("index_select", (3, 4), lambda L, F, x: x.index_select(0, L.tensor([0, 2]))),
    ("matmul", (3, 4), lambda L, F, x: x @ L.tensor(_W)),
    ("sum", (3, 4), lambda L, F, x: x.sum()),
    ("mean", (3, 4), lambda L, F, x: x.mean(1)),
    ("x + 1", (3, 4), lambda L, F, x: x + 1),
    ("x - 1", (3, 4), lambda L, F, x: x - 1),
    ("neg", (3, 4), lambda L, F, x: -x),
    ("reshape", (3, 4), lambda L, F, x: x.reshape(-1)),
    ("expand", (3, 1), lambda L, F, x: x.expand(3, 4)),
    ("constant pad", (3, 4), lambda L, F, x: F.pad(x, (1, 2))),
    ("cat", (3, 4), lambda L, F, x: L.cat([x, x])),
    ("slice", (3, 4), lambda L, F, x: x[1:]),
    ("flip", (3, 4), lambda L, F, x: x.flip(0)),
    ("cumsum", (3, 4), lambda L, F, x: x.cumsum(1)),
    ("nearest upsampling", (1, 2, 3, 3), lambda L, F, x: F.interpolate(x, scale_factor=2)),
    ("floor", (3, 4), lambda L, F, x: x.floor()),
]


def _second_backward_raises(lib, functional, shape, f) -> bool:
    x = lib.tensor(np.random.default_rng(1).standard_normal(shape), requires_grad=True)
    y = f(lib, functional, x)
    y.sum().backward()
    try:
        y.sum().backward()
    except RuntimeError as e:
        assert "second time" in str(e)
        return True
    return False


@pytest.mark.parametrize("name,shape,f", _CASES, ids=[c[0] for c in _CASES])
def test_second_backward_raises_as_torch(name, shape, f):
    want = _second_backward_raises(torch, torch.nn.functional, shape, f)
    assert _second_backward_raises(gg, F, shape, f) == want


@pytest.mark.parametrize("name,shape,f", [("avg_pool1d", (2, 4, 7), lambda x: F.avg_pool1d(x, 2)),
                                          ("avg_pool2d", (1, 2, 4, 6), lambda x: F.avg_pool2d(x, 2))])
def test_retain_graph_allows_the_second_backward_through_avg_pool(name, shape, f):
    x = gg.tensor(np.random.default_rng(2).standard_normal(shape), requires_grad=True)
    y = f(x)
    y.sum().backward(retain_graph=True)
    first = x.grad.detach().numpy().copy()
    y.sum().backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), 2 * first)
