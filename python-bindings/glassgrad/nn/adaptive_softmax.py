"""AdaptiveLogSoftmaxWithLoss (torch.nn.AdaptiveLogSoftmaxWithLoss; Grave et al. 2016, "Efficient
softmax approximation for GPUs"): the classes split by `cutoffs` into a shortlist, scored by the
head with one extra logit per cluster, and clusters, each scored by its own two-layer projection
(in_features -> in_features // div_value ** (i + 1) -> the cluster's size, no biases).

log p(c) = head_logprob[c] for c in the shortlist, and head_logprob[cluster] + the cluster's
log_softmax[c - cutoff] otherwise. forward(input, target) returns PyTorch's namedtuple
_ASMoutput(output = log p(target) per row, loss = mean of -output); log_prob(input) gives every
class's, predict(input) the most probable class. Parameters carry PyTorch's names (head.weight,
head.bias with head_bias, tail.<i>.0.weight, tail.<i>.1.weight), so state_dicts load both ways.

Each cluster's rows are picked by the targets (read on the host, as PyTorch's nonzero does), so
the composite runs on any device: index_select, log_softmax, gather and index_add."""
from __future__ import annotations

from collections import namedtuple
from typing import List, Sequence

import numpy as np

from .. import _args
from .._tensor import Tensor, tensor
from ..functional import cat, log_softmax
from .container import ModuleList
from .layers import Linear, Sequential
from .module import Module, layer_name

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    def __init__(self, in_features: int, n_classes: int, cutoffs: Sequence[int], div_value: float = 4.0,
                 head_bias: bool = False, device=None, dtype=None):
        super().__init__()
        name = type(self).__name__
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError(f"cutoffs should be a sequence of length larger than 0\n  {name}: got cutoffs=[]; fix: "
                             f"cutoffs=[{max(1, n_classes // 4)}] (the shortlist's size; the rest one cluster)")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1\n  "
                             f"{name}: got cutoffs={cutoffs} with n_classes={n_classes}; fix: e.g. cutoffs="
                             f"[{max(1, n_classes // 4)}, {max(2, n_classes // 2)}] for n_classes >= 3")
        self.in_features = _args.integer(in_features, "in_features", name, minimum=1)
        self.n_classes = _args.integer(n_classes, "n_classes", name, minimum=2)
        self.cutoffs: List[int] = [int(c) for c in cutoffs] + [self.n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(self.in_features, self.head_size, bias=self.head_bias, device=device, dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hsz = int(self.in_features // (self.div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            # hsz may be 0, as in PyTorch: a projection of 0 features scores the cluster's classes uniformly
            self.tail.append(Sequential(Linear(self.in_features, hsz, bias=False, device=device, dtype=dtype),
                                        Linear(hsz, osz, bias=False, device=device, dtype=dtype)))

    def reset_parameters(self) -> None:
        """The head's and every projection's initialization again (PyTorch's)."""
        self.head.reset_parameters()
        for layer in self.tail.modules():
            if isinstance(layer, Linear):
                layer.reset_parameters()

    def _targets(self, input: Tensor, target: Tensor):
        """(input as (N, in_features), target as (N,), batched), with PyTorch's checks."""
        where = layer_name(self)
        if target.ndim == 1:
            if input.shape[0] != target.shape[0]:
                raise RuntimeError("Input and target should have the same size in the batch dimension.\n  "
                                   f"{where}: input {list(input.shape)}, target {list(target.shape)}; fix: one target "
                                   "per row of the input")
            if input.ndim != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size "
                                   f"{input.shape}\n  {where}: fix: input of shape (N, {self.in_features})")
        elif target.ndim == 0:
            if input.ndim != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size "
                                   f"{input.shape}\n  {where}: fix: input of shape ({self.in_features},)")
        else:
            raise RuntimeError(f"0D or 1D target tensor expected, multi-target not supported\n  {where}: target "
                               f"{list(target.shape)}; fix: target.reshape(-1) with input.reshape(-1, "
                               f"{self.in_features})")
        if target.ndim == 0:
            return input.unsqueeze(0), target.unsqueeze(0)
        return input, target

    def forward(self, input_: Tensor, target_: Tensor) -> _ASMoutput:
        batched = target_.ndim > 0
        input_, target_ = self._targets(input_, target_)
        t = np.asarray(target_.numpy(force=True)).astype(np.int64)
        if t.size and (t.min() < 0 or t.max() > self.n_classes - 1):
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{t.min()}, {t.max()}] were found.\n  {layer_name(self)}: fix: class indices "
                               f"0 to n_classes - 1 = {self.n_classes - 1}")
        # The head's column for each row: its class in the shortlist, else its cluster's logit.
        cluster = np.searchsorted(np.asarray(self.cutoffs), t, side="right")  # 0: the shortlist
        head_column = np.where(cluster == 0, t, self.shortlist_size + cluster - 1)
        head_logprob = log_softmax(self.head(input_), dim=1)
        output = head_logprob.gather(1, tensor(head_column.reshape(-1, 1), device=input_.device)).squeeze(1)
        for i in range(1, len(self.cutoffs)):
            rows = np.nonzero(cluster == i)[0]
            if rows.size == 0:
                continue
            index = tensor(rows, device=input_.device)
            relative = tensor((t[rows] - self.cutoffs[i - 1]).reshape(-1, 1), device=input_.device)
            local = log_softmax(self.tail[i - 1](input_.index_select(0, index)), dim=1).gather(1, relative).squeeze(1)
            output = output.index_add(0, index, local)
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:
        head_logprob = log_softmax(head_output, dim=1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster_logprob = log_softmax(self.tail[i](input), dim=1)
            parts.append(cluster_logprob + head_logprob[:, self.shortlist_size + i:self.shortlist_size + i + 1])
        return cat(parts, 1)

    def log_prob(self, input: Tensor) -> Tensor:
        """The log-probability of every class, (N, n_classes), for input (N, in_features)."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input: Tensor) -> Tensor:
        """The most probable class of each row (int64, (N,)): log_prob(input).argmax(1), with the
        full distribution computed only for the rows whose head picks a cluster (PyTorch's)."""
        head_output = self.head(input)
        output = np.asarray(head_output.argmax(1).numpy(force=True)).astype(np.int64)
        outside = np.nonzero(output >= self.shortlist_size)[0]
        if outside.size:
            index = tensor(outside, device=input.device)
            full = self._full_log_prob(input.index_select(0, index), head_output.index_select(0, index))
            output[outside] = np.asarray(full.argmax(1).numpy(force=True))
        return tensor(output, device=input.device)
