"""Reductions against PyTorch over random inputs: every dtype, 0-d and empty shapes, dim None, an
int, a negative int or a tuple, keepdim, dtype=, correction=, NaN, ties (tests/torch_fuzz.py)."""
import numpy as np
import pytest

from torch_fuzz import DTYPES, array, same

SHAPES = [(), (0,), (2, 0), (0, 3), (3, 4), (2, 3, 4)]
REDUCTIONS = ["sum", "mean", "prod", "amax", "amin", "argmax", "argmin", "std", "var", "nansum", "nanmean",
              "logsumexp", "all", "any", "count_nonzero", "median", "nanmedian", "max", "min", "std_mean",
              "var_mean", "aminmax"]


def _call(lib, x, name, dim, keepdim):
    fn = getattr(lib, name)
    if name == "aminmax":
        return fn(x, dim=dim, keepdim=keepdim)
    if dim is None:
        return fn(x)
    if name == "count_nonzero":
        return fn(x, dim)
    return fn(x, dim, keepdim=keepdim)


@pytest.mark.filterwarnings("ignore:.*degrees of freedom")
@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_reductions_over_dims_as_torch(name, dtype):
    rng = np.random.default_rng(REDUCTIONS.index(name) * 7 + DTYPES.index(dtype))
    for shape in SHAPES:
        x = array(rng, dtype, shape, low=-2, high=3)  # few values: ties
        dims = [None, 0, -1] + ([(0, -1)] if len(shape) > 1 else [])
        if name in ("argmax", "argmin", "median", "nanmedian", "max", "min", "aminmax"):
            dims = [d for d in dims if not isinstance(d, tuple)]
        for dim in dims:
            for keepdim in (False, True):
                if dim is None and keepdim and name not in ("argmax", "argmin", "aminmax"):
                    continue  # PyTorch has no keepdim without a dim for these
                if name == "count_nonzero" and keepdim:
                    continue
                if dtype == "bool" and "median" in name and dim is None and x.size == 0:
                    continue  # PyTorch refuses bool medians but gives an unset value for this one
                same(_call, x, name, dim, keepdim, where=f"{name}({dtype}{shape}, dim={dim}, keepdim={keepdim})")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nan_propagates_as_torch(dtype):
    rng = np.random.default_rng(5)
    x = array(rng, dtype, (3, 5))
    x[0, 1] = x[2, 0] = x[2, 3] = np.nan
    for name in ["max", "min", "amax", "amin", "sum", "mean", "nanmean", "nansum", "median", "nanmedian",
                 "logsumexp", "std", "argmax", "argmin"]:
        for dim in (None, 1, 0):
            if dim is None and name == "logsumexp":
                continue
            same(_call, x, name, dim, False, where=f"{name}(NaN rows, dim={dim})")
    same(lambda lib, t: lib.maximum(t, t.flip(0)), x, where="maximum with NaN")
    same(lambda lib, t: lib.fmax(t, t.flip(0)), x, where="fmax with NaN")
    same(lambda lib, t: t.median(), x, where="median with a NaN is NaN")


@pytest.mark.parametrize("dtype", DTYPES)
def test_dtype_and_correction_arguments_as_torch(dtype):
    rng = np.random.default_rng(11 + DTYPES.index(dtype))
    x = array(rng, dtype, (3, 4), low=0, high=4)
    calls = {
        "sum(dtype=float64)": lambda lib, t: t.sum(dtype=lib.float64),
        "sum(1, dtype=int32)": lambda lib, t: t.sum(1, dtype=lib.int32),
        "prod(dtype=float32)": lambda lib, t: t.prod(dtype=lib.float32),
        "prod(1)": lambda lib, t: t.prod(1, keepdim=True),
        "mean(dtype=float64)": lambda lib, t: t.mean(dtype=lib.float64),
        "cumsum(0)": lambda lib, t: t.cumsum(0),
        "cumsum(1, dtype=float32)": lambda lib, t: t.cumsum(1, dtype=lib.float32),
        "cumprod(-1)": lambda lib, t: t.cumprod(-1),
        "std(correction=0)": lambda lib, t: t.std(correction=0),
        "std(1, correction=2)": lambda lib, t: t.std(1, correction=2),
        "var((0, 1))": lambda lib, t: t.var((0, 1)),
        "var(1, unbiased=False, keepdim=True)": lambda lib, t: t.var(1, unbiased=False, keepdim=True),
        "std_mean(0, correction=0)": lambda lib, t: lib.std_mean(t, 0, correction=0),
        "norm()": lambda lib, t: t.norm(),
        "norm(1, 1)": lambda lib, t: t.norm(1, 1),
        "logsumexp(1)": lambda lib, t: t.logsumexp(1),
        "cummax(1)": lambda lib, t: t.cummax(1),
        "cummin(0)": lambda lib, t: t.cummin(0),
        "topk bool refused": lambda lib, t: t.topk(1, 1) if t.dtype == lib.bool else t.sum(),
        "kthvalue bool refused": lambda lib, t: t.kthvalue(1, 1) if t.dtype == lib.bool else t.sum(),
    }
    for where, fn in calls.items():
        if "std" in where and dtype not in ("float32", "float64"):
            continue
        same(fn, x, where=f"{where} of {dtype}")


