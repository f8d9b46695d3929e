"""next_functions of the indexing ops' nodes list only what PyTorch's node differentiates
(expected graphs written from PyTorch 2's autograd; docs/autograd.md): no entry for an index, a
mask or a condition (GatherBackward0(self), WhereBackward0(self, other)); x[mask] = v is
IndexPutBackward0(self, value); masked_fill and scatter of a number list self alone
(MaskedFillBackward0, ScatterBackward1); a write through a view is CopySlices of the base and the
operands after the first of the node that computed the written value (y[:2].mul_(w): base, w)."""
import numpy as np
import pytest

import glassgrad as gg
from grad_fn_walk import walk

_X = np.arange(16, dtype=np.float64).reshape(4, 4) / 7 - 1.1
_MASK = _X > 0
_I = [1, 2]


def _written(f):
    def run(L, y, v):
        f(L, y, v)
        return y
    return run


_EXPECTED = {
    "y[mask] = 0": (_written(lambda L, y, v: y.__setitem__(L.tensor(_MASK), 0.0)),
                    "IndexPutBackward0(MulBackward0(AccumulateGrad, None), None)"),
    "y[row mask] = 0": (_written(lambda L, y, v: y.__setitem__(L.tensor([True, False, True, False]), 0.0)),
                        "IndexPutBackward0(MulBackward0(AccumulateGrad, None), None)"),
    "y[mask] = v[0]": (_written(lambda L, y, v: y.__setitem__(L.tensor(_MASK), v[0])),
                       "IndexPutBackward0(MulBackward0(AccumulateGrad, None), SelectBackward0(AccumulateGrad))"),
    "y[idx] = 0": (_written(lambda L, y, v: y.__setitem__(L.tensor(_I), 0.0)),
                   "IndexPutBackward0(MulBackward0(AccumulateGrad, None), None)"),
    "y[i, j] = 0": (_written(lambda L, y, v: y.__setitem__((L.tensor(_I), L.tensor([0, 3])), 0.0)),
                    "IndexPutBackward0(MulBackward0(AccumulateGrad, None), None)"),
    "index_put_ accumulate": (_written(lambda L, y, v: y.index_put_((L.tensor([1, 1]),), v[:4], accumulate=True)),
                              "IndexPutBackward0(MulBackward0(AccumulateGrad, None), SliceBackward0(AccumulateGrad))"),
    "where": (lambda L, y, v: L.where(L.tensor(_MASK), y, v[:4]),
              "WhereBackward0(MulBackward0(AccumulateGrad, None), SliceBackward0(AccumulateGrad))"),
    "where number": (lambda L, y, v: L.where(L.tensor(_MASK), y, 0.0), "WhereBackward0(MulBackward0(AccumulateGrad, None), None)"),
    "masked_fill": (lambda L, y, v: y.masked_fill(L.tensor(_MASK), 0.0), "MaskedFillBackward0(MulBackward0(AccumulateGrad, None))"),
    "gather": (lambda L, y, v: y.gather(1, L.tensor([[0], [1], [2], [3]])), "GatherBackward0(MulBackward0(AccumulateGrad, None))"),
    "index_select": (lambda L, y, v: y.index_select(0, L.tensor(_I)), "IndexSelectBackward0(MulBackward0(AccumulateGrad, None))"),
    "y[idx]": (lambda L, y, v: y[L.tensor(_I)], "IndexBackward0(MulBackward0(AccumulateGrad, None))"),
    "y[mask]": (lambda L, y, v: y[L.tensor(_MASK)], "IndexBackward0(MulBackward0(AccumulateGrad, None))"),
    "scatter": (lambda L, y, v: y.scatter(0, L.tensor([[1, 2]]), v[:2].reshape(1, 2)),
                "ScatterBackward0(MulBackward0(AccumulateGrad, None), ViewBackward0(SliceBackward0))"),
    "scatter number": (lambda L, y, v: y.scatter(0, L.tensor([[1, 2]]), 2.0), "ScatterBackward1(MulBackward0(AccumulateGrad, None))"),
    "scatter_add": (lambda L, y, v: y.scatter_add(0, L.tensor([[1, 2]]), v[:2].reshape(1, 2)),
                    "ScatterAddBackward0(MulBackward0(AccumulateGrad, None), ViewBackward0(SliceBackward0))"),
    "index_add": (lambda L, y, v: y.index_add(0, L.tensor(_I), v[:8].reshape(2, 4)),
                  "IndexAddBackward0(MulBackward0(AccumulateGrad, None), ViewBackward0(SliceBackward0))"),
    "index_copy": (lambda L, y, v: y.index_copy(0, L.tensor(_I), v[:8].reshape(2, 4)),
                   "IndexCopyBackward0(MulBackward0(AccumulateGrad, None), ViewBackward0(SliceBackward0))"),
    "index_fill": (lambda L, y, v: y.index_fill(0, L.tensor(_I), 0.0), "IndexFillBackward0(MulBackward0(AccumulateGrad, None))"),
    "index_fill tensor": (lambda L, y, v: y.index_fill(0, L.tensor(_I), v[0]),
                          "IndexFillBackward1(MulBackward0(AccumulateGrad, None), SelectBackward0(AccumulateGrad))"),
    "put": (lambda L, y, v: y.put(L.tensor(_I), v[:2]),
            "PutBackward0(MulBackward0(AccumulateGrad, None), SliceBackward0(AccumulateGrad))"),
    "masked_scatter": (lambda L, y, v: y.masked_scatter(L.tensor(_MASK), v),
                       "MaskedScatterBackward0(MulBackward0(AccumulateGrad, None), AccumulateGrad)"),
    "embedding": (lambda L, y, v: L.nn.functional.embedding(L.tensor(_I), y), "EmbeddingBackward0(MulBackward0(AccumulateGrad, None))"),
    "zero_": (_written(lambda L, y, v: y.zero_()), "ZeroBackward0(MulBackward0(AccumulateGrad, None))"),
    "fill_": (_written(lambda L, y, v: y.fill_(2.0)), "FillBackward2(MulBackward0(AccumulateGrad, None))"),
    "y[:2].mul_(v)": (_written(lambda L, y, v: y[:2].mul_(v[:4])),
                      "CopySlices(MulBackward0(AccumulateGrad, None), SliceBackward0(AccumulateGrad))"),
    "y[:2].exp_()": (_written(lambda L, y, v: y[:2].exp_()), "CopySlices(MulBackward0(AccumulateGrad, None))"),
    "y[:2].zero_()": (_written(lambda L, y, v: y[:2].zero_()), "CopySlices(MulBackward0(AccumulateGrad, None))"),
    "y[:2] = 0": (_written(lambda L, y, v: y.__setitem__(slice(0, 2), 0.0)), "CopySlices(MulBackward0(AccumulateGrad, None), None)"),
    "y[1:][mask] = v[0]": (_written(lambda L, y, v: y[1:].__setitem__(L.tensor(_MASK[1:]), v[0])),
                           "CopySlices(MulBackward0(AccumulateGrad, None), SelectBackward0(AccumulateGrad))"),
}


def _graph(lib, f):
    x = lib.tensor(_X, requires_grad=True)
    v = lib.tensor(np.linspace(-1, 1, 16), requires_grad=True)
    return walk(f(lib, x * 1, v).grad_fn, 2)


@pytest.mark.parametrize("name", list(_EXPECTED))
def test_index_nodes_list_pytorchs_operands(name):
    f, expected = _EXPECTED[name]
    assert _graph(gg, f) == expected


@pytest.mark.parametrize("name", ["y[mask] = 0", "y[mask] = v[0]", "index_fill", "put", "y[:2].mul_(v)"])
def test_gradients_through_the_renamed_nodes(name):
    # the names change what grad_fn shows, not the gradient: compared with the same function's numbers
    f = _EXPECTED[name][0]
    x = gg.tensor(_X, requires_grad=True)
    v = gg.tensor(np.linspace(-1, 1, 16), requires_grad=True)
    (f(gg, x * 1, v) * gg.tensor(_X + 2)).sum().backward()
    x64, v64 = _X.copy(), np.linspace(-1, 1, 16)
    expected_x = {"y[mask] = 0": np.where(_MASK, 0, _X + 2), "y[mask] = v[0]": np.where(_MASK, 0, _X + 2),
                  "index_fill": np.where(np.isin(np.arange(4), _I)[:, None], 0, _X + 2), "put": None,
                  "y[:2].mul_(v)": np.vstack([(_X + 2)[:2] * v64[:4], (_X + 2)[2:]])}[name]
    if expected_x is not None:
        np.testing.assert_allclose(x.grad.numpy(), expected_x)
    if name == "y[mask] = v[0]":
        assert v.grad.numpy()[0] == pytest.approx((_X + 2)[_MASK].sum())
    if name == "y[:2].mul_(v)":
        np.testing.assert_allclose(v.grad.numpy()[:4], ((_X + 2)[:2] * x64[:2]).sum(0))


@pytest.mark.parametrize("name", list(_EXPECTED))
def test_index_nodes_match_torch(name):
    torch = pytest.importorskip("torch")
    f = _EXPECTED[name][0]
    assert _graph(gg, f) == _graph(torch, f)
