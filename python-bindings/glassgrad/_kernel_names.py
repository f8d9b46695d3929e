"""PyTorch's sentence for a float-only op given an integer or bool tensor, named after its CPU
kernel ('"elu_cpu" not implemented for 'Long''), for the runtime's ops whose shape rule refuses
such a dtype (their error, raised again by _args.raise_unsupported_dtype, then starts with it)."""
from __future__ import annotations

from typing import Optional

# the runtime's op name -> PyTorch's CPU kernel (F.selu and F.celu record ELU; F.rrelu LeakyReLU)
_KERNELS = {"ELU": "elu_cpu", "LeakyReLU": "leaky_relu_cpu", "GELU": "GeluKernelImpl",
            "GELUTanh": "GeluKernelImpl", "SiLU": "silu_cpu", "Mish": "mish_cpu", "Hardswish": "hardswish_cpu",
            "Hardsigmoid": "hardsigmoid_cpu"}
# softmax's kernels: one for the last dim, one for the others
_SOFTMAX = {"Softmax": "softmax", "LogSoftmax": "log_softmax"}


def sentence(op: str, inputs, attrs) -> Optional[str]:
    """PyTorch's sentence for `op` recorded on `inputs` (their first's dtype), or None for an op
    this table does not name."""
    if not inputs:
        return None
    from ._inplace import _type_name
    x = inputs[0]
    dtype = _type_name(x.dtype)
    if op == "HardtanhMin":  # integers are clamped; only bool is refused
        return "Bool inputs not supported for hardtanh" if dtype == "Bool" else None
    kernel = _KERNELS.get(op)
    if op in _SOFTMAX:
        ndim, dim = x.ndim, int((attrs or {}).get("dim", -1))
        last = ndim == 0 or dim % ndim == ndim - 1
        kernel = _SOFTMAX[op] + ("_lastdim" if last else "") + "_kernel_impl"
    return None if kernel is None else f'"{kernel}" not implemented for \'{dtype}\''
