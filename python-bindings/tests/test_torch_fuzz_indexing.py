"""Indexing against PyTorch over random inputs (tests/torch_fuzz.py): basic, advanced and boolean
indices with None and Ellipsis, setitem with broadcasting, index_put_ with accumulate, gather,
scatter (and its reductions), index_select, masked_fill, take, take_along_dim and where, for every
dtype (bool accumulations are an or, as PyTorch's)."""
import numpy as np
import pytest

from torch_fuzz import DTYPES, array, same

INDICES = [
    (0,), (-1,), (slice(None), 1), (Ellipsis, 2), (None, 0), (0, None, Ellipsis, None), (slice(1, None, 2), Ellipsis, slice(0, 5, 2)),
    (np.array([0, 2]),), (np.array([0, 2]), np.array([1, 3])), (np.array([[0], [2]]), np.array([1, 3])),
    (slice(None), np.array([0, 0, 3])), (np.array([0, 2]), slice(None), np.array([1, 4])), (Ellipsis, np.array([1, -1])),
    (None, np.array([1, 2]), None), (np.array(1), 2), (np.array([True, False, True]),), (slice(None), np.array([True, False, True, False])),
    (np.array([], dtype=np.int64),), (np.array([0, 2]), 1, np.array([1, 4])), (1, slice(None), np.array([0, 1])),
    (np.array([[True, False, True, False]] * 3),), (3,), (np.array([3]),), (0, 0, 0, 0), ([0, 2],), ([0, 2], [1, 1]),
    ([[0, 1], [1, 2]],), (Ellipsis, None), (np.array(True),), (np.array(False),), (slice(10, 20),), (slice(-10, 2),),
]


def _key(lib, index):
    return tuple(lib.tensor(v) if isinstance(v, np.ndarray) else v for v in index)


@pytest.mark.parametrize("dtype", ["float64", "int64", "bool"])
def test_getitem_and_setitem_as_torch(dtype):
    rng = np.random.default_rng(DTYPES.index(dtype))
    x = array(rng, dtype, (3, 4, 5))
    for i, index in enumerate(INDICES):
        same(lambda lib, t: t[_key(lib, index)], x, where=f"x[{index}]")

        def put_number(lib, t):
            t = t.clone()
            t[_key(lib, index)] = 1
            return t

        def put_row(lib, t):  # a value broadcast along the indexed result's last dim
            t = t.clone()
            shape = t[_key(lib, index)].shape
            t[_key(lib, index)] = lib.arange(shape[-1] if len(shape) else 1).to(t.dtype)
            return t

        same(put_number, x, where=f"x[{index}] = 1")
        same(put_row, x, where=f"x[{index}] = arange row")


