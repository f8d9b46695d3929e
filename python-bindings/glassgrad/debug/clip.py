"""clip_grad_norm_ (get_total_norm, then clip_grads_with_norm_) and clip_grad_value_: gradient clipping recorded as graph nodes
(docs/debugging.md section 2).

    total_norm = sqrt(sum over parameters of sum(grad ** 2))   (other p-norms: _total_norm)
    grad      <- grad * min(1, max_norm / (total_norm + eps))

Nothing is computed here: the nodes join the step's graph and run in the same plan as the
optimizer update, so clipping costs no host round trip and no extra plan."""
from __future__ import annotations

import functools
import math

from .. import _C
from .._dtypes import DTYPES, promote_types
from .._factories import zeros
from .._tensor import Tensor, _scalar_like, _wrap
from .._runtime import no_grad
from .._trace import record, scope
from ._params import named_tensors


def _node(op: str, inputs, attrs=None) -> Tensor:
    return _wrap(record(op, [t._h for t in inputs], attrs, role="optimizer")[0])


def _at_least_zero(value, name: str, where: str, fix: str) -> float:
    """norm_type and max_norm: a number >= 0 (inf allowed), else InvalidArgumentError."""
    value = float(value)
    if math.isnan(value) or value < 0:
        raise _C.InvalidArgumentError(f"{where}: {name} must be >= 0" + (" or inf" if name == "norm_type" else "") +
                                      f", got {value}\n  fix: {where}({fix})")
    return value


def _norm_type(norm_type, where: str) -> float:
    """Any p but NaN, as PyTorch's vector_norm: inf the largest |element|, -inf the smallest, a
    negative p (sum |g|^p)^(1/p)."""
    value = float(norm_type)
    if math.isnan(value):
        raise _C.InvalidArgumentError(f"{where}: norm_type must be a number, got {value}\n  fix: {where}(..., "
                                      f"norm_type=2.0) (the 2-norm)")
    return value


def _max_norm(max_norm, where: str) -> float:
    return _at_least_zero(max_norm, "max_norm", where, "model.parameters(), max_norm=1.0, ...")


def _one_device(named, where: str) -> None:
    first_name, first = named[0]
    for name, t in named[1:]:
        if t.device != first.device:
            raise _C.DeviceError(
                f"{where}: gradients are on different devices: '{first_name}' on {first.device}, "
                f"'{name}' on {t.device}\n  fix: move the whole model to one device: model.to('{first.device}')")


def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """The norm_type-norm of all the tensors together (of the gradients themselves: pass
    [p.grad for p in params]), a 0-d tensor, as torch.nn.utils.get_total_norm: any p but NaN
    (inf, -inf and negative ones too); 0 for no tensors; error_if_nonfinite raises on a NaN or
    infinite norm (which reads it now).
    foreach is accepted and changes nothing."""
    del foreach  # PyTorch's choice of kernel; glassgrad records the same nodes either way
    norm_type = _norm_type(norm_type, "get_total_norm")
    named = [(n, t) for n, t in named_tensors(tensors) if t is not None]
    if not named:
        return zeros(())
    return _measured(named, norm_type, error_if_nonfinite, "get_total_norm")


def _measured(named, norm_type: float, error_if_nonfinite: bool, where: str) -> Tensor:
    """The total norm of the (name, tensor) pairs, recorded under the scope `where`."""
    _one_device(named, where)
    with scope(where):
        norm = _total_norm([t for _, t in named], norm_type)
    if error_if_nonfinite and not math.isfinite(norm.item()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
                           f"so it cannot be clipped. To disable this error and scale the gradients by the "
                           f"non-finite norm anyway, set `error_if_nonfinite=False`")
    return norm


