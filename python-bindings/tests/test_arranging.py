"""The arranging, searching and statistics functions (torch.permute ... torch.pdist; see
_arranging.py, _searching.py, _statistics.py) against NumPy's own functions of the same meaning,
and their gradients by float64 finite differences. test_torch_arranging.py compares them with
PyTorch where it is installed."""
import itertools

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.debug import gradcheck

RNG = np.random.default_rng(3)


def _trapz(y, x=None, dx=1.0, axis=-1):
    y = np.moveaxis(y, axis, -1)
    d = np.diff(x) if x is not None else dx
    return ((y[..., 1:] + y[..., :-1]) * d / 2).sum(-1)


def _block_diag(*blocks):
    blocks = [np.atleast_2d(b) for b in blocks]
    out = np.zeros((sum(b.shape[0] for b in blocks), sum(b.shape[1] for b in blocks)))
    r = c = 0
    for b in blocks:
        out[r:r + b.shape[0], c:c + b.shape[1]] = b
        r, c = r + b.shape[0], c + b.shape[1]
    return out


def _pdist(x, p):
    i, j = np.triu_indices(len(x), 1)
    return (np.abs(x[i] - x[j]) ** p).sum(1) ** (1 / p)


CASES = {  # name: (input shapes, glassgrad function, NumPy reference)
    "permute": ([(2, 3, 4)], lambda a: gg.permute(a, (2, 0, 1)), lambda a: a.transpose(2, 0, 1)),
    "transpose": ([(2, 3, 4)], lambda a: gg.transpose(a, 0, 2), lambda a: a.swapaxes(0, 2)),
    "column_stack": ([(3,), (3, 2)], lambda a, b: gg.column_stack([a, b]), lambda a, b: np.column_stack([a, b])),
    "dstack": ([(2, 3), (2, 3)], lambda a, b: gg.dstack([a, b]), lambda a, b: np.dstack([a, b])),
    "block_diag": ([(2, 3), (2,), (1, 1)], gg.block_diag, _block_diag),
    "cartesian_prod": ([(3,), (2,)], gg.cartesian_prod,
                       lambda a, b: np.array(list(itertools.product(a, b)))),
    "combinations": ([(5,)], lambda a: gg.combinations(a, 3),
                     lambda a: np.array(list(itertools.combinations(a, 3)))),
    "combinations_r": ([(3,)], lambda a: gg.combinations(a, 2, with_replacement=True),
                       lambda a: np.array(list(itertools.combinations_with_replacement(a, 2)))),
    "vander": ([(4,)], lambda a: gg.vander(a, 3), lambda a: np.vander(a, 3)),
    "vander_inc": ([(4,)], lambda a: gg.vander(a, increasing=True), lambda a: np.vander(a, increasing=True)),
    "tensordot": ([(2, 3, 4), (4, 3, 5)], lambda a, b: gg.tensordot(a, b, ([1, 2], [1, 0])),
                  lambda a, b: np.tensordot(a, b, ([1, 2], [1, 0]))),
    "tensordot_2": ([(2, 3, 4), (3, 4, 2)], gg.tensordot, lambda a, b: np.tensordot(a, b, 2)),
    "chain_matmul": ([(2, 3), (3, 4), (4, 2)], gg.chain_matmul, lambda *m: np.linalg.multi_dot(m)),
    "select_scatter": ([(3, 4), (3,)], lambda a, b: gg.select_scatter(a, b, 1, 2),
                       lambda a, b: np.concatenate([a[:, :2], b[:, None], a[:, 3:]], 1)),
    "slice_scatter": ([(6, 2), (2, 2)], lambda a, b: a.slice_scatter(b, 0, 1, 5, 2),
                      lambda a, b: np.stack([a[0], b[0], a[2], b[1], a[4], a[5]])),
    "cov": ([(3, 8)], gg.cov, np.cov),
    "cov_0": ([(2, 5)], lambda a: gg.cov(a, correction=0), lambda a: np.cov(a, ddof=0)),
    "corrcoef": ([(3, 8)], gg.corrcoef, np.corrcoef),
    "trapezoid": ([(3, 5)], gg.trapezoid, _trapz),
    "trapezoid_x": ([(3, 5), (5,)], lambda y, x: gg.trapezoid(y, x.cumsum(0)),
                    lambda y, x: _trapz(y, np.cumsum(x))),
    "trapz_dx": ([(3, 5)], lambda y: gg.trapz(y, dx=0.3, dim=0), lambda y: _trapz(y, dx=0.3, axis=0)),
    "cumulative_trapezoid": ([(2, 5)], gg.cumulative_trapezoid,
                             lambda y: np.cumsum((y[:, 1:] + y[:, :-1]) / 2, 1)),
    "pdist": ([(5, 3)], gg.pdist, lambda x: _pdist(x, 2)),
    "pdist_3": ([(4, 3)], lambda x: gg.pdist(x, 3), lambda x: _pdist(x, 3)),
    "ldexp": ([(4,)], lambda a: gg.ldexp(a, gg.tensor([1, -2, 3, 0])), lambda a: np.ldexp(a, [1, -2, 3, 0])),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_numpy_and_finite_differences(name):
    shapes, fn, reference = CASES[name]
    arrays = [RNG.standard_normal(s) for s in shapes]
    got = fn(*[gg.tensor(a) for a in arrays])
    want = reference(*arrays)
    assert tuple(got.shape) == np.shape(want)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    weights = gg.tensor(RNG.standard_normal(np.shape(want)))
    assert gradcheck(lambda *t: (fn(*t) * weights).sum(), arrays)


def test_cov_with_weights_is_numpy_s():
    x, f, a = RNG.standard_normal((3, 6)), np.array([1, 2, 1, 3, 1, 2]), RNG.uniform(0.5, 2, 6)
    np.testing.assert_allclose(gg.cov(gg.tensor(x), fweights=gg.tensor(f), aweights=gg.tensor(a)).numpy(),
                               np.cov(x, fweights=f, aweights=a), rtol=1e-12)
    np.testing.assert_allclose(gg.cov(gg.tensor(x), fweights=gg.tensor(f), correction=0).numpy(),
                               np.cov(x, fweights=f, ddof=0), rtol=1e-12)
    with pytest.raises(gg.DTypeError, match="fweights"):
        gg.cov(gg.tensor(x), fweights=gg.tensor(f * 1.0))


@pytest.mark.parametrize("name", ["fweights", "aweights"])
def test_cov_refuses_negative_weights_as_pytorch(name):
    weights = gg.tensor([1, -2, 1]) if name == "fweights" else gg.tensor([1.0, -0.5, 1.0])
    with pytest.raises(RuntimeError, match=f"cov\\(\\): {name} cannot be negative"):
        gg.cov(gg.ones(2, 3), **{name: weights})


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_and_bucketize_are_numpy_s_on_sorted_numbers(side):
    seq = np.sort(RNG.integers(0, 6, 9)).astype(np.float64)
    vals = RNG.integers(-1, 8, (3, 4)).astype(np.float64)
    got = gg.searchsorted(gg.tensor(seq), gg.tensor(vals), side=side)
    np.testing.assert_array_equal(got.numpy(), np.searchsorted(seq, vals, side=side))
    assert got.dtype == gg.int64
    rows = np.sort(RNG.standard_normal((3, 5)), 1)
    got = gg.searchsorted(gg.tensor(rows), gg.tensor(vals), right=side == "right", out_int32=True)
    np.testing.assert_array_equal(got.numpy(), [np.searchsorted(r, v, side=side) for r, v in zip(rows, vals)])
    assert got.dtype == gg.int32
    np.testing.assert_array_equal(gg.bucketize(gg.tensor(vals), gg.tensor(seq), right=side == "right").numpy(),
                                  np.searchsorted(seq, vals, side=side))


def test_searching_refuses_mismatched_shapes():
    with pytest.raises(gg.ShapeError, match="leading"):
        gg.searchsorted(gg.zeros(2, 3), gg.zeros(3, 1))
    with pytest.raises(gg.ShapeError, match="1-d"):
        gg.bucketize(gg.zeros(3), gg.zeros(2, 2))
    with pytest.raises(gg.InvalidArgumentError, match="contradict"):
        gg.searchsorted(gg.zeros(3), gg.zeros(2), side="left", right=True)


def test_isin_index_builders_and_range():
    a = RNG.integers(0, 9, (3, 4))
    np.testing.assert_array_equal(gg.isin(gg.tensor(a), gg.tensor([1, 4, 7])).numpy(), np.isin(a, [1, 4, 7]))
    np.testing.assert_array_equal(gg.isin(gg.tensor(a), 4, invert=True).numpy(), ~np.isin(a, 4))
    for row, col, off in ((4, 4, 0), (3, 5, 1), (5, 3, -2)):
        np.testing.assert_array_equal(gg.tril_indices(row, col, off).numpy(), np.tril_indices(row, off, col))
        np.testing.assert_array_equal(gg.triu_indices(row, col, off).numpy(), np.triu_indices(row, off, col))
    idx = np.array([0, 7, 23, -1])
    for got, want in zip(gg.unravel_index(gg.tensor(idx), (2, 3, 4)), np.unravel_index(idx % 24, (2, 3, 4))):
        np.testing.assert_array_equal(got.numpy(), want)
    np.testing.assert_allclose(gg.range(0, 1, 0.25).numpy(), [0, 0.25, 0.5, 0.75, 1.0])
    assert gg.range(1, 4).dtype == gg.float32
    # past the documented range PyTorch's formula (floor(i / stride) mod size) wraps; glassgrad's too
    assert [c.tolist() for c in gg.unravel_index(gg.tensor([24, -25, 31]), (2, 3, 4))] == [[0, 1, 0], [0, 2, 1],
                                                                                            [0, 3, 3]]


def test_arranging_errors_name_the_cause():
    with pytest.raises(gg.ShapeError, match="at most 2"):
        gg.block_diag(gg.zeros(1, 2, 3))
    with pytest.raises(gg.ShapeError, match="contracted dimensions need to match"):
        gg.tensordot(gg.zeros(2, 3), gg.zeros(4, 5), 1)
    with pytest.raises(gg.ShapeError, match="slice size"):
        gg.slice_scatter(gg.zeros(4, 2), gg.zeros(3, 2), 0, 0, 2)
    with pytest.raises(gg.ShapeError, match="1D"):
        gg.combinations(gg.zeros(2, 2))