@pytest.mark.parametrize("dtype", DTYPES)
def test_indexed_reads_and_writes_as_torch(dtype):
    rng = np.random.default_rng(20 + DTYPES.index(dtype))
    x, src = array(rng, dtype, (3, 4), 0, 5), array(rng, dtype, (3, 4), 0, 5)
    idx, idx1 = rng.integers(0, 3, (2, 4)), rng.integers(0, 4, (3, 2))
    calls = {
        "gather(0)": lambda lib, t: t.gather(0, lib.tensor(idx)),
        "gather(-1)": lambda lib, t: lib.gather(t, -1, lib.tensor(idx1)),
        "gather out of range": lambda lib, t: t.gather(0, lib.tensor(idx + 5)),
        "scatter": lambda lib, t: t.scatter(0, lib.tensor(idx), lib.tensor(src)),
        "scatter value": lambda lib, t: t.scatter(1, lib.tensor(idx1), 3),
        "scatter_add": lambda lib, t: t.scatter_add(0, lib.tensor(idx), lib.tensor(src)),
        "scatter reduce=add": lambda lib, t: t.scatter(0, lib.tensor(idx), lib.tensor(src), reduce="add"),
        "scatter reduce=multiply": lambda lib, t: t.scatter(0, lib.tensor(idx), lib.tensor(src), reduce="multiply"),
        "index_select": lambda lib, t: t.index_select(1, lib.tensor([3, 0, 3])),
        "index_select 0-d index": lambda lib, t: t.index_select(0, lib.tensor(1)),
        "index_select out of range": lambda lib, t: t.index_select(0, lib.tensor([3])),
        "masked_fill": lambda lib, t: t.masked_fill(lib.tensor([True, False, True, False]), 1),
        "masked_fill 0-d tensor": lambda lib, t: t.masked_fill(lib.tensor([[True], [False], [True]]), lib.tensor(2)),
        "masked_fill int mask": lambda lib, t: t.masked_fill(lib.tensor([1, 0, 1, 0]), 2),
        "masked_select": lambda lib, t: t.masked_select(lib.tensor([True, False, True, False])),
        "take": lambda lib, t: t.take(lib.tensor([[0, 11], [-1, 5]])),
        "take out of range": lambda lib, t: t.take(lib.tensor([12])),
        "take_along_dim": lambda lib, t: lib.take_along_dim(t, lib.tensor(idx1), 1),
        "take_along_dim flat": lambda lib, t: lib.take_along_dim(t, lib.tensor([0, 5, 11])),
        "index_put_ accumulate": lambda lib, t: t.clone().index_put_((lib.tensor([0, 0, 2]),), lib.tensor(src[:3]),
                                                                    accumulate=True),
        "index_put_ accumulate 2 dims": lambda lib, t: t.clone().index_put_(
            (lib.tensor([0, 0, 2]), lib.tensor([1, 1, 3])), lib.tensor(src[0, :3]), accumulate=True),
        "index_put broadcast": lambda lib, t: t.index_put((lib.tensor([0, 2]),), lib.tensor(src[0, 0])),
        "index_add": lambda lib, t: t.index_add(0, lib.tensor([0, 0, 2]), lib.tensor(src)),
        "index_fill": lambda lib, t: t.index_fill(1, lib.tensor([0, 2]), 1),
        "index_copy": lambda lib, t: t.index_copy(0, lib.tensor([2, 0, 1]), lib.tensor(src)),
        "nonzero": lambda lib, t: t.nonzero(),
        "argwhere": lambda lib, t: lib.argwhere(t),
        "where(cond, t, 2.5)": lambda lib, t: lib.where(lib.tensor(src != 0), t, 2.5),
        "where(cond, 1, 0)": lambda lib, t: lib.where(lib.tensor(src != 0), 1, 0),
        "where(cond, 1.0, 0)": lambda lib, t: lib.where(lib.tensor(src != 0), 1.0, 0),
        "where(cond, t, 0-d float64)": lambda lib, t: lib.where(lib.tensor(src != 0), t, lib.tensor(1.5, dtype=lib.float64)),
        "where(int64 condition) raises": lambda lib, t: lib.where(lib.tensor(x.astype(np.int64)), t, t),
    }
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            calls[f"scatter_reduce {reduce} {include_self}"] = (
                lambda lib, t, r=reduce, s=include_self: t.scatter_reduce(0, lib.tensor(idx), lib.tensor(src), r,
                                                                         include_self=s))
    for where, fn in calls.items():
        same(fn, x, where=f"{where} of {dtype}")


