"""The differential fuzz check of the tests/test_torch_fuzz_*.py files: one call made on glassgrad.torch
and on torch (CPU) with the same inputs (NumPy arrays become each library's tensors, lists and tuples
are converted inside), the results compared in dtype, shape and value (NaN equal to NaN), and an
error on one side only a failure. Inputs come from a seeded NumPy generator, so each case is the
same on every run."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import glassgrad.torch as gt  # noqa: E402  (after the importorskip, as every torch file)

DTYPES = ["float32", "float64", "int64", "int32", "uint8", "bool"]
MODULES = (torch, gt)


def array(rng, dtype: str, shape, low=-4, high=5) -> np.ndarray:
    """Random elements of dtype: normal floats, integers in [low, high) (uint8 from 0), bools."""
    if dtype == "bool":
        return np.asarray(rng.random(shape) > 0.5)
    if dtype.startswith("float"):
        return np.asarray(rng.standard_normal(shape).astype(dtype))
    return np.asarray(rng.integers(max(low, 0) if dtype == "uint8" else low, high, shape).astype(dtype))


def _convert(value, lib):
    if isinstance(value, np.ndarray):
        return lib.tensor(value.copy())
    if isinstance(value, list):
        return [_convert(v, lib) for v in value]
    if isinstance(value, tuple):
        return tuple(_convert(v, lib) for v in value)
    return value


def _plain(result):
    """A result as nested lists of (dtype name, shape, array) and plain Python values."""
    if isinstance(result, (torch.Tensor, gt.Tensor)):
        array_ = result.detach().numpy() if isinstance(result, torch.Tensor) else result.detach().numpy()
        return ("tensor", str(result.dtype).split(".")[-1], tuple(result.shape), array_)
    if isinstance(result, (tuple, list)):
        return [_plain(r) for r in result]
    return result


def _assert_same(want, got, where, tol=None):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{where}: {got!r} vs torch {want!r}"
        for i, (w, g) in enumerate(zip(want, got)):
            _assert_same(w, g, f"{where}[{i}]", tol)
        return
    if isinstance(want, tuple) and want[0] == "tensor":
        assert isinstance(got, tuple) and got[0] == "tensor", f"{where}: {got!r} is no tensor"
        assert got[1] == want[1], f"{where}: dtype {got[1]}, torch {want[1]}"
        assert got[2] == want[2], f"{where}: shape {got[2]}, torch {want[2]}"
        if want[3].dtype.kind == "f":
            tol = tol or (1e-6 if want[1] == "float32" else 1e-12)
            np.testing.assert_allclose(got[3], want[3], rtol=tol, atol=tol, equal_nan=True, err_msg=where)
        else:
            np.testing.assert_array_equal(got[3], want[3], err_msg=where)
        return
    if isinstance(want, float) and np.isnan(want):
        assert isinstance(got, float) and np.isnan(got), f"{where}: {got!r}, torch nan"
        return
    assert got == want, f"{where}: {got!r}, torch {want!r}"


def same(fn, *args, where: str = "", tol=None):
    """fn(lib, *args) for lib torch and glassgrad.torch: equal results, or both raising. tol: the
    relative and absolute tolerance of floating results where PyTorch's own is known to be wider
    (default 1e-6 for float32, 1e-12 otherwise)."""
    outcomes = []
    for lib in MODULES:
        try:
            outcomes.append(("ok", _plain(fn(lib, *_convert(args, lib)))))
        except Exception as e:  # any error counts: both must raise
            outcomes.append(("error", f"{type(e).__name__}: {e}"))
    (tk, want), (gk, got) = outcomes
    assert tk == gk, f"{where}: torch {tk} ({want if tk == 'error' else 'a result'}), glassgrad {gk} " \
                     f"({got if gk == 'error' else 'a result'})"
    if tk == "ok":
        _assert_same(want, got, where, tol)
