"""gradcheck: a layer's gradients against central finite differences, in float64.

For people writing their own layers or functions out of glassgrad ops:

    def my_layer(x, w):
        return glassgrad.relu(x @ w.T).sum()
    glassgrad.debug.gradcheck(my_layer, [np.random.randn(4, 3), np.random.randn(5, 3)])

fn takes glassgrad tensors and returns a scalar, or a tensor that is contracted with a fixed
random cotangent u (L = sum(fn(...) * u)). Each input's gradient from backward() is compared with
(L(x + eps e_i) - L(x - eps e_i)) / (2 eps) for every element i."""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from .. import _C
from .._finite_differences import central_differences
from .._runtime import no_grad
from .._tensor import Tensor, tensor
from .errors import GradcheckError


def _as_float64(x) -> np.ndarray:
    arr = x.numpy(force=True) if isinstance(x, Tensor) else np.asarray(x)
    if arr.dtype.kind != "f":
        raise _C.DTypeError(f"gradcheck: input of dtype {arr.dtype} {list(arr.shape)} cannot be differentiated\n"
                            "  fix: pass float arrays (integer inputs such as labels belong inside fn)")
    return np.array(arr, dtype=np.float64)


def _loss(fn, arrays, cotangent, requires_grad: bool):
    xs = [tensor(a, dtype="float64", device="cpu", requires_grad=requires_grad) for a in arrays]
    out = fn(*xs)
    if not isinstance(out, Tensor):
        raise TypeError(f"gradcheck: fn must return a glassgrad.Tensor, got {type(out).__name__}")
    if out.dtype != "float64":
        raise _C.DTypeError(f"gradcheck: fn returned {out.dtype}; finite differences need float64 all the way\n"
                            "  fix: do not convert inside fn (no .float()), and build constants from the inputs' "
                            "dtype; call model.double() for a layer's parameters")
    if out.numel() == 1:
        loss = out.reshape([])
    else:
        loss = (out * tensor(cotangent(out.shape), dtype="float64", device="cpu")).sum()
    return xs, loss


def gradcheck(fn, inputs: Sequence, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              seed: int = 0, wrt: Optional[Sequence[int]] = None) -> bool:
    """Returns True when every gradient matches; raises GradcheckError naming the input, the
    worst element, both values and the tolerance otherwise.

    inputs: arrays or tensors (converted to float64 on the CPU; fn gets fresh leaf tensors).
    wrt:    indices of the inputs to check (default: all).
    A tolerance test per element: |analytic - numeric| <= atol + rtol * |numeric|."""
    arrays = [_as_float64(x) for x in inputs]
    wrt = list(range(len(arrays))) if wrt is None else list(wrt)
    rng = np.random.default_rng(seed)
    fixed = {}

    def cotangent(shape):
        key = tuple(shape)
        if key not in fixed:
            fixed[key] = rng.standard_normal(key)
        return fixed[key]

    xs, loss = _loss(fn, arrays, cotangent, True)
    if not loss.requires_grad:
        raise GradcheckError("gradcheck: fn's result does not depend on any input through differentiable ops\n"
                             "  fix: compute the result from the tensors fn receives")
    loss.backward()
    analytic = [np.zeros_like(a) if xs[i].grad is None else xs[i].grad.numpy(force=True) for i, a in enumerate(arrays)]

    def value(arrs) -> float:
        with no_grad():
            _, l = _loss(fn, arrs, cotangent, False)
            return float(l.item())

    for i in wrt:
        a = arrays[i]
        numeric = central_differences(value, arrays, i, eps)
        err = np.abs(analytic[i] - numeric)
        allowed = atol + rtol * np.abs(numeric)
        if a.size and np.any(~(err <= allowed)):
            k = int(np.argmax(np.where(np.isnan(err), np.inf, err - allowed)))
            idx = tuple(int(v) for v in np.unravel_index(k, a.shape)) if a.shape else ()
            an, nu = float(analytic[i].reshape(-1)[k]), float(numeric.reshape(-1)[k])
            bad = int(np.sum(~(err <= allowed)))
            raise GradcheckError(
                f"gradcheck: the gradient of input {i} {list(a.shape)} differs from finite differences at "
                f"{bad} of {a.size} elements\n"
                f"  worst element {list(idx)}: backward() gives {an:.10g}, finite differences give {nu:.10g} "
                f"(|difference| {abs(an - nu):.3g}, allowed {float(allowed.reshape(-1)[k]):.3g} = "
                f"atol {atol:g} + rtol {rtol:g} * |numeric|)\n"
                f"  cause: a gradient rule that does not match its forward (a wrong sign or transpose, a missing "
                f"broadcast reduction), or fn is not smooth at this point (relu/max at a tie, abs at 0)\n"
                f"  fix: compare the formulas for this input; if fn has kinks, move the inputs away from them "
                f"(e.g. other random values) and check again")
    return True
