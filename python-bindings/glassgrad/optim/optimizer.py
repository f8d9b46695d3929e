"""Optimizer base: step() records one in-place update node per parameter (with its state:
momentum buffers, Adam moments, step counts) and realizes the whole training step in one plan.
The learning rate is a 0-d tensor, so changing it does not change the plan."""
from __future__ import annotations

from typing import Dict, Iterable, List, Tuple

import numpy as np

from .. import _C
from .._tensor import Tensor, _op_multi, _wrap
from .._trace import record, scope


class Optimizer:
    def __init__(self, params: Iterable[Tensor], lr: float):
        self.params: List[Tensor] = list(params)
        if not self.params:
            raise _C.InvalidArgumentError(
                f"{type(self).__name__} got an empty parameter list\n"
                "  cause: model.parameters() is empty (layers assigned before super().__init__()?) or a "
                "generator was already consumed\n  fix: pass list(model.parameters())")
        for i, p in enumerate(self.params):
            if not isinstance(p, Tensor) or not p.requires_grad or not p.is_leaf:
                raise _C.InvalidArgumentError(
                    f"{type(self).__name__}: parameter {i} is not a trainable leaf tensor\n"
                    "  fix: pass model.parameters() (Parameters require gradients)")
        if lr < 0:
            raise _C.InvalidArgumentError(f"{type(self).__name__}: lr must be >= 0, got {lr}")
        self._lr = float(lr)
        self._lr_tensors: Dict[Tuple[str, str], Tensor] = {}
        self.state: Dict[int, Dict[str, Tensor]] = {}

    @property
    def lr(self) -> float:
        return self._lr

    @lr.setter
    def lr(self, value: float) -> None:
        """Takes effect at the next step without recompiling: the rate is data, not structure."""
        self._lr = float(value)
        for t in self._lr_tensors.values():
            t._raw().fill(self._lr)

    def _lr_for(self, p: Tensor) -> Tensor:
        key = (p.device, p.dtype)
        t = self._lr_tensors.get(key)
        if t is None:
            raw = _C.Tensor.full([], self._lr, p.dtype, p.device, "lr")
            t = _wrap(_C.lazy_leaf(raw, "state", False, "lr"))
            self._lr_tensors[key] = t
        return t

    def _zeros_state(self, p: Tensor, name: str, dtype=None, shape=None) -> Tensor:
        full = f"{p.name}.{name}" if p.name else name
        raw = _C.Tensor.full(list(p.shape if shape is None else shape), 0.0, dtype or p.dtype, p.device, full)
        return _wrap(_C.lazy_leaf(raw, "state", False, full))

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clears the gradients (they accumulate across backward() calls until cleared)."""
        for p in self.params:
            p.grad = None

    def step(self) -> None:
        with_grad = [p for p in self.params if p.grad is not None]
        if not with_grad:
            raise _C.GlassgradError(
                f"{type(self).__name__}.step(): no parameter has a gradient\n"
                "  cause: loss.backward() was not called since the last zero_grad(), or the loss does not "
                "depend on these parameters\n  fix: call loss.backward() before optimizer.step()")
        with scope("optimizer", role="optimizer"):
            for p in with_grad:
                self._update(p)
        _C.lazy_realize([])

    def _update(self, p: Tensor) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    @staticmethod
    def _swap(t: Tensor, new: Tensor) -> None:
        t._h.reset(new._h)