@pytest.mark.parametrize("dtype", ["float64", "int64", "bool"])
def test_setitem_values_and_index_put_dtypes_as_torch(dtype):
    rng = np.random.default_rng(40 + DTYPES.index(dtype))
    x, mask = array(rng, dtype, (3, 4, 5)), array(rng, "bool", (3, 4, 5))

    def put(key, value):
        def fn(lib, t):
            t = t.clone()
            t[key(lib)] = value(lib)
            return t
        return fn
    calls = {
        "t[0] = ones(1, 5)": put(lambda lib: 0, lambda lib: lib.ones(1, 5)),
        "t[0] = ones(1, 1, 5)": put(lambda lib: 0, lambda lib: lib.ones(1, 1, 5)),
        "t[0] = ones(2, 5)": put(lambda lib: 0, lambda lib: lib.ones(2, 5)),
        "t[:, 0] = full(2.7)": put(lambda lib: (slice(None), 0), lambda lib: lib.full((5,), 2.7)),
        "t[mask] = arange": put(lambda lib: lib.tensor(mask), lambda lib: lib.arange(int(mask.sum())).to(lib.tensor(x).dtype)),
        "t[mask] = arange(3)": put(lambda lib: lib.tensor(mask), lambda lib: lib.arange(3.0)),
        "t[mask[:, :, 0]] = zeros(5)": put(lambda lib: lib.tensor(mask[:, :, 0]), lambda lib: lib.zeros(5).to(lib.tensor(x).dtype)),
        "t[[0, 2], :, [1, 3]] = zeros(4)": put(lambda lib: (lib.tensor([0, 2]), slice(None), lib.tensor([1, 3])),
                                              lambda lib: lib.zeros(4).to(lib.tensor(x).dtype)),
        "t[[0, 2]] = 0-d float64": put(lambda lib: lib.tensor([0, 2]), lambda lib: lib.tensor(1.5, dtype=lib.float64)),
        "t[..., None, 0] = 9": put(lambda lib: (Ellipsis, None, 0), lambda lib: 9),
        "t[None] = zeros(1, 3, 4, 5)": put(lambda lib: None, lambda lib: lib.zeros(1, 3, 4, 5).to(lib.tensor(x).dtype)),
        "index_put_ 0-d float64": lambda lib, t: t.clone().index_put_((lib.tensor([0]),), lib.tensor(5.5, dtype=lib.float64)),
        "index_put_ bool mask": lambda lib, t: t.clone().index_put_((lib.tensor(mask[:, :, 0]),), lib.tensor(0).to(t.dtype)),
        "+t": lambda lib, t: +t,
    }
    for where, fn in calls.items():
        same(fn, x, where=f"{where} of {dtype}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_indexed_ops_over_random_shapes_dims_and_indices_as_torch(dtype):
    # random shapes of 1-3 dims, a random (negative too) dim, index tensors of random extents with
    # negative entries, empty index lists, and sources one larger than the index where allowed
    rng = np.random.default_rng(500 + DTYPES.index(dtype))
    for trial in range(30):
        nd = int(rng.integers(1, 4))
        shape = tuple(int(rng.integers(1, 4)) for _ in range(nd))
        x = array(rng, dtype, shape, 0, 5)
        d = int(rng.integers(-nd, nd))
        n = shape[d % nd]
        ishape = tuple(int(rng.integers(1, 4)) if a == d % nd else int(rng.integers(1, s + 1)) for a, s in enumerate(shape))
        idx = rng.integers(-n if trial % 3 == 0 else 0, n, ishape)
        src = array(rng, dtype, tuple(s + int(rng.integers(0, 2)) for s in ishape), 0, 5)
        idx1 = rng.integers(0, n, (int(rng.integers(0, 4)),))
        src1 = array(rng, dtype, tuple(len(idx1) if a == d % nd else s for a, s in enumerate(shape)), 0, 5)
        calls = {
            "gather": lambda lib, t: t.gather(d, lib.tensor(idx)),
            "scatter": lambda lib, t: t.scatter(d, lib.tensor(idx), lib.tensor(src)),
            "scatter_add": lambda lib, t: t.scatter_add(d, lib.tensor(idx), lib.tensor(src)),
            "scatter value": lambda lib, t: t.scatter(d, lib.tensor(idx), 1),
            "take_along_dim": lambda lib, t: lib.take_along_dim(t, lib.tensor(np.abs(idx) % n), d),
            "index_select": lambda lib, t: t.index_select(d, lib.tensor(idx1)),
            "index_add": lambda lib, t: t.index_add(d, lib.tensor(idx1), lib.tensor(src1)),
            "index_fill": lambda lib, t: t.index_fill(d, lib.tensor(idx1), 1),
            "put": lambda lib, t: t.put(lib.tensor(idx1), lib.tensor(src1).flatten()[:len(idx1)]),
            "put accumulate": lambda lib, t: t.put(lib.tensor(idx1), lib.tensor(src1).flatten()[:len(idx1)], accumulate=True),
            "take": lambda lib, t: t.take(lib.tensor(idx1)),
            "masked_scatter": lambda lib, t: t.masked_scatter(t != 0, t.flatten().flip(0)),
        }
        if dtype != "bool":  # PyTorch's 1-d index_reduce has no bool kernel, its n-d one has
            calls["index_reduce amax"] = lambda lib, t: t.index_reduce(d, lib.tensor(idx1), lib.tensor(src1), "amax")
        for where, fn in calls.items():
            same(fn, x, where=f"{where} of {dtype}{shape}, dim {d}, index {ishape}")
