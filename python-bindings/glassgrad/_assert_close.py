"""torch.testing.assert_close and the deprecated assert_allclose (docs/porting.md, "Testing").

Closeness is PyTorch's: |actual - expected| <= atol + rtol * |expected| elementwise, with the
default tolerances per dtype below (the looser of the two dtypes' when check_dtype=False);
integers and booleans must be equal. Inputs are glassgrad tensors, NumPy arrays, Python
scalars, or sequences / mappings of them, compared element by element.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Optional, Tuple

import numpy as np

from ._dtypes import plain

# (rtol, atol) PyTorch uses when neither is given.
_DEFAULT_TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
                       "float64": (1e-7, 1e-7), "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}


def _as_array(x: Any) -> Tuple[np.ndarray, str, str]:
    """(values as NumPy, dtype name, device) of one tensor-like."""
    from ._tensor import Tensor
    if isinstance(x, Tensor):
        dtype = plain(x.dtype)
        t = x.detach().cpu()
        values = (t.float() if dtype in ("float16", "bfloat16") else t).numpy(force=True)
        return np.asarray(values), dtype, str(x.device)
    if isinstance(x, bool):
        return np.asarray(x), "bool", "cpu"
    if isinstance(x, int):
        return np.asarray(x, dtype=np.int64), "int64", "cpu"
    if isinstance(x, float):
        return np.asarray(x, dtype=np.float64), "float64", "cpu"
    if isinstance(x, complex):
        return np.asarray(x, dtype=np.complex128), "complex128", "cpu"
    a = np.asarray(x)
    return a, plain(a.dtype), "cpu"


def _is_leaf(x: Any) -> bool:
    from ._tensor import Tensor
    return isinstance(x, (Tensor, np.ndarray, np.generic, bool, int, float, complex))


# assert_allclose's own (older) defaults; dtypes not listed compare exactly.
_ALLCLOSE_TOLERANCES = {"float16": (1e-3, 1e-3), "float32": (1e-4, 1e-5), "float64": (1e-5, 1e-8)}


def _tolerances(dtypes: Tuple[str, str], rtol: Optional[float], atol: Optional[float],
                table: Optional[dict] = None) -> Tuple[float, float]:
    if (rtol is None) != (atol is None):
        raise ValueError(f"assert_close: both 'rtol' and 'atol' must be either specified or omitted, "
                         f"but got no {'rtol' if rtol is None else 'atol'}\n"
                         f"  fix: pass both, e.g. rtol=1e-5, atol=1e-8")
    if rtol is not None and atol is not None:
        return float(rtol), float(atol)
    pairs = [(table or _DEFAULT_TOLERANCES).get(d, (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _fail(msg: Any, default: str, path: str) -> None:
    where = f"\n\nThe failure occurred for item {path}" if path else ""
    if callable(msg):
        raise AssertionError(msg(default + where))
    raise AssertionError((msg if msg else default) + where)


def _compare_leaf(actual: Any, expected: Any, rtol, atol, equal_nan, check_device, check_dtype, msg, path) -> None:
    from ._tensor import Tensor
    if isinstance(actual, Tensor) != isinstance(expected, Tensor):
        raise TypeError(f"assert_close: no comparison for {type(actual).__name__} and {type(expected).__name__} "
                        f"(as PyTorch: a tensor is compared with a tensor)\n"
                        f"  fix: make both tensors, e.g. glassgrad.tensor(expected)")
    if check_dtype and not _is_tensorish(actual) and type(actual) is not type(expected):
        _fail(msg, f"The (d)types do not match: {type(actual)} != {type(expected)}.", path)
    a, a_dtype, a_device = _as_array(actual)
    e, e_dtype, e_device = _as_array(expected)
    if a.shape != e.shape:
        _fail(msg, f"The values for attribute 'shape' do not match: {a.shape} != {e.shape}.", path)
    if check_device and a_device != e_device:
        _fail(msg, f"The values for attribute 'device' do not match: {a_device} != {e_device}.", path)
    if check_dtype and a_dtype != e_dtype:
        _fail(msg, f"The values for attribute 'dtype' do not match: {a_dtype} != {e_dtype}.", path)
    r, t = _tolerances((a_dtype, e_dtype), rtol, atol)
    exact = a.dtype.kind in "biu" and e.dtype.kind in "biu"
    # Differences in the inputs' common floating dtype, as PyTorch reports them.
    common = np.result_type(a.dtype, e.dtype)
    wide = common if common.kind in "fc" else np.dtype(np.float64)
    aw, ew = a.astype(wide), e.astype(wide)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(aw - ew)
        close = (aw == ew) if exact else (diff <= t + r * np.abs(ew))
        # Infinities are close only to themselves.
        close = np.where(np.isfinite(aw) & np.isfinite(ew), close, aw == ew)
    if equal_nan:
        close = close | (np.isnan(aw) & np.isnan(ew))
    if bool(np.all(close)):
        return
    n_bad, n = int(np.size(close) - np.count_nonzero(close)), int(np.size(close))
    kind = "Scalars" if a.ndim == 0 and e.ndim == 0 and not _is_tensorish(actual) else "Tensor-likes"
    if a.ndim == 0:
        _fail(msg, f"{kind} are not {'equal' if exact else 'close'}!\n\nExpected {e.item()} but got {a.item()}.\n"
                   f"Absolute difference: {float(diff)} (up to {t} allowed)\n"
                   f"Relative difference: {float(diff / np.abs(ew)) if ew != 0 else float('inf')} "
                   f"(up to {r} allowed)", path)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(close, 0.0, diff / np.abs(ew))
    diff = np.where(close, 0.0, diff)
    i_abs = np.unravel_index(int(np.nanargmax(np.nan_to_num(diff, nan=np.inf))), diff.shape)
    i_rel = np.unravel_index(int(np.nanargmax(np.nan_to_num(rel, nan=np.inf))), rel.shape)
    _fail(msg, f"{kind} are not {'equal' if exact else 'close'}!\n\n"
               f"Mismatched elements: {n_bad} / {n} ({100.0 * n_bad / n:.1f}%)\n"
               f"Greatest absolute difference: {float(diff[i_abs])} at index {tuple(int(i) for i in i_abs)} "
               f"(up to {t} allowed)\n"
               f"Greatest relative difference: {float(rel[i_rel])} at index {tuple(int(i) for i in i_rel)} "
               f"(up to {r} allowed)", path)


def _is_tensorish(x: Any) -> bool:
    from ._tensor import Tensor
    return isinstance(x, (Tensor, np.ndarray))


def _compare(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, msg, path) -> None:
    if _is_leaf(actual) or _is_leaf(expected):
        _compare_leaf(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, msg, path)
        return
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        if set(actual) != set(expected):
            _fail(msg, f"The keys of the mappings do not match: {sorted(map(str, actual))} != "
                       f"{sorted(map(str, expected))}.", path)
        for k in actual:
            _compare(actual[k], expected[k], rtol, atol, equal_nan, check_device, check_dtype, msg, f"{path}[{k!r}]")
        return
    if isinstance(actual, Sequence) and isinstance(expected, Sequence) \
            and not isinstance(actual, str) and not isinstance(expected, str):
        if len(actual) != len(expected):
            _fail(msg, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", path)
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, rtol, atol, equal_nan, check_device, check_dtype, msg, f"{path}[{i}]")
        return
    raise TypeError(f"assert_close: no comparison for {type(actual).__name__} and {type(expected).__name__}\n"
                    f"  fix: pass tensors, NumPy arrays, Python numbers, or sequences / mappings of them")


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True, rtol: Optional[float] = None,
                 atol: Optional[float] = None, equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True, check_stride: bool = False,
                 msg: Any = None) -> None:
    """torch.testing.assert_close: raises AssertionError naming the mismatched elements and the
    greatest absolute and relative differences, when `actual` and `expected` are not close."""
    _compare(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, msg, "")


def assert_allclose(actual: Any, expected: Any, rtol: Optional[float] = None, atol: Optional[float] = None,
                    equal_nan: bool = True, msg: str = "") -> None:
    """The deprecated torch.testing.assert_allclose: assert_close with non-tensors made tensors
    (`expected` in `actual`'s dtype), its older default tolerances, no dtype check, and NaNs
    equal by default. Warns FutureWarning, as PyTorch's."""
    import warnings

    from . import tensor
    from ._tensor import Tensor
    warnings.warn("glassgrad.testing.assert_allclose() is deprecated, as torch.testing.assert_allclose(); "
                  "use glassgrad.testing.assert_close()", FutureWarning, stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = _tolerances((plain(actual.dtype), plain(expected.dtype)), None, None, _ALLCLOSE_TOLERANCES)
    _compare(actual, expected, rtol, atol, equal_nan, True, False, msg or None, "")
