"""Window functions: torch.hann_window, hamming_window, bartlett_window, blackman_window and
kaiser_window (periodic by default), and the sums of cosines and other windows torch.signal.windows
names (symmetric by default, as SciPy's). Every window is computed in float64 from its formula and
made a new leaf of the dtype asked for (the default floating type otherwise)."""
from __future__ import annotations

import math
import numbers
from typing import Callable, Sequence

import numpy as np

from . import _args, _dtypes
from ._tensor import Tensor, tensor

__all__ = ["bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window"]

BLACKMAN = (0.42, 0.5, 0.08)
NUTTALL = (0.3635819, 0.4891775, 0.1365995, 0.0106411)


def _length(m, name: str, where: str, error) -> int:
    if isinstance(m, bool) or not isinstance(m, (numbers.Integral, np.integer)):
        raise _args.InvalidArgumentTypeError(f"{where}(): argument '{name}' (position 1) must be int, not "
                                             f"{type(m).__name__}\n  fix: {where}(64)")
    if m < 0:
        raise error(f"{where} requires non-negative window length, got {name}={m}\n  fix: {where}(64)")
    return int(m)


def _leaf(values: np.ndarray, dtype, device, requires_grad, where: str, allowed: Sequence[str], error) -> Tensor:
    dt = _dtypes.to_dtype(dtype, where) if dtype is not None else _dtypes.get_default_dtype()
    if _dtypes.plain(dt) not in allowed:
        kinds = "floating point dtypes" if len(allowed) > 2 else "float32 or float64 dtypes"
        raise error(f"{where} expects {kinds}, got: {dt}\n  fix: dtype=torch.float32")
    return tensor(values, dtype=dt, device=device, requires_grad=_args.flag(requires_grad, "requires_grad", where))


def _symmetric(n: int, periodic: bool, formula: Callable[[np.ndarray, int], np.ndarray]) -> np.ndarray:
    """formula(k, N) on k = 0..N-1 with N = n, or n + 1 with the last point dropped (periodic: the
    window of a length-n period, PyTorch's and SciPy's `sym=False`); one point is [1]."""
    if n <= 1:
        return np.ones(n)
    total = n + 1 if periodic else n
    return formula(np.arange(total, dtype=np.float64), total)[:n]


def cosine_sum(coefficients: Sequence[float]) -> Callable[[np.ndarray, int], np.ndarray]:
    """sum_j (-1)^j a_j cos(2 pi j k / (N - 1)): hann, hamming, blackman and nuttall are such sums."""
    def formula(k: np.ndarray, total: int) -> np.ndarray:
        phase = 2 * math.pi * k / (total - 1)
        return sum((-1) ** j * a * np.cos(j * phase) for j, a in enumerate(coefficients))
    return formula


def bartlett_formula(k: np.ndarray, total: int) -> np.ndarray:
    return 1 - np.abs(2 * k / (total - 1) - 1)


def kaiser_formula(beta: float) -> Callable[[np.ndarray, int], np.ndarray]:
    def formula(k: np.ndarray, total: int) -> np.ndarray:
        r = 2 * k / (total - 1) - 1
        return np.i0(beta * np.sqrt(np.clip(1 - r * r, 0, None))) / np.i0(beta)
    return formula


_FLOATING = ("float16", "bfloat16", "float32", "float64")


def _window(where: str, window_length, periodic, formula, dtype, device, requires_grad) -> Tensor:
    # a 0-d integer tensor is an int to PyTorch's parser (hann_window(torch.tensor(4)))
    index = _args.tensor_index(window_length)
    n = _length(window_length if index is None else index, "window_length", where, RuntimeError)
    periodic = _args.flag(periodic, "periodic", where)
    return _leaf(_symmetric(n, periodic, formula), dtype, device, requires_grad, where, _FLOATING,
                 _args.UnsupportedDTypeError)


def hann_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """torch.hann_window: 0.5 - 0.5 cos(2 pi k / (N - 1)), periodic (N = window_length + 1, the
    last point dropped) unless periodic=False."""
    return _window("hann_window", window_length, periodic, cosine_sum((0.5, 0.5)), dtype, device, requires_grad)


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
                   dtype=None, layout=None, device=None, pin_memory: bool = False,
                   requires_grad: bool = False) -> Tensor:
    """torch.hamming_window: alpha - beta cos(2 pi k / (N - 1)), periodic unless periodic=False."""
    a = _args.real(alpha, "alpha", "hamming_window")
    b = _args.real(beta, "beta", "hamming_window")
    return _window("hamming_window", window_length, periodic, cosine_sum((a, b)), dtype, device, requires_grad)


def blackman_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                    pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """torch.blackman_window: 0.42 - 0.5 cos(2 pi k / (N - 1)) + 0.08 cos(4 pi k / (N - 1))."""
    return _window("blackman_window", window_length, periodic, cosine_sum(BLACKMAN), dtype, device, requires_grad)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                    pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """torch.bartlett_window: the triangle 1 - |2 k / (N - 1) - 1|."""
    return _window("bartlett_window", window_length, periodic, bartlett_formula, dtype, device, requires_grad)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype=None, layout=None,
                  device=None, pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """torch.kaiser_window: I0(beta sqrt(1 - (2 k / (N - 1) - 1)^2)) / I0(beta) (I0 the modified
    Bessel function of order 0)."""
    b = _args.real(beta, "beta", "kaiser_window")
    return _window("kaiser_window", window_length, periodic, kaiser_formula(b), dtype, device, requires_grad)


# ---- torch.signal.windows: M points, symmetric unless sym=False, float32 or float64 ---------------
_SIGNAL_DTYPES = ("float32", "float64")


def signal_window(M, sym, formula, dtype, device, requires_grad, where: str = "general_cosine") -> Tensor:
    """A torch.signal.windows window: its ValueErrors name general_cosine, as PyTorch's do for
    every cosine-sum window."""
    n = _length(M, "M", where, ValueError)
    return _leaf(_symmetric(n, not _args.flag(sym, "sym", where), formula), dtype, device, requires_grad, where,
                 _SIGNAL_DTYPES, ValueError)
