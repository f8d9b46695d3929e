"""torch.sparse's COO layout, the part graph networks use: a sparse matrix times a dense one.
sparse_coo_tensor(indices, values, size) keeps indices [ndim, nnz] (int64) and values [nnz]; mm
is out[r] += values[k] * dense[c] for every entry (r, c) = indices[:, k], computed from
index_select, mul and index_add, so it runs on every device those run on and gradients reach
both the values and the dense operand (PyTorch's torch.sparse.mm gradient: grad_values[k] =
(grad_out[r] . dense[c]), grad_dense = S^T grad_out). Ops the layout lacks raise naming the op
and the fix `.to_dense()`."""
from __future__ import annotations

from typing import Union

import numpy as np

import glassgrad as _gg
from glassgrad import Tensor


from . import _C
from ._layouts import sparse_coo, strided  # noqa: F401  (torch.sparse_coo, torch.strided)
from ._sparse_legacy import (BFloat16Tensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor,  # noqa: F401
                             HalfTensor, IntTensor, LongTensor, ShortTensor)  # (torch.sparse.FloatTensor, ...)
from ._tensor import host_values


class SparseTensor:
    """A COO tensor of any number of sparse dimensions with scalar values (torch.sparse_coo)."""
    is_sparse = True
    layout = sparse_coo

    def __init__(self, indices, values, size, coalesced=False):
        self._idx, self._vals = indices, values
        self.shape = tuple(int(s) for s in size)
        self._coalesced = coalesced

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[dim]

    def dim(self):
        return len(self.shape)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def dtype(self):
        return self._vals.dtype

    @property
    def device(self):
        return self._vals.device

    @property
    def requires_grad(self):
        return self._vals.requires_grad

    def _nnz(self):
        return int(self._vals.shape[0])

    def is_coalesced(self):
        return self._coalesced

    def _need_coalesced(self, op):
        if not self._coalesced:
            raise RuntimeError(f"Cannot get {op} on an uncoalesced tensor, please call .coalesce() first "
                               f"(sparse_coo tensor of size {list(self.shape)}, nnz {self._nnz()})")

    def indices(self):
        self._need_coalesced("indices")
        return self._idx

    def values(self):
        self._need_coalesced("values")
        return self._vals

    def _indices(self):
        """The indices as stored, coalesced or not (PyTorch's Tensor._indices())."""
        return self._idx

    def _values(self):
        """The values as stored, coalesced or not (PyTorch's Tensor._values()); a view that keeps
        the gradient path to them."""
        return self._vals

    def _flat(self):
        """Row-major linear position of every entry, as an int64 NumPy array."""
        idx = self._idx.numpy(force=True).astype(np.int64)
        return np.ravel_multi_index(tuple(idx), self.shape) if idx.shape[1] else np.zeros(0, np.int64)

    def coalesce(self):
        """Entries sorted by index, duplicates summed (torch's coalesce); differentiable in values."""
        if self._coalesced:
            return self
        flat = self._flat()
        uniq, where = np.unique(flat, return_inverse=True)
        idx = np.stack(np.unravel_index(uniq, self.shape)).astype(np.int64).reshape(len(self.shape), -1)
        summed = _gg.zeros(len(uniq), dtype=self._vals.dtype, device=self._vals.device).index_add(
            0, _gg.tensor(where.astype(np.int64), device=self._vals.device), self._vals)
        return SparseTensor(_gg.tensor(idx, device=self._vals.device), summed, self.shape, coalesced=True)

    def to_dense(self):
        """The strided tensor; differentiable in values."""
        n = int(np.prod(self.shape))
        flat = _gg.tensor(self._flat(), device=self._vals.device)
        dense = _gg.zeros(n, dtype=self._vals.dtype, device=self._vals.device).index_add(0, flat, self._vals)
        return dense.reshape(self.shape)

    def t(self):
        if len(self.shape) != 2:
            raise RuntimeError(f"t() expects a 2-D sparse tensor, got size {list(self.shape)}")
        idx = self._idx.numpy(force=True)[::-1].copy()
        return SparseTensor(_gg.tensor(idx, device=self._vals.device), self._vals, self.shape[::-1])

    def to(self, *args, **kwargs):
        return SparseTensor(self._idx.to(*args, **kwargs), self._vals.to(*args, **kwargs), self.shape,
                            self._coalesced)

    def __matmul__(self, other):
        return _gg.matmul(self, other)

    def mm(self, mat2):
        return _gg.mm(self, mat2)

    def matmul(self, other):
        return _gg.matmul(self, other)

    def __rmatmul__(self, other):
        return _gg.matmul(other, self)

    def __add__(self, other):
        """sparse + dense is dense (torch's rule); sparse + sparse stays sparse."""
        if isinstance(other, SparseTensor):
            return SparseTensor(_gg.cat([self._idx, other._idx], 1), _gg.cat([self._vals, other._vals]),
                                self.shape)
        return self.to_dense() + other

    def __radd__(self, other):
        return other + self.to_dense()

    def __repr__(self):
        return (f"tensor(indices={self._idx!r},\n       values={self._vals!r},\n       "
                f"size={self.shape}, nnz={self._nnz()}, layout=torch.sparse_coo)")

    def __getattr__(self, name):
        raise NotImplementedError(f"{name} is not supported for a sparse_coo tensor of size {list(self.shape)} "
                                  f"(glassgrad's sparse layout has to_dense, coalesce, indices, values, t, "
                                  f"torch.sparse.mm, torch.sparse.sum)\n  fix: call .to_dense() first")


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, requires_grad=False):
    """torch.sparse_coo_tensor: indices [ndim, nnz], values [nnz]; size defaults to the smallest
    that holds every index. Bad indices or values are PyTorch's RuntimeError (a ShapeError, also
    the ValueError earlier glassgrad raised)."""
    idx = np.asarray(indices.numpy(force=True) if isinstance(indices, Tensor) else indices, dtype=np.int64)
    if idx.ndim != 2:
        raise _C.ShapeError(f"sparse_coo_tensor: indices must be [ndim, nnz], got shape {list(idx.shape)}")
    vals = values if isinstance(values, Tensor) else _gg.tensor(np.asarray(values), dtype=dtype)
    if dtype is not None and vals.dtype != dtype:
        vals = vals.to(dtype)
    if device is not None:
        vals = vals.to(device)
    if vals.ndim != 1 or vals.shape[0] != idx.shape[1]:
        raise _C.ShapeError(f"sparse_coo_tensor: values must be [nnz] = [{idx.shape[1]}], got {list(vals.shape)} "
                            f"(only scalar values are supported)")
    if size is None:
        size = tuple(int(m) + 1 for m in idx.max(axis=1)) if idx.shape[1] else (0,) * idx.shape[0]
    if len(size) != idx.shape[0] or (idx.shape[1] and (idx.min() < 0 or (idx.max(axis=1) >= np.asarray(size)).any())):
        raise _C.ShapeError(f"sparse_coo_tensor: indices out of bounds for size {list(size)}")
    if requires_grad:
        vals = vals.detach().requires_grad_(True)
    return SparseTensor(_gg.tensor(idx, device=vals.device), vals, size)


