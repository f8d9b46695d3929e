"""torch.linalg's norms: vector_norm, matrix_norm, norm (composites of reductions; docs/linalg.md);
the matrix norms of singular values ('nuc', 2, -2) through linalg.svdvals."""
from __future__ import annotations

import math
import numbers

from .. import _C
from .._reductions import no_narrowing as _no_narrowing, norm as _pnorm
from .._tensor import Tensor, _dim
from ._checks import into, check_float


def _dims(dim):
    return tuple(dim) if isinstance(dim, (tuple, list)) else dim


def vector_norm(x: Tensor, ord=2, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """torch.linalg.vector_norm: the ord-norm of x over dim (all axes when None) as a vector: 2 (the
    default; gradient 0 at a zero vector), 1, inf, -inf, 0 (the count of nonzeros) or any number.
    float16 and bfloat16 accumulate in float32, the result rounded to their dtype, as PyTorch's.
    An integer or bool x is refused, dtype= or not, as PyTorch refuses it."""
    if not x.dtype.is_floating_point:
        check_float(x, "vector_norm")
    _no_narrowing(x, dtype, "linalg.vector_norm")
    low = x if dtype is None else x.to(dtype)
    if low.dtype in ("float16", "bfloat16"):
        return into(out, vector_norm(low.float(), ord, dim, keepdim).to(low.dtype), "linalg.vector_norm")
    check_float(x if dtype is None else x.to(dtype), "vector_norm")
    if isinstance(ord, str) or ord is None:  # PyTorch's argument parser: a TypeError
        raise TypeError(f"linalg_vector_norm(): argument 'ord' must be Number, not {type(ord).__name__}\n"
                        "  fix: 'fro' and 'nuc' are matrix norms: linalg.matrix_norm; the default is ord=2")
    x = x.to(dtype) if dtype is not None else x
    scalar = x.ndim == 0  # reduced as a 1-element vector (dims 0 and -1); the result stays 0-d, keepdim or not
    if scalar:
        x = x.reshape(1)
    dims = _dims(dim)
    reduced = range(x.ndim) if dims is None else [dims] if isinstance(dims, int) else dims
    if ord < 0 and any(x.shape[d] == 0 for d in reduced):  # (inf: amax refuses it the same way)
        from .._reductions import EmptyReductionError
        raise EmptyReductionError(
            f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor because the operation does not have "
            f"an identity\n  x: {list(x.shape)}, reduced over {list(reduced)}\n  fix: a negative ord needs at least "
            "one element in each reduced axis")
    y = _pnorm(x, ord, dims, keepdim)
    return into(out, y.reshape(()) if scalar and y.ndim else y)


def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """torch.linalg.matrix_norm over the two axes dim: 'fro', 1 / -1 (max / min column sum of |a|),
    inf / -inf (max / min row sum), 'nuc' (sum of the singular values), 2 / -2 (largest / smallest)."""
    if ord is None or isinstance(ord, bool) or not isinstance(ord, (str, numbers.Number)):  # PyTorch: a TypeError
        raise TypeError(f"linalg_matrix_norm(): argument 'ord' must be a number or 'fro' / 'nuc', not "
                        f"{type(ord).__name__}\n  fix: leave ord out for the Frobenius norm (ord='fro')")
    if not A.dtype.is_floating_point:  # refused before dtype= converts it, as PyTorch's
        check_float(A, "matrix_norm")
    _no_narrowing(A, dtype, "linalg.matrix_norm")
    A = A.to(dtype) if dtype is not None else A
    if A.dtype in ("float16", "bfloat16") and (ord == "fro" or ord in (1, -1, math.inf, -math.inf)):
        # the norms of sums take float16 and bfloat16, accumulated in float32 and rounded back, as
        # PyTorch's (vector_norm's way); those of singular values refuse them below
        return into(out, matrix_norm(A.float(), ord, dim, keepdim).to(A.dtype), "linalg.matrix_norm")
    check_float(A, "matrix_norm")
    if A.ndim < 2:
        raise _C.ShapeError(f"linalg.matrix_norm: The input tensor A must have at least 2 dimensions. Got shape "
                            f"{list(A.shape)}\n  fix: linalg.vector_norm for a vector")
    d0, d1 = (_dim(d, A.ndim, "linalg.matrix_norm", A.shape) for d in dim)  # out of range: IndexError
    if d0 == d1:
        raise _C.InvalidArgumentError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    if ord == "fro":
        y = _pnorm(A, 2, (d0, d1), keepdim)
    elif ord in (1, -1, math.inf, -math.inf):
        inner, outer = (d0, d1) if ord in (1, -1) else (d1, d0)
        s = A.abs().sum(inner, keepdim=True)
        # a positive order of an empty matrix is 0, as PyTorch's (a negative one is refused by amin)
        if ord in (1, math.inf):
            y = s.sum(outer, keepdim=True) if s.shape[outer] == 0 else s.amax(outer, keepdim=True)
        else:
            y = s.amin(outer, keepdim=True)
        if not keepdim:
            y = y.squeeze(max(d0, d1)).squeeze(min(d0, d1))
    elif ord in ("nuc", 2, -2):
        from ._spectral import svdvals
        moved = A.movedim((d0, d1), (-2, -1))
        s = svdvals(moved)
        empty = s.shape[-1] == 0  # no singular values: 'nuc' and 2 give 0, as PyTorch's; -2 is refused
        y = s.sum(-1) if ord == "nuc" or (ord == 2 and empty) else s.amax(-1) if ord == 2 else s.amin(-1)
        if keepdim:
            y = y.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1))
    else:
        raise _C.InvalidArgumentError(f"linalg.matrix_norm: Order {ord} not supported.\n  fix: one of 'fro', "
                                      "'nuc', 1, -1, 2, -2, inf, -inf")
    return into(out, y)


def norm(input: Tensor, ord=None, dim=None, keepdim: bool = False, *, out=None, dtype=None) -> Tensor:
    """torch.linalg.norm: a vector norm when dim is an int (or input is 1-D), a matrix norm when dim is
    a pair (or input is 2-D and ord is given); with neither ord nor dim, the 2-norm of input flattened."""
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if isinstance(ord, str) and len(dims) != 2:  # 'fro' and 'nuc' are matrix norms, as PyTorch takes them
            raise _C.InvalidArgumentError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {len(dims)}\n"
                                          f"  linalg.norm: ord={ord!r} is a matrix norm\n  fix: dim=(-2, -1)")
        if len(dims) == 1:
            return vector_norm(input, 2 if ord is None else ord, dims[0], keepdim, dtype=dtype, out=out)
        if len(dims) == 2:
            return matrix_norm(input, "fro" if ord is None else ord, dims, keepdim, dtype=dtype, out=out)
        raise _C.InvalidArgumentError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {dim}")
    if ord is None:
        return vector_norm(input, 2, None, keepdim, dtype=dtype, out=out)
    if input.ndim == 1 and not isinstance(ord, str):
        return vector_norm(input, ord, None, keepdim, dtype=dtype, out=out)
    if input.ndim == 2 or isinstance(ord, str):  # (a vector's 'fro' is matrix_norm's error, as PyTorch's)
        return matrix_norm(input, ord, (-2, -1), keepdim, dtype=dtype, out=out)
    raise _C.ShapeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                        f"{input.ndim}D.\n  fix: pass dim")
