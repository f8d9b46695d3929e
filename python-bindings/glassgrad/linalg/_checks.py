"""Input checks shared by glassgrad.linalg's functions, with PyTorch's messages (docs/linalg.md),
and the batch broadcasting of two operands."""
from __future__ import annotations

import numpy as np

from .. import _C
from .._args import UnsupportedDTypeError
from .._dtypes import plain
from .._out import write_out, write_outs
from .._tensor import Tensor


class LinAlgError(_C.GlassgradError, RuntimeError):
    """torch.linalg.LinAlgError: a factorization or inversion that the input's values make impossible
    (a singular matrix, one that is not positive-definite). A RuntimeError, as PyTorch's is."""


# PyTorch's names of the dtypes in its messages (c10's ScalarType names)
_TORCH_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
                "float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double"}


def check_float(A: Tensor, fn: str, what: str = "input") -> None:
    name = _TORCH_NAMES.get(plain(A.dtype).split(".")[-1], plain(A.dtype))
    if not A.dtype.is_floating_point:
        raise _C.DTypeError(f"linalg.{fn}: Expected a floating point or complex tensor as {what}. Got {name}\n"
                            f"  fix: convert first, A.double() or A.float()")
    if A.dtype not in ("float32", "float64"):  # PyTorch: a RuntimeError, or its kernels' NotImplementedError
        raise UnsupportedDTypeError(f"linalg.{fn}: Low precision dtypes not supported. Got {name}\n"
                                    "  fix: compute in float32 (A.float()) and convert the result back")


def check_lu_dtype(A: Tensor, fn: str) -> None:
    """The LU functions' dtype check: an integer or bool matrix is PyTorch's NotImplementedError from
    its CPU kernel ('"lu_cpu" not implemented for 'Long''), not check_float's RuntimeError."""
    if A.ndim >= 2 and not A.dtype.is_floating_point:
        name = _TORCH_NAMES.get(plain(A.dtype), plain(A.dtype))
        raise UnsupportedDTypeError(f"\"lu_cpu\" not implemented for '{name}'\n  linalg.{fn}: A is {A.dtype}, shape "
                                    f"{list(A.shape)}, as PyTorch\n  fix: convert first, A.double() or A.float()")


def check_matrix(A: Tensor, fn: str, square: bool = True) -> None:
    """A is a float32/float64 batch of (square) matrices [..., m, n]."""
    if A.ndim < 2:
        raise _C.ShapeError(f"linalg.{fn}: The input tensor A must have at least 2 dimensions.\n  fix: A has shape "
                            f"{list(A.shape)}; a single matrix is [n, n], a batch [..., n, n]")
    check_float(A, fn)
    if square and A.shape[-1] != A.shape[-2]:
        raise _C.ShapeError(f"linalg.{fn}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                            f"{A.shape[-1]} matrices\n  fix: for a non-square A, linalg.lstsq or linalg.pinv")


def broadcast_batch(A: Tensor, B: Tensor, fn: str):
    """A [..., m, n] and B [..., p, k] with their batch axes broadcast together."""
    try:
        batch = tuple(np.broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[:-2])))
    except ValueError:
        raise _C.ShapeError(f"linalg.{fn}: the batch dimensions of A {list(A.shape)} and B {list(B.shape)} do not "
                            "broadcast\n  fix: give them equal batch dimensions, or 1 where one is shared") from None
    return A.expand(*batch, *A.shape[-2:]), B.expand(*batch, *B.shape[-2:])


def first_failure(bad: Tensor):
    """(flat batch index, matrix index) of the first batch element whose flag row `bad` [..., n]
    holds True, or None."""
    if bad.numel() == 0:  # empty matrices, or an empty batch: nothing failed
        return None
    flags = bad.numpy(force=True).reshape(-1, bad.shape[-1])
    rows = np.nonzero(flags.any(axis=1))[0]
    if rows.size == 0:
        return None
    b = int(rows[0])
    return b, int(np.argmax(flags[b]))


def batch_prefix(A: Tensor, b: int) -> str:
    return f"(Batch element {b}): " if A.ndim > 2 else ""


def check_same_dtype(A: Tensor, B: Tensor, message: str) -> None:
    """PyTorch's solvers refuse a right-hand side of another dtype; message has {a} and {b} for
    PyTorch's names of A's and B's dtypes."""
    if A.dtype != B.dtype:
        a = _TORCH_NAMES.get(plain(A.dtype).split(".")[-1], plain(A.dtype))
        b = _TORCH_NAMES.get(plain(B.dtype).split(".")[-1], plain(B.dtype))
        raise _C.DTypeError(message.format(a=a, b=b) + "\n  fix: convert one of them, e.g. B.to(A.dtype)")


def into(out, y: Tensor, name: str = "linalg") -> Tensor:
    """y, or y written into out (the functions' out=, as PyTorch's: out is resized to y's shape
    and must have y's dtype; refused where y needs gradients)."""
    if out is None:
        return y
    return write_out(out, y, name, same_dtype=True)


def into_each(out, result, name: str = "linalg"):
    """result (a NamedTuple of tensors), or each of its tensors written into out's (a tuple result's
    out=, each as into writes it), as result's type."""
    if out is None:
        return result
    return write_outs(out, result, name, same_dtype=True)
