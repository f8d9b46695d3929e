"""Sorts, scans, counting and searching against PyTorch over random shapes of 0 to 3 dims, sizes 0
to 3, every dtype (tests/torch_fuzz.py): topk, stable sort/argsort, unique (with dim, inverse and
counts), unique_consecutive, cumulative ops, diff, searchsorted, bucketize, bincount, and the
reductions over dim lists, empty tuples, duplicate and out-of-range dims."""
import numpy as np
import pytest

from torch_fuzz import DTYPES, array, same

CALLS = {
    "topk(k, -1)": lambda lib, t, k: t.topk(k, -1) if t.ndim else t.topk(k),
    "topk(k, 0, largest=False)": lambda lib, t, k: t.topk(k, 0, largest=False),
    "sort(stable)": lambda lib, t, k: t.sort(stable=True),
    "sort(0, descending, stable)": lambda lib, t, k: t.sort(dim=0, descending=True, stable=True),
    "argsort(stable)": lambda lib, t, k: t.argsort(stable=True),
    "unique": lambda lib, t, k: lib.unique(t),
    "unique(inverse, counts)": lambda lib, t, k: lib.unique(t, return_inverse=True, return_counts=True),
    "unique(dim=0)": lambda lib, t, k: lib.unique(t, dim=0),
    "unique_consecutive(counts)": lambda lib, t, k: lib.unique_consecutive(t, return_counts=True),
    "cumsum(0)": lambda lib, t, k: t.cumsum(0), "cumprod(-1)": lambda lib, t, k: t.cumprod(-1),
    "cummax(0)": lambda lib, t, k: t.cummax(0), "logcumsumexp(0)": lambda lib, t, k: t.logcumsumexp(0),
    "diff": lambda lib, t, k: lib.diff(t),
    "searchsorted": lambda lib, t, k: lib.searchsorted(t.sort(-1).values if t.ndim else t, t),
    "bincount": lambda lib, t, k: lib.bincount(t.flatten()),
    "bucketize": lambda lib, t, k: lib.bucketize(t, lib.tensor([-1, 0, 2])),
    "count_nonzero(all dims)": lambda lib, t, k: lib.count_nonzero(t, dim=tuple(range(t.ndim))),
    "sum(list of dims)": lambda lib, t, k: t.sum(dim=list(range(t.ndim))),
    "sum((0, 0))": lambda lib, t, k: t.sum((0, 0)), "sum(ndim)": lambda lib, t, k: t.sum(t.ndim),
    "amax(())": lambda lib, t, k: t.amax(()), "sum(())": lambda lib, t, k: t.sum(()),
    "double().mean(())": lambda lib, t, k: t.double().mean(()), "double().std(())": lambda lib, t, k: t.double().std(()),
    "prod(0)": lambda lib, t, k: t.prod(0), "max(-1, keepdim)": lambda lib, t, k: t.max(-1, keepdim=True) if t.ndim else t.max(),
    "min(t, flip)": lambda lib, t, k: lib.min(t, t.flip(-1) if t.ndim else t), "mode(-1)": lambda lib, t, k: t.mode(-1),
    "var()": lambda lib, t, k: t.var(), "norm(p=3, dim=-1)": lambda lib, t, k: t.double().norm(p=3, dim=-1 if t.ndim else None),
    "norm(p=0)": lambda lib, t, k: t.double().norm(p=0), "norm(p=inf)": lambda lib, t, k: t.double().norm(p=float("inf")),
}


def _shape(rng):
    return tuple(int(rng.choice([0, 1, 1, 2, 3])) for _ in range(int(rng.integers(0, 4))))


@pytest.mark.filterwarnings("ignore:.*degrees of freedom")
@pytest.mark.parametrize("dtype", DTYPES)
def test_sorts_scans_and_counting_over_random_shapes_as_torch(dtype):
    rng = np.random.default_rng(100 + DTYPES.index(dtype))
    for _ in range(25):
        shape, k = _shape(rng), int(rng.integers(0, 3))
        x = array(rng, dtype, shape, low=-3, high=4)
        for where, fn in CALLS.items():
            same(fn, x, k, where=f"{where} of {dtype}{shape}, k={k}")


def test_kthvalue_of_distinct_values_as_torch():
    rng = np.random.default_rng(3)
    for dtype in ("float32", "float64", "int64", "int32"):
        x = rng.permutation(12).reshape(3, 4).astype(dtype) - 5
        for k in (1, 2, 3, 4, 5):
            for dim in (0, 1, -1):
                same(lambda lib, t: t.kthvalue(k, dim, keepdim=True), x, where=f"kthvalue({k}, {dim}) of {dtype}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_scans_with_dtype_and_renorm_as_torch(dtype):
    rng = np.random.default_rng(300 + DTYPES.index(dtype))
    for _ in range(12):
        nd = int(rng.integers(0, 4))
        shape = tuple(int(rng.integers(1, 4)) for _ in range(nd))
        x = array(rng, dtype, shape, low=-3, high=4)
        d = int(rng.integers(-max(nd, 1), max(nd, 1)))
        for out in (None, "float64", "int64", "float32", "int32", "bool", "uint8"):
            for name in ("cumsum", "cumprod"):
                same(lambda lib, t: getattr(t, name)(d, dtype=getattr(lib, out)) if out else getattr(t, name)(d), x,
                     where=f"{name}({d}, dtype={out}) of {dtype}{shape}")
        same(lambda lib, t: t.double().renorm(2, d, 1.0), x, where=f"renorm(2, {d}, 1.0) of {dtype}{shape}")


def test_trapezoid_edges_as_torch():
    for y in [np.array([1, 2, 3]), np.array([1, 2, 3], np.int32), np.zeros((3, 0), np.int32), np.zeros((3, 0), np.float32),
              np.array([True, False]), np.zeros((0, 3)), np.array(2.5)]:
        for where, fn in {"trapezoid": lambda lib, t: lib.trapezoid(t),
                          "cumulative_trapezoid": lambda lib, t: lib.cumulative_trapezoid(t),
                          "trapezoid(dx=2)": lambda lib, t: lib.trapezoid(t, dx=2),
                          "trapezoid(x=arange)": lambda lib, t: lib.trapezoid(t, x=lib.arange(t.shape[-1]) if t.ndim else t),
                          "trapezoid(dim=0)": lambda lib, t: lib.trapezoid(t, dim=0),
                          "cumulative_trapezoid(dim=0)": lambda lib, t: lib.cumulative_trapezoid(t, dim=0)}.items():
            same(fn, y, where=f"{where} of {y.dtype}{y.shape}")