def to_sparse(dense: Tensor) -> SparseTensor:
    """Tensor.to_sparse(): the nonzero entries, coalesced; differentiable in the entries kept."""
    nz = np.stack(np.nonzero(host_values(dense))).astype(np.int64)
    flat = np.ravel_multi_index(tuple(nz), tuple(dense.shape)) if nz.shape[1] else np.zeros(0, np.int64)
    vals = dense.reshape(-1).index_select(0, _gg.tensor(flat, device=dense.device))
    return SparseTensor(_gg.tensor(nz, device=dense.device), vals, tuple(dense.shape), coalesced=True)


def mm(sparse: SparseTensor, dense: Tensor) -> Tensor:
    """torch.sparse.mm(sparse [n, m], dense [m, p]) -> dense [n, p]."""
    if not isinstance(sparse, SparseTensor):
        return _gg.mm(sparse, dense)
    if sparse.ndim != 2 or dense.ndim != 2 or sparse.shape[1] != dense.shape[0]:
        raise RuntimeError(f"torch.sparse.mm: sparse {list(sparse.shape)} and dense {list(tuple(dense.shape))} "
                           f"cannot be multiplied (need [n, m] @ [m, p])")
    rows, cols = sparse._idx[0], sparse._idx[1]
    picked = dense.index_select(0, cols) * sparse._vals.reshape(-1, 1)
    out = _gg.zeros(sparse.shape[0], dense.shape[1], dtype=picked.dtype, device=dense.device)
    return out.index_add(0, rows, picked)


spmm = mm


def sum(input: SparseTensor, dim=None) -> Union[Tensor, SparseTensor]:  # torch.sparse.sum's name
    """torch.sparse.sum over every dimension (a scalar tensor) or over dim (a sparse tensor, as
    PyTorch's, or a scalar tensor when dim names every dimension)."""
    if dim is None:
        return input._vals.sum()
    dims = [dim] if isinstance(dim, int) else list(dim)
    out = input.to_dense().sum(dims if len(dims) > 1 else dims[0])
    return out if out.ndim == 0 else to_sparse(out)