def clip_grads_with_norm_(parameters, max_norm: float, total_norm: Tensor, foreach=None, eps: float = 1e-6) -> None:
    """Scales every gradient by min(1, max_norm / (total_norm + eps)), in place of .grad
    (torch.nn.utils.clip_grads_with_norm_, with a total_norm from get_total_norm). foreach is
    accepted and changes nothing."""
    del foreach  # PyTorch's choice of kernel; glassgrad records the same nodes either way
    max_norm = _max_norm(max_norm, "clip_grads_with_norm_")
    with_grad = [(p, g) for _, p in named_tensors(parameters) for g in (p.grad,) if g is not None]
    if not with_grad or math.isinf(max_norm):
        return
    with scope("clip_grad_norm_"):
        ratio = _node("RDivScalar", [_node("AddScalar", [total_norm], {"value": float(eps)})], {"value": max_norm})
        coef = _node("Minimum", [ratio, _scalar_like(1.0, ratio)])
        for p, g in with_grad:
            # in the dtype the gradient's norm is computed in: PyTorch's mul_ reads a 0-d factor
            # as a number of that precision, never rounded to float16 first
            computed = _COMPUTED.get(g.dtype, g.dtype)
            clipped = _cast(_node("Mul", [_cast(g, computed), _cast(coef, computed)]), g.dtype)
            clipped._h.name = g.name  # keeps naming the buffer "<param>.grad"
            p.grad = clipped


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach=None, eps: float = 1e-6) -> Tensor:
    """Scales every gradient by min(1, max_norm / (total_norm + eps)), in place of .grad, and
    returns the total norm of the gradients before clipping (a 0-d tensor; reading it with
    .item() computes the pending step), as torch.nn.utils.clip_grad_norm_: norm_type is any p
    but NaN (inf: the largest |element|, -inf the smallest); max_norm=inf only measures the norm;
    with no gradient at all the norm is 0; error_if_nonfinite raises on a NaN or infinite norm (which reads it
    now). foreach is accepted and changes nothing. It is get_total_norm of the gradients, then
    clip_grads_with_norm_, as PyTorch's.

        loss.backward()
        glassgrad.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
    """
    _norm_type(norm_type, "clip_grad_norm_")
    max_norm = _max_norm(max_norm, "clip_grad_norm_")
    named = [(n, p) for n, p in named_tensors(parameters) if p.grad is not None]
    if not named:
        return zeros(())
    norm = _measured([(n, p.grad) for n, p in named], float(norm_type), error_if_nonfinite, "clip_grad_norm_")
    clip_grads_with_norm_([p for _, p in named], max_norm, norm, eps=eps)
    return norm


def _total_norm(grads, norm_type: float) -> Tensor:
    """The norm_type-norm of all gradients together, as PyTorch's get_total_norm: each gradient's
    norm in its own dtype, then the norm of those norms in the dtype they promote to (float64
    where a float32 and a float64 gradient meet; the 0-norm so counts the gradients holding a
    nonzero), as graph nodes of the step."""
    dtype = functools.reduce(promote_types, [g.dtype for g in grads])
    return _norm([_cast(_norm([g], norm_type, g.dtype), dtype) for g in grads], norm_type, dtype)


# The dtype a storage type's norm is computed in, as PyTorch's vector_norm computes it: a float16
# gradient's squares pass float16's range (65504) long before its norm does.
_COMPUTED = {"float16": DTYPES["float32"], "bfloat16": DTYPES["float32"]}


def _norm(ts, norm_type: float, dtype) -> Tensor:
    """_p_norm of ts (of dtype), computed as PyTorch's vector_norm computes it (_COMPUTED)."""
    computed = _COMPUTED.get(dtype, dtype)
    return _cast(_p_norm([_cast(t, computed) for t in ts], norm_type), dtype)


def _cast(t: Tensor, dtype) -> Tensor:
    return t if t.dtype == dtype else _node("Cast", [t], {"dtype": dtype})


def _p_norm(ts, norm_type: float) -> Tensor:
    """The norm_type-norm of the elements of the tensors ts (of one dtype) together, a 0-d tensor:
    sqrt(sum t^2) for 2, max |t| for inf, min |t| for -inf, (sum |t|^p)^(1/p) otherwise (0: the count
    of nonzero elements; a negative p: 0 when any element is 0, as PyTorch's vector_norm)."""
    def summed(t: Tensor) -> Tensor:
        return _node("Sum", [t], {"dims": [], "keepdim": False})

    if norm_type == -math.inf:  # the smallest |element|: -max(-|t|)
        parts = [_node("Neg", [_node("Max", [_node("Neg", [_node("Abs", [t])])], {"dims": [], "keepdim": False})])
                 for t in ts]
        combine = "Minimum"
    elif math.isinf(norm_type):
        parts = [_node("Max", [_node("Abs", [t])], {"dims": [], "keepdim": False}) for t in ts]
        combine = "Maximum"
    elif norm_type == 0.0:
        parts = [summed(_node("Cast", [_node("NotEqual", [t, _scalar_like(0.0, t)])], {"dtype": t.dtype}))
                 for t in ts]
        combine = "Add"
    elif norm_type == 2.0:
        parts = [summed(_node("Mul", [t, t])) for t in ts]
        combine = "Add"
    else:
        parts = [summed(_node("PowScalar", [_node("Abs", [t])], {"exponent": norm_type})) for t in ts]
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
