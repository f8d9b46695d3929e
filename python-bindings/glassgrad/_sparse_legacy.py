"""torch.sparse.FloatTensor and the other legacy sparse constructors, deprecated in PyTorch but
still in older graph scripts (`torch.sparse.FloatTensor(indices, values, shape)` builds a GCN's
adjacency). Each call warns with PyTorch's UserWarning naming torch.sparse_coo_tensor and returns
what sparse_coo_tensor returns (sparse.py, docs/porting.md "Sparse tensors"):

    X(indices, values, size)  indices [ndim, nnz], values [nnz]; values keep their own dtype, as
    X(indices, values)        PyTorch's do (the class names only the empty forms' dtype); size
                              defaults to the smallest that holds every index
    X(*sizes), X(size)        no entries, of the class's dtype
    X()                       no entries, size (0,)

isinstance(t, torch.sparse.FloatTensor) is true for a sparse tensor of that dtype on the CPU."""
from __future__ import annotations

import warnings

import numpy as np

import glassgrad as _gg

from ._dtypes import DTYPES

_DEPRECATED = "torch.sparse.SparseTensor({old}) is deprecated.  Please use torch.sparse_coo_tensor({new})."
_FORMS = (" * (*, torch.device device = None)\n"
          " * (Tensor indices, Tensor values, *, torch.device device = None)\n"
          " * (Tensor indices, Tensor values, tuple of ints size, *, torch.device device = None)\n"
          " * (tuple of ints size, *, torch.device device = None)\n")


def _size(args):
    """The sizes of X(2, 3) or X((2, 3)) / X(torch.Size([2, 3])), or None for another form."""
    sizes = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
    if all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in sizes):
        return tuple(int(s) for s in sizes)
    return None


class _SparseTypedMeta(type):
    _dtype: "object"

    def __instancecheck__(cls, obj):
        from .sparse import SparseTensor
        return isinstance(obj, SparseTensor) and obj.dtype == cls._dtype and obj.device.type == "cpu"

    def __call__(cls, *args, device=None):
        from .sparse import sparse_coo_tensor
        tensors = [isinstance(a, _gg.Tensor) for a in args]
        if len(args) in (2, 3) and tensors[:2] == [True, True]:
            if len(args) == 3 and (not isinstance(args[2], (tuple, list)) or _size(tuple(args[2])) is None):
                raise TypeError(f"{cls.__name__}(): argument 'size' must be a tuple of ints, but got "
                                f"{type(args[2]).__name__}\n  fix: torch.sparse_coo_tensor(indices, values, "
                                f"(rows, cols))")
            old = "indices, values, shape" if len(args) == 3 else "indices, values"
            warnings.warn(_DEPRECATED.format(old=old + ", *, device=", new=old + ", dtype=, device="), UserWarning,
                          stacklevel=2)
            size = tuple(int(s) for s in args[2]) if len(args) == 3 else None
            return sparse_coo_tensor(args[0], args[1], size, device=device)
        size = _size(args) if not any(tensors) else None
        if size is None:
            got = ", ".join(type(a).__name__ if not isinstance(a, _gg.Tensor) else "Tensor" for a in args)
            raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected one "
                            f"of:\n{_FORMS}  torch.sparse.{cls.__name__}\n  fix: torch.sparse_coo_tensor(indices, "
                            f"values, size) with indices an int64 tensor [ndim, nnz] and values a tensor [nnz]")
        if not args:
            warnings.warn(_DEPRECATED.format(old="", new="(0,), dtype="), UserWarning, stacklevel=2)
            size = (0,)
        else:
            warnings.warn(_DEPRECATED.format(old="shape, *, device=", new="shape, dtype=, device="), UserWarning,
                          stacklevel=2)
        indices = _gg.zeros(len(size), 0, dtype=_gg.int64)
        return sparse_coo_tensor(indices, _gg.zeros(0, dtype=cls._dtype), size, device=device)


def _sparse_typed(name: str, dtype: str):
    return _SparseTypedMeta(name, (), {"_dtype": DTYPES[dtype], "dtype": DTYPES[dtype], "is_sparse": True,
                                       "__module__": "glassgrad.sparse",
                                       "__doc__": f"torch.sparse.{name} (deprecated): a sparse COO tensor; "
                                       f"{name}(indices, values, size) or {name}(*sizes) for an empty one of {dtype}."})


_NAMES = {"FloatTensor": "float32", "DoubleTensor": "float64", "HalfTensor": "float16", "BFloat16Tensor": "bfloat16",
          "LongTensor": "int64", "IntTensor": "int32", "ShortTensor": "int16", "CharTensor": "int8",
          "ByteTensor": "uint8"}
FloatTensor, DoubleTensor, HalfTensor, BFloat16Tensor, LongTensor, IntTensor, ShortTensor, CharTensor, ByteTensor = (
    _sparse_typed(name, dt) for name, dt in _NAMES.items())
