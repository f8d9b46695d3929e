"""Optimizer base: step() records one in-place update node per parameter (with its state:
momentum buffers, Adam moments, step counts) and realizes the whole training step in one plan.
The learning rate is a 0-d tensor, so changing it does not change the plan."""
from __future__ import annotations

from typing import Any, Dict, Iterable, List, Tuple

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

    # ---- checkpoints ----
    # Hyperparameters a state_dict carries (those the optimizer has): the learning rate, SGD's
    # momentum / weight_decay / nesterov, Adam's betas / eps / weight_decay.
    _HYPERPARAMETERS = ("lr", "momentum", "weight_decay", "nesterov", "betas", "eps")

    def _hyperparameters(self) -> Dict[str, Any]:
        out = {}
        for k in self._HYPERPARAMETERS:
            if hasattr(self, k):
                v = getattr(self, k)
                out[k] = list(v) if isinstance(v, tuple) else v
        return out

    def state_dict(self) -> Dict[str, Any]:
        """The optimizer's state as NumPy arrays, keyed by the parameter's position in the list the
        optimizer was built with (PyTorch's layout):

            {"optimizer": "Adam",
             "state": {0: {"exp_avg": array, "exp_avg_sq": array, "step": array(int64)}, 1: ...},
             "param_groups": [{"lr": 0.001, "betas": [0.9, 0.999], ..., "params": [0, 1, ...]}]}

        SGD keeps "momentum_buffer" per parameter (none without momentum); Adam keeps both moments
        and its step count. Parameters that never had an update have no entry. Save it with
        glassgrad.save and restore it with load_state_dict on an optimizer over the same model."""
        state = {}
        for i, p in enumerate(self.params):
            st = self.state.get(id(p))
            if st:
                state[i] = {name: t.numpy() for name, t in st.items()}
        group = self._hyperparameters()
        group["params"] = list(range(len(self.params)))
        return {"optimizer": type(self).__name__, "state": state, "param_groups": [group]}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Restores what state_dict() returned (e.g. from glassgrad.load): hyperparameters, and the
        state of each parameter by position. The optimizer must be of the same class and built
        over parameters of the same shapes, in the same order."""
        name = type(self).__name__
        saved = state_dict.get("optimizer", name)
        if saved != name:
            raise _C.InvalidArgumentError(
                f"{name}.load_state_dict: the state was saved from a {saved} optimizer\n"
                f"  fix: build the optimizer as {saved}(model.parameters(), ...) before loading, or start "
                f"this {name} from scratch")
        groups = state_dict.get("param_groups") or [{}]
        group = groups[0]
        n_saved = len(group.get("params", self.params))
        if len(groups) != 1 or n_saved != len(self.params):
            raise _C.InvalidArgumentError(
                f"{name}.load_state_dict: the state is for {n_saved} parameters in {len(groups)} group(s), this "
                f"optimizer has {len(self.params)} parameters in one group\n"
                f"  cause: a different model, or an optimizer built over a subset of its parameters\n"
                f"  fix: build the optimizer over the same list, e.g. {name}(model.parameters(), ...)")
        per_param = state_dict.get("state", {})
        new_state: Dict[int, Dict[str, np.ndarray]] = {}
        for i, p in enumerate(self.params):
            st = per_param.get(i, per_param.get(str(i)))
            if not st:
                continue
            arrays = {}
            for key, arr in st.items():
                arr = np.asarray(arr)
                if arr.dtype.kind in "iu":  # step counts
                    arr = arr.astype(np.int64)
                elif tuple(arr.shape) != tuple(p.shape):
                    raise _C.ShapeError(
                        f"{name}.load_state_dict: '{key}' of parameter {i} ('{p.name}') has shape "
                        f"{list(arr.shape)} in the state but the parameter has shape {list(p.shape)}\n"
                        f"  fix: load the state saved together with this model's weights")
                else:
                    arr = arr.astype(p.dtype)
                arrays[key] = arr
            new_state[i] = arrays
        for k, v in group.items():
            if k == "params" or k not in self._HYPERPARAMETERS or not hasattr(self, k):
                continue
            if k == "lr":
                self.lr = float(v)
            elif k == "betas":
                self.betas = (float(v[0]), float(v[1]))
            else:
                setattr(self, k, type(getattr(self, k))(v))
        for i, arrays in new_state.items():
            p = self.params[i]
            own = self.state.setdefault(id(p), {})
            for key, arr in arrays.items():
                label = f"{p.name}.{key}" if p.name else key
                leaf = _wrap(_C.lazy_leaf(_C.Tensor.from_numpy(np.array(arr, order="C"), p.device, label),
                                          "state", False, label))
                if key in own:
                    own[key]._h.reset(leaf._h)
                else:
                    own[key] = leaf
