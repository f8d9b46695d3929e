"""Indexing ops: Gather, Scatter, IndexSelect, IndexAdd, Index, IndexPut, SliceScatter.

The references spell out each formula of src/ops/indexing.cpp with NumPy loops over the index.
Accumulating entries draw indices with repeats (they must add up); plain writes draw distinct
indices, since which of several values lands is unspecified (as in PyTorch) and a finite
difference through the value that lost would differ from the gradient rule."""
import itertools

import numpy as np

from glassgrad.testing import OpSpec

_DTYPES_ALL = ("float32", "float64", "int64", "uint8", "bool")
_NUMERIC = ("float32", "float64", "int64", "uint8")


def _data(rng, dt, *shape):
    if dt == "bool":
        return rng.random(shape) < 0.5
    if dt in ("int64", "uint8"):
        return rng.integers(0, 20, shape).astype(dt)
    return rng.standard_normal(shape).astype(dt)


def _positions(shape):
    return itertools.product(*[range(s) for s in shape])


def _with(p, dim, i):
    q = list(p)
    q[dim] = i
    return tuple(q)


def gather_ref(x, index, dim):
    out = np.empty(index.shape, x.dtype)
    for p in _positions(index.shape):
        out[p] = x[_with(p, dim, index[p])]
    return out


def scatter_ref(x, index, src, dim, reduce="none"):
    out = x.copy()
    for p in _positions(index.shape):
        q = _with(p, dim, index[p])
        if reduce == "add":
            out[q] = out[q] + src[p]
        elif reduce == "multiply":
            out[q] = out[q] * src[p]
        else:
            out[q] = src[p]
    return out


def index_select_ref(x, index, dim):
    return np.take(x, index.reshape(-1), axis=dim)


def index_add_ref(x, index, src, dim):
    out = x.copy()
    for j, i in enumerate(index.reshape(-1)):
        sl = [slice(None)] * x.ndim
        sj = list(sl)
        sl[dim], sj[dim] = i, j
        out[tuple(sl)] = out[tuple(sl)] + src[tuple(sj)]
    return out


def _advanced(x, dims, idx):
    key = [slice(None)] * x.ndim
    for d, i in zip(dims, idx):
        key[d] = i
    return tuple(key)


def index_ref(x, *idx, dims):
    return x[_advanced(x, dims, idx)]


def index_put_ref(x, values, *idx, dims, accumulate=False):
    out = x.copy()
    key = _advanced(x, dims, idx)
    if accumulate:
        np.add.at(out, key, np.broadcast_to(values, out[key].shape))
    else:
        out[key] = values
    return out


def slice_scatter_ref(x, src, dim, start, stop, step):
    out = x.copy()
    key = [slice(None)] * x.ndim
    key[dim] = slice(start, stop, step)
    out[tuple(key)] = src
    return out


def _repeats(rng, size, shape):
    return rng.integers(0, size, shape).astype(np.int64)


def _distinct(rng, size, count):
    return rng.permutation(size)[:count].astype(np.int64)


def _distinct_along(rng, size, shape, dim):
    """An index of `shape` whose values along `dim` are distinct in every line (a scatter target
    written once)."""
    moved = list(shape)
    moved.append(moved.pop(dim))
    lines = int(np.prod(moved[:-1]))
    out = np.stack([_distinct(rng, size, moved[-1]) for _ in range(lines)]).reshape(moved)
    return np.moveaxis(out, -1, dim)


