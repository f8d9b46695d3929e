"""The functions computed on the host through NumPy (nonzero, argwhere, unique, unique_consecutive,
histc, searchsorted, bucketize, bincount's weights, isin, to_sparse) take bfloat16 as torch's do
(NumPy has none): on values bfloat16 holds exactly they give what float32 gives, bfloat16 values
where the result holds input values (unique, histc), float64 sums of bfloat16 weights (bincount)."""
import numpy as np
import pytest

import glassgrad as gg

X = np.array([[1.5, -2.0, 0.0], [3.0, 1.5, -1.0], [1.5, -2.0, 0.0]], np.float32)
CALLS = {
    "nonzero": lambda x: gg.nonzero(x), "argwhere": lambda x: gg.argwhere(x),
    "unique": lambda x: gg.unique(x, return_inverse=True, return_counts=True), "unique dim": lambda x: gg.unique(x, dim=0),
    "unique_consecutive": lambda x: gg.unique_consecutive(x), "histc": lambda x: gg.histc(x, 4),
    "searchsorted": lambda x: gg.searchsorted(gg.tensor([-2.0, 0.0, 1.5, 3.0]).to(x.dtype), x),
    "bucketize": lambda x: gg.bucketize(x, gg.tensor([-2.0, 0.0, 1.5, 3.0]).to(x.dtype), right=True),
    "isin": lambda x: gg.isin(x, x[0]), "to_sparse": lambda x: x.to_sparse().to_dense(),
}


def _plain(r):
    if isinstance(r, tuple):
        return [_plain(v) for v in r]
    return (r.dtype, r.float().numpy() if r.dtype.is_floating_point else r.numpy())


@pytest.mark.parametrize("name", sorted(CALLS))
def test_bfloat16_as_float32(name):
    half, full = _plain(CALLS[name](gg.tensor(X).bfloat16())), _plain(CALLS[name](gg.tensor(X)))
    for (hd, hv), (fd, fv) in zip(half if isinstance(half, list) else [half], full if isinstance(full, list) else [full]):
        assert hd == (gg.bfloat16 if fd == gg.float32 else fd)
        np.testing.assert_array_equal(hv, fv)


def test_bincount_of_bfloat16_weights_is_float64():
    out = gg.bincount(gg.tensor([0, 1, 1, 3]), weights=gg.tensor([0.5, 1.5, 2.0, -1.0]).bfloat16())
    assert out.dtype == gg.float64
    np.testing.assert_array_equal(out.numpy(), [0.5, 3.5, 0.0, -1.0])