def test_argmax_ties_pick_the_first_and_sorts_are_stable():
    x = np.array([[1.0, 3, 3, 2], [5, 5, 5, 5], [0, -1, -1, 0]])
    for dtype in ("float64", "float32", "int64", "int32", "uint8"):
        t = np.abs(x).astype(dtype) if dtype == "uint8" else x.astype(dtype)
        for fn in [lambda lib, a: a.argmax(), lambda lib, a: a.argmax(1), lambda lib, a: a.argmin(0),
                   lambda lib, a: a.max(1), lambda lib, a: a.min(1, keepdim=True),
                   lambda lib, a: a.sort(dim=1, stable=True), lambda lib, a: a.sort(dim=0, descending=True, stable=True),
                   lambda lib, a: a.argsort(dim=1, stable=True), lambda lib, a: a.topk(2, 1, largest=False).values,
                   lambda lib, a: a.topk(3).values, lambda lib, a: a.median(1)]:
            same(fn, t, where=f"ties of {dtype}")


def test_scalar_inputs_take_dim_zero_and_minus_one():
    for name in ["argmax", "argmin", "median", "nanmedian", "max", "min", "amax", "sum", "mean", "logsumexp",
                 "cumsum", "std"]:
        for dim in (0, -1, 1):
            same(lambda lib, t: getattr(t, name)(dim), np.array(2.5), where=f"{name}(0-d, {dim})")


@pytest.mark.filterwarnings("ignore:.*degrees of freedom")
@pytest.mark.parametrize("dtype", DTYPES)
def test_reductions_with_random_dims_dtype_and_views_as_torch(dtype):
    # random shapes (0-3 dims of sizes 0-3), dim None / an int / a tuple / a list (negative too),
    # keepdim, dtype= (bool and integer ones included), on contiguous, transposed or flipped input
    rng = np.random.default_rng(200 + DTYPES.index(dtype))
    names = ["sum", "prod", "mean", "nansum", "nanmean", "amax", "amin", "std", "var", "logsumexp",
             "count_nonzero", "all", "any"]
    for _ in range(40):
        nd = int(rng.integers(0, 4))
        shape = tuple(int(rng.integers(0, 4)) for _ in range(nd))
        x = array(rng, dtype, shape, low=-3, high=4)
        kind = int(rng.integers(0, 4)) if nd else 0
        picked = [int(d) for d in rng.choice(np.arange(-nd, nd), size=int(rng.integers(1, nd + 1)), replace=False)] if nd else []
        dim = [None, picked[0] if picked else None, tuple(picked), sorted({d % nd for d in picked}) if nd else None][kind]
        keepdim = bool(rng.integers(0, 2))
        out_dtype = [None, "float64", "int64", "float32", "int32", "bool"][int(rng.integers(0, 6))]
        view = int(rng.integers(0, 3))

        def call(lib, t, name):
            if view == 1 and t.ndim >= 2:
                t = t.transpose(0, -1)
            elif view == 2 and t.ndim:
                t = t.flip(0)
            fn = getattr(lib, name)
            kwargs = {"dtype": getattr(lib, out_dtype)} if out_dtype and name in ("sum", "prod", "mean", "nansum", "nanmean") else {}
            if name == "prod" and isinstance(dim, (tuple, list)):
                return fn(t, **kwargs)
            if name == "count_nonzero":
                return fn(t, dim=dim)
            if name in ("all", "any") and isinstance(dim, list):
                return fn(t, tuple(dim), keepdim=keepdim)
            if name == "logsumexp" and dim is None:
                return fn(t, tuple(range(t.ndim)), keepdim=keepdim)
            return fn(t, **kwargs) if dim is None else fn(t, dim, keepdim=keepdim, **kwargs)
        for name in names:
            same(lambda lib, t: call(lib, t, name), x,
                 where=f"{name}({dtype}{shape}, dim={dim}, keepdim={keepdim}, dtype={out_dtype}, view={view})")
