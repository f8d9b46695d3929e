"""torch.nn.functional.unfold (im2col) and fold (col2im) for 2 spatial dims, composed from a
zero pad, a window table of flat indices and index_select / index_add, so each one's gradient is
the other (index_select's rule is an index_add, and index_add's is an index_select).

The table: for kernel offset (i, j) and block l at (row r, column c) of the output grid, the
padded input's flat position (r * stride_h + i * dilation_h) * W_p + c * stride_w + j * dilation_w;
blocks are counted over the grid floor((H + 2 p_h - d_h (k_h - 1) - 1) / s_h) + 1 (and for W),
as PyTorch documents for nn.Unfold.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Tuple

import numpy as np

from . import _C, _args
from ._factories import zeros
from ._indexing import index_add, index_select
from ._padding import pad
from ._tensor import Tensor, _op, tensor
from ._torch_operands import named_node


class FoldShapeError(_C.ShapeError, RuntimeError):
    """fold/unfold's shape checks: PyTorch raises RuntimeErrors there, glassgrad's shape errors are
    ValueErrors; this is both."""


def _arguments(kernel_size, dilation, padding, stride, where: str):
    return (_args.int_pair(kernel_size, "kernel_size", where, 1), _args.int_pair(dilation, "dilation", where, 1),
            _args.int_pair(padding, "padding", where, 0), _args.int_pair(stride, "stride", where, 1))


def _grid(size: Tuple[int, int], k, d, p, s, where: str) -> Tuple[int, int]:
    blocks = tuple((n + 2 * pp - dd * (kk - 1) - 1) // ss + 1 for n, kk, dd, pp, ss in zip(size, k, d, p, s))
    if min(blocks) < 1:
        raise FoldShapeError(f"{where}: the kernel {k} (dilation {d}) does not fit in the padded input {list(size)} "
                            f"(padding {p}): the grid of blocks would be {blocks}\n  fix: more padding, or a smaller "
                            f"kernel_size or dilation")
    return blocks


@lru_cache(maxsize=64)
def _table(size: Tuple[int, int], k, d, p, s) -> np.ndarray:
    """Flat indices into the padded (H_p * W_p) plane, ordered (i, j, block row, block column)."""
    bh, bw = _grid(size, k, d, p, s, "unfold")
    wp = size[1] + 2 * p[1]
    i = np.arange(k[0]).reshape(-1, 1, 1, 1) * d[0] + np.arange(bh).reshape(1, 1, -1, 1) * s[0]
    j = np.arange(k[1]).reshape(1, -1, 1, 1) * d[1] + np.arange(bw).reshape(1, 1, 1, -1) * s[1]
    return (i * wp + j).reshape(-1).astype(np.int64)


def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """PyTorch's F.unfold: sliding blocks of a (N, C, H, W) or (C, H, W) input as columns,
    (N, C * k_h * k_w, L) (or without N), L the number of blocks."""
    where = "unfold"
    k, d, p, s = _arguments(kernel_size, dilation, padding, stride, where)
    if input.ndim < 3:  # PyTorch reads dims 1 and 2 before it checks the rank
        _args.absent_dim(where, input.shape, max(input.ndim, 1), "(N, C, H, W) or (C, H, W) input")
    if input.ndim != 3 and input.ndim != 4:
        raise FoldShapeError(f"{where}: Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other "
                             f"non-zero dimensions for input, but got: {list(input.shape)}\n  cause: only 3D or 4D "
                             f"input tensors are supported (got {input.ndim}D)\n  fix: (N, C, H, W) or (C, H, W)")
    x = input.reshape(1, *input.shape) if input.ndim == 3 else input
    n, c, h, w = x.shape
    _grid((h, w), k, d, p, s, where)
    table = _table((h, w), k, d, p, s)
    padded = pad(x, (p[1], p[1], p[0], p[0])) if any(p) else x
    # explicit sizes, no -1: a batch of 0 has 0 elements, where -1 would be ambiguous
    flat = padded.reshape(n, c, padded.shape[2] * padded.shape[3])
    blocks = len(table) // (k[0] * k[1])
    index = tensor(table, device=x.device)
    if flat.requires_grad:  # PyTorch's node saves no tensor (Im2ColBackward0): the table is a constant
        cols = _op("IndexSelect", [flat, index], {"dim": 2, "torch_saves": 0.0}).reshape(n, c * k[0] * k[1], blocks)
    else:
        cols = index_select(flat, 2, index).reshape(n, c * k[0] * k[1], blocks)
    if input.ndim == 3:
        return cols.reshape(*cols.shape[1:])
    return named_node(cols, "Im2ColBackward0", input)


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """PyTorch's F.fold: columns (N, C * k_h * k_w, L) (or without N) summed back into an image
    (N, C, H, W) of output_size, overlapping values added (unfold's adjoint)."""
    where = "fold"
    k, d, p, s = _arguments(kernel_size, dilation, padding, stride, where)
    size = _args.int_pair(output_size, "output_size", where, 1)
    if input.ndim not in (2, 3):
        raise FoldShapeError(f"{where}: Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size "
                             f"and non-zero dimensions for input, but got: {list(input.shape)}\n  cause: only "
                             f"unbatched (2D) or batched (3D) input tensors are supported (got {input.ndim}D)\n"
                             f"  fix: (N, C * k_h * k_w, L)")
    x = input.reshape(1, *input.shape) if input.ndim == 2 else input
    n, ck, blocks = x.shape
    bh, bw = _grid(size, k, d, p, s, where)
    if ck % (k[0] * k[1]) != 0:
        raise FoldShapeError(f"{where}: Expected size of input's dimension 1 to be divisible by the product of "
                            f"kernel_size, but got input.size(1)={ck} and kernel_size={k}\n  fix: C * {k[0] * k[1]} "
                            f"rows, one per channel and kernel offset")
    if blocks != bh * bw:
        raise FoldShapeError(f"{where}: Given output_size={size}, kernel_size={k}, dilation={d}, padding={p}, "
                            f"stride={s}, expected size of input's dimension 2 to match the calculated number of "
                            f"sliding blocks {bh} * {bw} = {bh * bw}, but got input.size(2)={blocks}\n  fix: the "
                            f"output_size the columns were unfolded from")
    c = ck // (k[0] * k[1])
    hp, wp = size[0] + 2 * p[0], size[1] + 2 * p[1]
    table = tensor(_table(size, k, d, p, s), device=x.device)
    base = zeros(n, c, hp * wp, dtype=x.dtype, device=x.device)
    if x.requires_grad:  # PyTorch's node saves no tensor (Col2ImBackward0): the table is a constant
        plane = _op("IndexAdd", [base, table, x.reshape(n, c, ck // c * blocks)], {"dim": 2, "torch_saves": 0.0})
    else:
        plane = index_add(base, 2, table, x.reshape(n, c, ck // c * blocks))
    out = plane.reshape(n, c, hp, wp)
    if any(p):
        out = out[:, :, p[0]:p[0] + size[0], p[1]:p[1] + size[1]]
    # PyTorch's one node of the input, batched or not
    return named_node(out.reshape(*out.shape[1:]) if input.ndim == 2 else out, "Col2ImBackward0", input)
