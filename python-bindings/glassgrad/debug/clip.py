"""clip_grad_norm_ and clip_grad_value_: gradient clipping recorded as graph nodes
(docs/debugging.md section 2).

    total_norm = sqrt(sum over parameters of sum(grad ** 2))   (other p-norms: _total_norm)
    grad      <- grad * min(1, max_norm / (total_norm + eps))

Nothing is computed here: the nodes join the step's graph and run in the same plan as the
optimizer update, so clipping costs no host round trip and no extra plan."""
from __future__ import annotations

import math

from .. import _C
from .._factories import zeros
from .._tensor import Tensor, _scalar_like, _wrap
from .._runtime import no_grad
from .._trace import record, scope
from ._params import named_tensors


def _node(op: str, inputs, attrs=None) -> Tensor:
    return _wrap(record(op, [t._h for t in inputs], attrs, role="optimizer")[0])


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach=None, eps: float = 1e-6) -> Tensor:
    """Scales every gradient by min(1, max_norm / (total_norm + eps)), in place of .grad, and
    returns the total norm of the gradients before clipping (a 0-d tensor; reading it with
    .item() computes the pending step), as torch.nn.utils.clip_grad_norm_: norm_type is any
    p >= 0 or inf (the largest |element|); max_norm=inf only measures the norm; with no gradient
    at all the norm is 0; error_if_nonfinite raises on a NaN or infinite norm (which reads it
    now). foreach is accepted and changes nothing.

        loss.backward()
        glassgrad.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
    """
    del foreach  # PyTorch's choice of kernel; glassgrad records the same nodes either way
    norm_type = float(norm_type)
    if math.isnan(norm_type) or norm_type < 0:
        raise _C.InvalidArgumentError(f"clip_grad_norm_: norm_type must be >= 0 or inf, got {norm_type}\n"
                                      "  fix: clip_grad_norm_(params, max_norm) (the 2-norm)")
    max_norm = float(max_norm)
    if math.isnan(max_norm) or max_norm < 0:
        raise _C.InvalidArgumentError(f"clip_grad_norm_: max_norm must be >= 0, got {max_norm}\n"
                                      "  fix: clip_grad_norm_(model.parameters(), max_norm=1.0)")
    with_grad = [(n, p) for n, p in named_tensors(parameters) if p.grad is not None]
    if not with_grad:
        return zeros(())
    first_name, first = with_grad[0]
    for name, p in with_grad[1:]:
        if p.grad.device != first.grad.device:
            raise _C.DeviceError(
                f"clip_grad_norm_: gradients are on different devices: '{first_name}' on {first.grad.device}, "
                f"'{name}' on {p.grad.device}\n  fix: move the whole model to one device: model.to('{first.device}')")
    dtype = first.grad.dtype
    with scope("clip_grad_norm_"):
        norm = _total_norm([p.grad for _, p in with_grad], norm_type, dtype)
        if error_if_nonfinite and not math.isfinite(norm.item()):
            raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
                               f"so it cannot be clipped. To disable this error and scale the gradients by the "
                               f"non-finite norm anyway, set `error_if_nonfinite=False`")
        if math.isinf(max_norm):
            return norm
        ratio = _node("RDivScalar", [_node("AddScalar", [norm], {"value": float(eps)})], {"value": max_norm})
        coef = _node("Minimum", [ratio, _scalar_like(1.0, ratio)])
        for _, p in with_grad:
            c = coef if p.grad.dtype == dtype else _node("Cast", [coef], {"dtype": p.grad.dtype})
            clipped = _node("Mul", [p.grad, c])
            clipped._h.name = p.grad.name  # keeps naming the buffer "<param>.grad"
            p.grad = clipped
    return norm


def _total_norm(grads, norm_type: float, dtype) -> Tensor:
    """The norm_type-norm of all gradients together, in dtype, as graph nodes of the step:
    sqrt(sum g^2) for 2, max |g| for inf, (sum |g|^p)^(1/p) otherwise (0: the count of nonzeros)."""
    def widened(t: Tensor) -> Tensor:
        return t if t.dtype == dtype else _node("Cast", [t], {"dtype": dtype})

    def summed(t: Tensor) -> Tensor:
        return widened(_node("Sum", [t], {"dims": [], "keepdim": False}))

    if math.isinf(norm_type):
        parts = [widened(_node("Max", [_node("Abs", [g])], {"dims": [], "keepdim": False})) for g in grads]
        combine = "Maximum"
    elif norm_type == 0.0:
        parts = [summed(_node("Cast", [_node("NotEqual", [g, _scalar_like(0.0, g)])], {"dtype": g.dtype}))
                 for g in grads]
        combine = "Add"
    elif norm_type == 2.0:
        parts = [summed(_node("Mul", [g, g])) for g in grads]
        combine = "Add"
    else:
        parts = [summed(_node("PowScalar", [_node("Abs", [g])], {"exponent": norm_type})) for g in grads]
        combine = "Add"
    total = parts[0]
    for part in parts[1:]:
        total = _node(combine, [total, part])
    if norm_type == 2.0:
        return _node("Sqrt", [total])
    if math.isinf(norm_type) or norm_type in (0.0, 1.0):
        return total
    return _node("PowScalar", [total], {"exponent": 1.0 / norm_type})


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Limits every gradient element to [-clip_value, clip_value], in place of .grad
    (torch.nn.utils.clip_grad_value_): tensors that alias a gradient see the clipped values.
    Parameters without a gradient are skipped; returns None. foreach is accepted for PyTorch's
    signature and changes nothing.

        loss.backward()
        glassgrad.nn.utils.clip_grad_value_(model.parameters(), 100)
        optimizer.step()
    """
    del foreach  # PyTorch's choice of kernel; glassgrad records the same nodes either way
    clip_value = float(clip_value)
    if math.isnan(clip_value):
        raise _C.InvalidArgumentError("clip_grad_value_: clip_value is NaN\n"
                                      "  fix: clip_grad_value_(model.parameters(), clip_value=1.0)")
    with no_grad(), scope("clip_grad_value_"):
        for _, p in named_tensors(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
