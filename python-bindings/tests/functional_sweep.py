"""The harness of the torch.nn.functional differential sweeps (test_torch_functional_sweep_*.py):
a case is a function of the library (torch or glassgrad) and its input tensors, made from the
same NumPy arrays for both. Both libraries run it: when PyTorch raises, glassgrad must raise an
exception of PyTorch's class (glassgrad's errors derive from the builtin classes PyTorch raises);
otherwise every output must match PyTorch's dtype, shape and values, and the gradients of the
floating inputs (through a weighted sum of the outputs) PyTorch's."""
from __future__ import annotations

import zlib
from typing import Any, Callable, List, Optional

import numpy as np
import pytest

import glassgrad


def uniform(*shape, dtype: str = "float32", lo: float = -2.0, hi: float = 2.0, seed: int = 0) -> np.ndarray:
    """Reproducible values in [lo, hi) for `shape` (the seed derived from the shape and `seed`)."""
    rng = np.random.default_rng(zlib.crc32(repr((shape, seed)).encode()))
    return rng.uniform(lo, hi, shape).astype(dtype)


def integers(high: int, *shape, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, high, shape).astype(np.int64)


class NoGrad:
    """An input array that enters without requires_grad (PyTorch refuses gradients for some
    arguments: a loss's class weights, its targets)."""

    def __init__(self, array: np.ndarray):
        self.array = array


def case(name: str, fn: Callable[..., Any], arrays: List[Any], grad: bool = True, tol: float = 1e-5,
         dtype: Optional[str] = None):
    """A pytest parameter: fn(lib, *inputs), inputs made from `arrays` (floating ones requiring
    grad when `grad`, converted to `dtype` when given); values compared at `tol`, gradients at 10 tol."""
    return pytest.param((fn, arrays, grad, tol, dtype), id=name)


def collector(cases: list) -> Callable[..., None]:
    """C(name, fn, arrays, ...) for a test file: appends case(...) to the file's `cases`."""
    def add(*args, **kwargs) -> None:
        cases.append(case(*args, **kwargs))
    return add


def F(lib):
    """lib.nn.functional of either library: a case is written once for both."""
    return lib.nn.functional


def _input(lib, value, grad: bool, dtype: Optional[str]):
    if isinstance(value, NoGrad):
        return _input(lib, value.array, False, dtype)
    if not isinstance(value, np.ndarray):
        return value
    x = lib.tensor(value)
    if dtype is not None and x.is_floating_point():
        x = x.to(getattr(lib, dtype))
    if grad and x.is_floating_point():
        x.requires_grad_(True)
    return x


def _flat(out) -> list:
    if isinstance(out, (tuple, list)):
        return [leaf for item in out for leaf in _flat(item)]
    return [out]


def _run(lib, spec):
    fn, arrays, grad, _, dtype = spec
    inputs = [_input(lib, a, grad, dtype) for a in arrays]
    outputs = _flat(fn(lib, *inputs))
    values = [(str(o.dtype).rsplit(".", 1)[-1], tuple(o.shape), o.detach().double().numpy())
              if hasattr(o, "detach") else ("python", None, o) for o in outputs]
    grads = []
    differentiable = [o for o in outputs if getattr(o, "requires_grad", False)]
    if differentiable:
        total = None
        for k, o in enumerate(differentiable):
            w = lib.tensor(np.random.default_rng(k).uniform(0.5, 1.5, tuple(o.shape)).astype(np.float32)).to(o.dtype)
            total = (o * w).sum() if total is None else total + (o * w).sum()
        total.backward()
        grads = [None if x.grad is None else x.grad.double().numpy()
                 for x in inputs if getattr(x, "requires_grad", False)]
    return values, grads


def check(torch, spec) -> None:
    """Runs the case in both libraries and asserts glassgrad behaves as PyTorch (module doc)."""
    tol = spec[3]
    try:
        expected = _run(torch, spec)
    except Exception as e:
        kind = type(e)
        while kind.__module__.startswith("torch"):  # torch's own classes derive from the builtin ones
            kind = kind.__base__
        with pytest.raises(kind):
            _run(glassgrad, spec)
        return
    values, grads = _run(glassgrad, spec)
    assert len(values) == len(expected[0])
    for (dt, shape, got), (want_dt, want_shape, want) in zip(values, expected[0]):
        if want_dt == "python":
            assert str(got) == str(want)
            continue
        assert (dt, shape) == (want_dt, want_shape)
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True)
    assert len(grads) == len(expected[1])
    for got, want in zip(grads, expected[1]):
        assert (got is None) == (want is None)
        if want is not None:
            np.testing.assert_allclose(got, want, rtol=tol * 10, atol=tol * 10, equal_nan=True)
