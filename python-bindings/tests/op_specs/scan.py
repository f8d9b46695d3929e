"""Scans, sorts and reversals along one axis: CumSum (both directions), CumProd and its backward
(zeros among the factors included), Sort (stable, NaN largest), TopK and Flip."""
import numpy as np

from glassgrad.testing import OpSpec


def _x(rng, dt, n):
    if dt == "int64":
        return [rng.integers(-5, 6, (n, 5, 2)).astype(dt)]
    return [rng.standard_normal((n, 5, 2)).astype(dt)]


def _with_zeros(rng, dt, n):
    x = rng.uniform(0.5, 1.5, (n, 6)) * rng.choice([-1, 1], (n, 6))
    x[:, 2] = 0.0           # one zero in every row
    if n > 1:
        x[1, 4] = 0.0        # and two in one
    return [x.astype(dt)]


def _cumprod_backward_ref(g, x, y, dim):
    """dx_i = sum_{j >= i} g_j prod_{k <= j, k != i} x_k, summed out term by term."""
    xm, gm = np.moveaxis(x.astype(np.float64), dim, -1), np.moveaxis(g.astype(np.float64), dim, -1)
    n = xm.shape[-1]
    dx = np.zeros_like(xm)
    for i in range(n):
        for j in range(i, n):
            others = np.prod(np.delete(xm[..., :j + 1], i, axis=-1), axis=-1)
            dx[..., i] += gm[..., j] * others
    return np.moveaxis(dx, -1, dim).astype(g.dtype)


def _sort_ref(x, dim, descending):
    key = -x if descending else x
    if x.dtype.kind == "f":  # NaN largest: last ascending, first descending
        key = np.where(np.isnan(x), -np.inf if descending else np.inf, key)
    idx = np.argsort(key, axis=dim, kind="stable")
    return np.take_along_axis(x, idx, dim), idx.astype(np.int64)


def _with_ties_and_nans(rng, dt, n):
    x = rng.integers(-3, 4, (n, 9)).astype(dt)
    if dt != "int64" and n > 0:
        x[0, 3] = np.nan
    return [x]


SPECS = [
    OpSpec("Flip", lambda x, dim: np.flip(x, dim), _x, attrs={"dim": 1}, grad=(0,),
           dtypes=("float32", "float64", "int64")),
    OpSpec("Flip", lambda x, dim: np.flip(x, dim), lambda rng, dt, n: [rng.random((n, 3)) > 0.5],
           attrs={"dim": 0}, dtypes=("bool",), name="Flip-bool"),
    OpSpec("CumSum", lambda x, dim: np.cumsum(x, dim).astype(x.dtype), _x, attrs={"dim": 1}, grad=(0,),
           dtypes=("float32", "float64", "int64")),
    OpSpec("CumSum", lambda x, dim, reverse: np.flip(np.cumsum(np.flip(x, dim), dim), dim).astype(x.dtype), _x,
           attrs={"dim": -1, "reverse": True}, grad=(0,), dtypes=("float32", "float64", "int64"),
           name="CumSum-reverse"),
    OpSpec("CumProd", lambda x, dim: np.cumprod(x, dim).astype(x.dtype), _x, attrs={"dim": 0}, grad=(0,)),
    # small factors, so that 33 of them stay inside int64
    OpSpec("CumProd", lambda x, dim: np.cumprod(x, dim), lambda rng, dt, n: [rng.integers(-1, 3, (n, 5)).astype(dt)],
           attrs={"dim": 0}, dtypes=("int64",), name="CumProd-int64"),
    OpSpec("CumProd", lambda x, dim: np.cumprod(x, dim).astype(x.dtype), _with_zeros, attrs={"dim": 1}, grad=(0,),
           name="CumProd-zeros"),
    OpSpec("CumProdBackward", lambda g, x, y, dim: _cumprod_backward_ref(g, x, y, dim),
           lambda rng, dt, n: [rng.standard_normal((n, 6)).astype(dt)] + [(x := _with_zeros(rng, dt, n)[0]),
                                                                          np.cumprod(x, 1).astype(dt)],
           attrs={"dim": 1}),
    OpSpec("Sort", lambda x, dim, descending: _sort_ref(x, dim, descending), _x, attrs={"dim": 1, "descending": False},
           dtypes=("float32", "float64", "int64")),
    OpSpec("Sort", lambda x, dim, descending: _sort_ref(x, dim, descending), _with_ties_and_nans,
           attrs={"dim": -1, "descending": True}, dtypes=("float32", "float64", "int64"), name="Sort-ties-nan-desc"),
    OpSpec("Sort", lambda x, dim, descending: _sort_ref(x, dim, descending), _with_ties_and_nans,
           attrs={"dim": 1, "descending": False}, dtypes=("float32", "float64", "int64"), name="Sort-ties-nan"),
    OpSpec("TopK", lambda x, dim, k, largest: tuple(a[:, :k] for a in _sort_ref(x, dim, largest)),
           _with_ties_and_nans, attrs={"dim": 1, "k": 4, "largest": True}, dtypes=("float32", "float64", "int64")),
    OpSpec("TopK", lambda x, dim, k, largest: tuple(np.take(a, range(k), axis=dim) for a in _sort_ref(x, dim, largest)),
           _x, attrs={"dim": 1, "k": 2, "largest": False}, dtypes=("float32", "float64", "int64"),
           name="TopK-smallest"),
]