SPECS = [
    # Gather: the index smaller than x along the other axis, with repeats.
    OpSpec("Gather", gather_ref,
           lambda rng, dt, n: [_data(rng, dt, n, 5), _repeats(rng, 5, (n, 7))],
           attrs={"dim": 1}, dtypes=_DTYPES_ALL, grad=(0,)),
    OpSpec("Gather", gather_ref,
           lambda rng, dt, n: [_data(rng, dt, n + 2, 4, 3), _repeats(rng, n + 2, (2, 3, 3))],
           attrs={"dim": 0}, dtypes=("float32", "float64"), grad=(0,), name="Gather-dim0-3d"),
    OpSpec("Scatter", lambda x, i, s, dim, reduce: scatter_ref(x, i, s, dim, reduce),
           lambda rng, dt, n: [_data(rng, dt, n, 6), _repeats(rng, 6, (n, 9)), _data(rng, dt, n, 9)],
           attrs={"dim": 1, "reduce": "add"}, dtypes=_NUMERIC, grad=(0, 2), name="Scatter-add"),
    OpSpec("Scatter", lambda x, i, s, dim, reduce: scatter_ref(x, i, s, dim, reduce),
           lambda rng, dt, n: [_data(rng, dt, 7, n), _distinct_along(rng, 7, (4, n), 0), _data(rng, dt, 4, n)],
           attrs={"dim": 0, "reduce": "none"}, dtypes=_DTYPES_ALL, grad=(0, 2), name="Scatter-none"),
    OpSpec("Scatter", lambda x, i, s, dim, reduce: scatter_ref(x, i, s, dim, reduce),
           lambda rng, dt, n: [_data(rng, dt, n, 4), _repeats(rng, 4, (n, 3)), _data(rng, dt, n, 5)],
           attrs={"dim": 1, "reduce": "multiply"}, dtypes=("float32", "float64", "int64"), name="Scatter-multiply"),
    OpSpec("IndexSelect", index_select_ref,
           lambda rng, dt, n: [_data(rng, dt, 3, n, 2), _repeats(rng, n, (2 * n + 1,))],
           attrs={"dim": 1}, dtypes=_DTYPES_ALL, grad=(0,)),
    OpSpec("IndexAdd", index_add_ref,
           lambda rng, dt, n: [_data(rng, dt, n, 4), _repeats(rng, n, (n + 3,)), _data(rng, dt, n + 3, 4)],
           attrs={"dim": 0}, dtypes=_NUMERIC, grad=(0, 2)),
    # Index: adjacent axes (the broadcast axes stay in place), then separated ones (they go
    # first), with negative indices and broadcasting index shapes.
    OpSpec("Index", lambda x, a, b, dims: index_ref(x, a, b, dims=dims),
           lambda rng, dt, n: [_data(rng, dt, 2, n, 5, 3), rng.integers(-n, n, (4, 1)),
                               rng.integers(-5, 5, (1, 6))],
           attrs={"dims": [1, 2]}, dtypes=_DTYPES_ALL, grad=(0,), name="Index-adjacent"),
    OpSpec("Index", lambda x, a, b, dims: index_ref(x, a, b, dims=dims),
           lambda rng, dt, n: [_data(rng, dt, n, 3, 4), rng.integers(0, n, (5,)), rng.integers(-4, 4, (5,))],
           attrs={"dims": [0, 2]}, dtypes=("float32", "float64"), grad=(0,), name="Index-separated"),
    OpSpec("IndexPut", lambda x, v, a, dims, accumulate: index_put_ref(x, v, a, dims=dims, accumulate=accumulate),
           lambda rng, dt, n: [_data(rng, dt, n, 3), _data(rng, dt, 2 * n, 1), _repeats(rng, n, (2 * n,))],
           attrs={"dims": [0], "accumulate": True}, dtypes=_NUMERIC, grad=(0, 1), name="IndexPut-accumulate"),
    OpSpec("IndexPut", lambda x, v, a, b, dims, accumulate: index_put_ref(x, v, a, b, dims=dims, accumulate=accumulate),
           lambda rng, dt, n: [_data(rng, dt, 4, n + 3, 3), _data(rng, dt, 3),
                               np.array([0, 1, 3], np.int64), _distinct(rng, n + 3, 3) - (n + 3)],
           attrs={"dims": [0, 1], "accumulate": False}, dtypes=_DTYPES_ALL, grad=(0, 1), name="IndexPut-set"),
    OpSpec("SliceScatter", slice_scatter_ref,
           lambda rng, dt, n: [_data(rng, dt, 3, n + 4), _data(rng, dt, 3, len(range(1, n + 3, 2)))],
           attrs=lambda n: {"dim": 1, "start": 1, "stop": n + 3, "step": 2}, dtypes=_DTYPES_ALL, grad=(0, 1)),
]
