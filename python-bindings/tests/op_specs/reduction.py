"""Reductions: Sum, Mean, Max, ArgMax, Var over chosen axes."""
import numpy as np

from glassgrad.testing import OpSpec


def _r(rng, dt, *shape):
    return rng.standard_normal(shape).astype(dt)


def _axes(dims):
    return None if not dims else tuple(dims)


def _sum(x, dims=(), keepdim=False):
    return np.sum(x, axis=_axes(dims), keepdims=keepdim, dtype=np.float64 if x.dtype.kind == "f" else None).astype(x.dtype)


def _mean(x, dims=(), keepdim=False):
    return np.mean(x.astype(np.float64), axis=_axes(dims), keepdims=keepdim).astype(x.dtype)


def _max(x, dims=(), keepdim=False):
    return np.max(x, axis=_axes(dims), keepdims=keepdim)


def _var(x, dims=(), keepdim=False, correction=1):
    return np.var(x.astype(np.float64), axis=_axes(dims), keepdims=keepdim, ddof=correction).astype(x.dtype)


def _argmax(x, dim, keepdim=False):
    out = np.argmax(x, axis=dim).astype(np.int64)
    return np.expand_dims(out, dim) if keepdim else out


def _x(rng, dt, n):
    return [_r(rng, dt, 2, n, 3, 4)]


SPECS = [
    OpSpec("Sum", _sum, _x, attrs={"dims": [1, 3], "keepdim": False}, grad=(0,)),
    OpSpec("Sum", _sum, _x, attrs={"dims": [0, 2, 3], "keepdim": True}, grad=(0,), name="Sum-bias-grad-axes"),
    OpSpec("Sum", _sum, _x, attrs={}, grad=(0,), name="Sum-all"),
    OpSpec("Sum", _sum, lambda rng, dt, n: [rng.integers(-9, 9, (n, 4)).astype(dt)], attrs={"dims": [0]},
           dtypes=("int64",), name="Sum-int64"),
    OpSpec("Mean", _mean, _x, attrs={"dims": [-1], "keepdim": True}, grad=(0,)),
    OpSpec("Mean", _mean, _x, attrs={}, grad=(0,), name="Mean-all"),
    OpSpec("Max", _max, _x, attrs={"dims": [1], "keepdim": False}, grad=(0,)),
    OpSpec("Max", _max, _x, attrs={}, grad=(0,), name="Max-all"),
    OpSpec("Var", _var, _x, attrs={"dims": [0, 2, 3], "keepdim": False, "correction": 1}, grad=(0,)),
    OpSpec("Var", _var, _x, attrs={"dims": [1], "keepdim": True, "correction": 0}, grad=(0,), name="Var-biased"),
    OpSpec("ArgMax", _argmax, _x, attrs={"dim": 1}),
    OpSpec("ArgMax", _argmax, _x, attrs={"dim": -1, "keepdim": True}, name="ArgMax-last-keepdim"),
    OpSpec("ArgMax", _argmax, lambda rng, dt, n: [rng.integers(0, 3, (n, 5)).astype(dt)], attrs={"dim": 1},
           dtypes=("int64",), name="ArgMax-int64-ties"),
]
