"""CyclicLR (Smith 2017, cyclical learning rates), torch.optim.lr_scheduler.CyclicLR's arguments,
formulas and state_dict; glassgrad.optim.lr_scheduler exports it."""
from __future__ import annotations

import math
import types
from functools import partial
from typing import Any, Callable, Dict, List, Optional

from .. import _args
from .lr_scheduler import LRScheduler, _check_optimizer, _cycled_momenta, _number, _per_group, _set_momentum, set_group_value
from .optimizer import Optimizer


class CyclicLR(LRScheduler):
    """Cycles each group's lr between base_lr and max_lr (one value, or one per group): up over
    step_size_up steps, down over step_size_down (= step_size_up when None); the cycle's height is
    scaled by mode ('triangular': 1, 'triangular2': halved each cycle, 'exp_range': gamma ** step)
    or by scale_fn(x) with x the cycle number (scale_mode='cycle') or the step ('iterations').
    With cycle_momentum the momentum (SGD, RMSprop) or beta1 (Adam, ...) cycles the other way,
    between max_momentum and base_momentum. Step it after every batch. Building it sets each
    group's lr to base_lr, as PyTorch's."""

    def __init__(self, optimizer: Optimizer, base_lr, max_lr, step_size_up: int = 2000,
                 step_size_down: Optional[int] = None, mode: str = "triangular", gamma: float = 1.0,
                 scale_fn: Optional[Callable[[float], float]] = None, scale_mode: str = "cycle",
                 cycle_momentum: bool = True, base_momentum=0.8, max_momentum=0.9, last_epoch: int = -1):
        where = "CyclicLR"
        _check_optimizer(optimizer, where)
        self.optimizer = optimizer

        def rate(v, name):
            return _number(v, name, where, fix="base_lr=0.001, max_lr=0.1 (or one per group)")
        base_lrs = _per_group("base_lr", optimizer, base_lr, where, rate)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                set_group_value(group, "lr", lr)
        self.max_lrs = _per_group("max_lr", optimizer, max_lr, where, rate)
        # unchecked in PyTorch: sizes adding up to 0 divide by zero below, as there
        up = float(_number(step_size_up, "step_size_up", where, fix="step_size_up=2000"))
        down = up if step_size_down is None else float(_number(step_size_down, "step_size_down", where,
                                                               fix="step_size_down=None (the same as step_size_up)"))
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if scale_fn is None:
            with _args.pytorch_says("mode is invalid and scale_fn is None"):
                _args.choice(mode, "mode", where, ("triangular", "triangular2", "exp_range"),
                             fix="mode='triangular', or pass scale_fn")
        elif not callable(scale_fn):
            _args.fail(where, "scale_fn", "a function of one number (or None)", scale_fn, type_error=True)
        self.mode = mode
        self.gamma = _args.real(gamma, "gamma", where, fix="gamma=1.0")
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode  # PyTorch's: 'cycle', and any other value counts iterations
        self._init_scale_fn()
        self.cycle_momentum = _args.flag(cycle_momentum, "cycle_momentum", where)
        if self.cycle_momentum:
            self.use_beta1, self.base_momentums, self.max_momentums = _cycled_momenta(
                where, optimizer, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self) -> None:
        if self._scale_fn_custom is not None:
            return
        if self.mode == "triangular":
            self._scale_fn_ref: Callable[[float], float] = self._triangular_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "triangular2":
            self._scale_fn_ref = self._triangular2_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "exp_range":
            self._scale_fn_ref = partial(self._exp_range_scale_fn, self.gamma)
            self.scale_mode = "iterations"

    def scale_fn(self, x) -> float:
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return self._scale_fn_ref(x)

    @staticmethod
    def _triangular_scale_fn(x: float) -> float:
        return 1.0

    @staticmethod
    def _triangular2_scale_fn(x: float) -> float:
        return 1 / (2.0 ** (x - 1))

    @staticmethod
    def _exp_range_scale_fn(gamma: float, x: float) -> float:
        return gamma ** x

    def get_lr(self) -> List[float]:
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        scale_factor = x / self.step_ratio if x <= self.step_ratio else (x - 1) / (self.step_ratio - 1)
        at = cycle if self.scale_mode == "cycle" else self.last_epoch
        lrs = [base + (top - base) * scale_factor * self.scale_fn(at) for base, top in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, base, top in zip(self.optimizer.param_groups, self.base_momentums, self.max_momentums):
                _set_momentum(group, self.use_beta1, top - (top - base) * scale_factor * self.scale_fn(at))
        return lrs

    def state_dict(self) -> Dict[str, Any]:
        """PyTorch's: every attribute but the optimizer and the scale function (a custom one that
        is a callable object keeps its __dict__)."""
        state = super().state_dict()
        state.pop("_scale_fn_ref", None)
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        state_dict = dict(state_dict)
        fn = state_dict.pop("_scale_fn_custom", None)
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()
