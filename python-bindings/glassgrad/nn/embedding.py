"""nn.Embedding and nn.EmbeddingBag with PyTorch's arguments, defaults, parameter (weight
[num_embeddings, embedding_dim], drawn from N(0, 1), padding_idx's row zeroed), repr and
from_pretrained (torch.nn.Embedding / EmbeddingBag); the lookups are F.embedding and
F.embedding_bag (glassgrad/_embedding.py)."""
from __future__ import annotations

from typing import Optional

import numpy as np

from .. import _args
from .._embedding import embedding, embedding_bag, padding_index
from .._random import generator
from .._tensor import Tensor, tensor
from .layers import _check_tensor, as_bfloat16, parameter_dtype
from .module import Module, Parameter


class _Table(Module):
    """What Embedding and EmbeddingBag share: the table, its padding row, the norm options."""

    def _table(self, name: str, num_embeddings, embedding_dim, padding_idx, max_norm, norm_type,
               scale_grad_by_freq, sparse, _weight, requires_grad: bool, device, dtype) -> None:
        where = _args.call(name, num_embeddings, embedding_dim)
        self.num_embeddings = _args.integer(num_embeddings, "num_embeddings", where)
        self.embedding_dim = _args.integer(embedding_dim, "embedding_dim", where)
        _args.weight_sizes(where, (self.num_embeddings, self.embedding_dim), num_embeddings=self.num_embeddings,
                           embedding_dim=self.embedding_dim)
        self.padding_idx = padding_index(padding_idx, self.num_embeddings, name)
        if max_norm is not None:
            _args.real(max_norm, "max_norm", where, minimum=0.0)
        _args.real(norm_type, "norm_type", where, as_float=True)
        self.max_norm, self.norm_type = max_norm, norm_type  # as given: the repr prints them as PyTorch's does
        # as given, as PyTorch keeps them: the lookup refuses a switch that is no bool (_embedding._flags)
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        shape = (self.num_embeddings, self.embedding_dim)
        if _weight is None:
            values = generator().standard_normal(shape).astype(parameter_dtype(dtype, where))
            if self.padding_idx is not None:
                values[self.padding_idx] = 0.0
            self.weight = Parameter(values, requires_grad, device=device)
            as_bfloat16(self, dtype)
        else:
            if tuple(_weight.shape) != shape:
                raise _args.AssertedShapeError(
                    f"Shape of weight does not match num_embeddings and embedding_dim\n  {where}: _weight has shape "
                    f"{list(_weight.shape)}, the layer {list(shape)}\n  fix: build the layer as "
                    f"{name}({_weight.shape[0]}, {_weight.shape[1]}), or use {name}.from_pretrained(weight)")
            self.weight = Parameter(_weight, requires_grad, device=device)

    def reset_parameters(self) -> None:
        """weight ~ N(0, 1), padding_idx's row zeros (PyTorch's reset_parameters)."""
        from .init import _fill
        values = generator().standard_normal(tuple(self.weight.shape))
        if self.padding_idx is not None:
            values[self.padding_idx] = 0.0
        _fill(self.weight, values)

    def _table_repr(self, s: str) -> str:
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm!r}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type!r}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq!r}"
        return s


def _pretrained(embeddings) -> Tensor:
    if not isinstance(embeddings, Tensor):
        embeddings = tensor(np.asarray(embeddings))
    if embeddings.ndim != 2:
        raise _args.AssertedShapeError(f"Embeddings parameter is expected to be 2-dimensional\n  from_pretrained: "
                                       f"got {embeddings.ndim}-d {list(embeddings.shape)}\n  fix: pass the table "
                                       f"[num_embeddings, embedding_dim]")
    return embeddings


class Embedding(_Table):
    """A lookup table: input indices (any shape, int64 or int32) -> their rows [*, embedding_dim]
    (PyTorch's nn.Embedding)."""

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: Optional[int] = None,
                 max_norm: Optional[float] = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                 sparse: bool = False, _weight: Optional[Tensor] = None, _freeze: bool = False, device=None,
                 dtype=None) -> None:
        super().__init__()
        self._table("Embedding", num_embeddings, embedding_dim, padding_idx, max_norm, norm_type,
                    scale_grad_by_freq, sparse, _weight, not _freeze, device, dtype)

    def forward(self, input: Tensor) -> Tensor:
        _check_tensor(self, input)
        return embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                         self.scale_grad_by_freq, self.sparse)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        s = self._table_repr(s)
        return s + (", sparse=True" if self.sparse is not False else "")

    @classmethod
    def from_pretrained(cls, embeddings, freeze: bool = True, padding_idx: Optional[int] = None,
                        max_norm: Optional[float] = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        sparse: bool = False) -> "Embedding":
        """An Embedding holding a copy of the 2-d `embeddings` (frozen unless freeze=False)."""
        embeddings = _pretrained(embeddings)
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx=padding_idx, max_norm=max_norm, norm_type=norm_type,
                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse, _weight=embeddings, _freeze=freeze)


class EmbeddingBag(_Table):
    """Sums, means or maxima of bags of rows (PyTorch's nn.EmbeddingBag): a 2-D input is one
    bag per row; a 1-D input with offsets is bags one after another."""

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm: Optional[float] = None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                 _weight: Optional[Tensor] = None, include_last_offset: bool = False,
                 padding_idx: Optional[int] = None, device=None, dtype=None) -> None:
        super().__init__()
        self._table("EmbeddingBag", num_embeddings, embedding_dim, padding_idx, max_norm, norm_type,
                    scale_grad_by_freq, sparse, _weight, True, device, dtype)
        self.mode = mode
        self.include_last_offset = include_last_offset

    def forward(self, input: Tensor, offsets: Optional[Tensor] = None,
                per_sample_weights: Optional[Tensor] = None) -> Tensor:
        _check_tensor(self, input)
        return embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                             self.mode, self.sparse, per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self) -> str:
        s = self._table_repr(f"{self.num_embeddings}, {self.embedding_dim}") + f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze: bool = True, max_norm: Optional[float] = None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean",
                        sparse: bool = False, include_last_offset: bool = False,
                        padding_idx: Optional[int] = None) -> "EmbeddingBag":
        """An EmbeddingBag holding a copy of the 2-d `embeddings` (frozen unless freeze=False)."""
        embeddings = _pretrained(embeddings)
        rows, cols = embeddings.shape
        bag = cls(rows, cols, max_norm=max_norm, norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq,
                  mode=mode, sparse=sparse, _weight=embeddings, include_last_offset=include_last_offset,
                  padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag
