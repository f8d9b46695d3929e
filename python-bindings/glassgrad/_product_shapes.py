"""The shape checks of the added products (addmm, addmv, addr, baddbmm, addbmm), in PyTorch's
order and with its error types (docs/porting.md): the input is expanded to the product's shape,
one way (it may gain leading dims and stretch size-1 dims, never the product), so an input of
more dims or of a size that only broadcasts the other way is PyTorch's RuntimeError; baddbmm and
addbmm read the batches' sizes to make that shape first, so a batch of too few dims is its
IndexError."""
from __future__ import annotations

from . import _C, _args


def input_expands(where: str, shape, target) -> None:
    """PyTorch's RuntimeError of input.expand(target) where `shape` (the input's) cannot expand to `target`."""
    shape, target = list(shape), list(target)
    fix = f"  fix: an input of shape {target} or one that broadcasts to it, e.g. input.sum(0)"
    if len(shape) > len(target):
        raise _C.ShapeError(f"expand({shape}, size={target}): the number of sizes provided ({len(target)}) must be "
                            f"greater or equal to the number of dimensions in the tensor ({len(shape)})\n  {where}: "
                            f"the input has more dims than the product\n{fix}")
    for back, (s, t) in enumerate(zip(reversed(shape), reversed(target))):
        if s not in (1, t):
            raise _C.ShapeError(f"The expanded size of the tensor ({t}) must match the existing size ({s}) at "
                                f"non-singleton dimension {len(target) - 1 - back}.  Target sizes: {target}.  Tensor "
                                f"sizes: {shape}\n  {where}: the input does not broadcast to the product's shape\n{fix}")


def batch_target(where: str, input, batch1, batch2, keep_batch: bool) -> None:
    """baddbmm's (keep_batch) or addbmm's check: the product's shape read from the batches
    ([B, n, p], or [n, p]), PyTorch's IndexError for a batch without the dim it reads, then
    the input's expansion to it."""
    fix = "batches of matrices, [B, n, m] and [B, m, p]"
    first = 0 if keep_batch else 1
    if batch1.ndim < 2:
        _args.absent_dim(f"{where} (batch1)", batch1.shape, max(batch1.ndim, first), fix)
    if batch2.ndim < 3:
        _args.absent_dim(f"{where} (batch2)", batch2.shape, 2, fix)
    target = ([batch1.shape[0]] if keep_batch else []) + [batch1.shape[1], batch2.shape[2]]
    input_expands(where, input.shape, target)


def addmv_operands(input, mat, vec) -> None:
    """addmv's check, PyTorch's RuntimeErrors: a vector (or 0-d) input, a matrix, a vector, then
    an input of size 1 or mat's rows."""
    if not (input.ndim <= 1 and mat.ndim == 2 and vec.ndim == 1):
        raise _C.ShapeError(f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, {vec.ndim}\n  addmv: "
                            f"shapes {list(input.shape)}, {list(mat.shape)}, {list(vec.shape)}\n  fix: addmv(input "
                            f"[n], mat [n, m], vec [m])")
    if input.ndim == 1 and input.shape[0] not in (1, mat.shape[0]):
        raise _C.ShapeError(f"size mismatch, got input ({input.shape[0]}), mat ({mat.shape[0]}x{mat.shape[1]}), vec "
                            f"({vec.shape[0]})\n  addmv: the input must have mat's {mat.shape[0]} rows\n  fix: "
                            f"addmv(input [n], mat [n, m], vec [m])")
