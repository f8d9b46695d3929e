"""PyTorch's out= argument: the result is written into a given tensor, which is returned
(docs/porting.md, the out= row). The tensor is resized to the result's shape (with PyTorch's
deprecation warning when it held elements), the result cast to its dtype when PyTorch allows the
cast, and refused where autograd would be needed, as PyTorch refuses it."""
from __future__ import annotations

import functools
import inspect
import warnings
from typing import Any, Callable, TypeVar, cast

from . import _dtypes, _trace
from ._args import UnsupportedDTypeError
from ._runtime import records_grad
from ._tensor import Tensor

_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
          "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}
# the C names PyTorch's matrix products print when out's dtype is not the result's
_C_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
            "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
            "bool": "bool"}

_Fn = TypeVar("_Fn", bound=Callable[..., Any])


def write_out(out, result: Tensor, name: str, same_dtype: bool = False, warn: bool = True) -> Tensor:
    """result written into out (torch's out=): out itself comes back. same_dtype: out must have
    the result's dtype (PyTorch's matrix products); warn: warn when out held other elements."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if records_grad() and (result.requires_grad or out.requires_grad):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic differentiation, but "
                           "one of the arguments requires grad.\n  fix: y = " + name + "(...) without out=, or call "
                           "it under torch.no_grad()")
    if same_dtype and out.dtype != result.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {_C_NAMES.get(_dtypes.plain(result.dtype), result.dtype)}, but "
                           f"got {_C_NAMES.get(_dtypes.plain(out.dtype), out.dtype)} instead")
    if out.dtype != result.dtype and not _dtypes.can_cast(result.dtype, out.dtype):
        raise RuntimeError(f"result type {_NAMES.get(_dtypes.plain(result.dtype), result.dtype)} can't be cast to the desired "
                           f"output type {_NAMES.get(_dtypes.plain(out.dtype), out.dtype)}")
    if out.device != result.device:
        raise RuntimeError(f"Expected out tensor to have device {result.device}, but got {out.device} instead")
    if tuple(out.shape) != tuple(result.shape):
        if out.numel() != 0 and warn:
            warnings.warn(f"An output with one or more elements was resized since it had shape {list(out.shape)}, "
                          f"which does not match the required output shape {list(result.shape)}. This behavior is "
                          "deprecated, and in a future PyTorch release outputs will not be resized unless they have "
                          "zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero "
                          "elements with t.resize_(0).", UserWarning, stacklevel=_trace.user_stacklevel())
        out.resize_(*result.shape)
    out.copy_(result)
    return out


def accepts_out(fn: _Fn, same_dtype: bool = False, out_dtypes: tuple = ()) -> _Fn:
    """fn with a keyword-only out=None after its own parameters (PyTorch's signature). A function
    returning a tuple (max with dim, sort, topk: PyTorch's out=(values, indices)) writes each
    result into the tensor of out at its place and returns them in the result's tuple type; each
    must have its result's dtype, as PyTorch's kernels of these check. same_dtype: so must a single
    result's out; out_dtypes: the only dtypes out may have (all and any: bool and uint8)."""
    @functools.wraps(fn)
    def call(*args, out=None, **kwargs):
        if out_dtypes and isinstance(out, Tensor) and _dtypes.plain(out.dtype) not in out_dtypes:
            raise RuntimeError(f"{fn.__name__} only supports bool tensor for result, got: "
                               f"{_NAMES.get(_dtypes.plain(out.dtype), out.dtype)}\n  fix: out=torch.empty(0, "
                               f"dtype=torch.bool)")
        result = fn(*args, **kwargs)
        if out is None:
            return result
        if isinstance(result, tuple):
            return write_outs(out, result, fn.__name__, same_dtype=True)
        return write_out(out, result, fn.__name__, same_dtype)

    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    at = len(params) - (1 if params and params[-1].kind == inspect.Parameter.VAR_KEYWORD else 0)
    params.insert(at, inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None))
    call.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    return cast(_Fn, call)


def write_outs(out, results: tuple, name: str, same_dtype: bool = False) -> tuple:
    """Each tensor of results written into the tensor of out at its place (write_out), as results' type."""
    if not isinstance(out, (tuple, list)) or len(out) != len(results):
        raise TypeError(f"{name}(): argument 'out' must be a tuple of {len(results)} Tensors here (one per result), "
                        f"got {type(out).__name__}\n  fix: out=(values, indices) of empty tensors, e.g. "
                        f"(torch.empty(0), torch.empty(0, dtype=torch.long))")
    written = [write_out(o, r, name, same_dtype) for o, r in zip(out, results)]
    return type(results)(*written) if hasattr(results, "_fields") else tuple(written)


def factory_out(fn: _Fn) -> _Fn:
    """A factory that already names out= in its signature: with out given, the values are made in
    out's dtype (unless dtype says otherwise) and on its device, then written into it."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        out = kwargs.pop("out", None)
        if out is None:
            return fn(*args, **kwargs)
        if isinstance(out, Tensor):
            if kwargs.get("dtype") is None:
                kwargs["dtype"] = out.dtype
            if kwargs.get("device") is None:
                kwargs["device"] = out.device
        # requires_grad=True with out=: PyTorch writes the values, then makes out a leaf that
        # requires grad (out.requires_grad_()); the values themselves are made without it
        requires_grad = bool(kwargs.pop("requires_grad", False)) and isinstance(out, Tensor)
        result = fn(*args, **kwargs)
        if fn.__name__ == "arange" and isinstance(out, Tensor) and out.numel() not in (0, result.numel()):
            warnings.warn(f"The number of elements in the out tensor of shape {list(out.shape)} is {out.numel()} "
                          f"which does not match the computed number of elements {result.numel()}. Note that this "
                          "may occur as a result of rounding error. The out tensor will be resized to a tensor of "
                          f"shape ({result.numel()},).", UserWarning, stacklevel=_trace.user_stacklevel())
        written = write_out(out, result, fn.__name__, warn=False)
        return written.requires_grad_(True) if requires_grad else written
    return cast(_Fn, call)


def dtype_out(fn: _Fn, in_out_dtype: bool, nan_kernel: bool = False) -> _Fn:
    """accepts_out for the reductions and scans that take dtype= (sum, prod, nansum, cumsum,
    cumprod, mean, nanmean): given both, out must have dtype's dtype (PyTorch's RuntimeError);
    in_out_dtype: without dtype=, the result is computed in out's dtype (the input cast to it
    first, as PyTorch's: a sum of [1.5, 2.5] into an int64 out is 3, a cumsum into a bool out is
    refused as cumsum(dtype=torch.bool) is). nan_kernel (nansum, nanmean): PyTorch's nansum kernel
    refuses a floating input with a bool or integer out and no dtype= (NotImplementedError)."""
    plain = accepts_out(fn)

    @functools.wraps(fn)
    def call(*args, out=None, **kwargs):
        if not isinstance(out, Tensor):
            return plain(*args, out=out, **kwargs)
        source = args[0] if args else kwargs.get("input")
        if nan_kernel and kwargs.get("dtype") is None and isinstance(source, Tensor) and \
                source.dtype.is_floating_point and not out.dtype.is_floating_point:
            raise UnsupportedDTypeError(f"\"nansum_cpu\" not implemented for '{_NAMES.get(_dtypes.plain(out.dtype))}'\n"
                                        f"  {fn.__name__}: a {source.dtype} input into a {out.dtype} out (as PyTorch "
                                        f"refuses it)\n  fix: a floating out, then .to({out.dtype})")
        dtype = kwargs.get("dtype")
        if dtype is not None and _dtypes.to_dtype(dtype) != out.dtype:
            raise RuntimeError(f"Expected out tensor to have dtype {_C_NAMES.get(_dtypes.plain(dtype), dtype)}, but "
                               f"got {_C_NAMES.get(_dtypes.plain(out.dtype), out.dtype)} instead\n  {fn.__name__}: "
                               f"dtype= and out= must agree\n  fix: dtype={out.dtype}, or leave dtype= out")
        if in_out_dtype:
            kwargs["dtype"] = out.dtype
        return write_out(out, fn(*args, **kwargs), fn.__name__)

    call.__signature__ = inspect.signature(plain)  # type: ignore[attr-defined]
    return cast(_Fn, call)


def product_out(fn: _Fn) -> _Fn:
    """accepts_out for the matrix products, whose out must have the result's dtype."""
    return accepts_out(fn, same_dtype=True)
