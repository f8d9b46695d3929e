"""Learning-rate schedules with torch.optim.lr_scheduler's names, arguments and formulas:
LambdaLR, MultiplicativeLR, StepLR, MultiStepLR, ConstantLR, LinearLR, ExponentialLR,
CosineAnnealingLR, OneCycleLR, SequentialLR.

    optimizer = glassgrad.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = glassgrad.optim.lr_scheduler.StepLR(optimizer, step_size=30, gamma=0.1)
    for epoch in range(90):
        train(...)              # optimizer.step() inside
        scheduler.step()        # after the optimizer's step, as in PyTorch

As in PyTorch, building a scheduler sets each group's 'initial_lr' and performs the step to
epoch 0 (which sets the groups' lr); step() advances last_epoch by one and writes the new rates
into optimizer.param_groups; get_last_lr() returns them; state_dict() holds every attribute but
the optimizer. The recursive ("chainable") forms are used, so schedules compose with each other
and with manual changes of group['lr'] the way PyTorch's do.

Every argument is checked when the scheduler is built, where PyTorch documents its type and range:
a wrong one raises InvalidArgumentError (a GlassgradError and a ValueError; for an optimizer that is
not one, also a TypeError) naming the scheduler and the argument, never a TypeError or
ZeroDivisionError at a later step.

A schedule writes group['lr'] (and OneCycleLR's cycled momentum, group['momentum'] or
group['betas'][0]); glassgrad optimizers hold those as tensors read by the update, so changing
them every step never recompiles a plan, re-traces a glassgrad.compile'd step, or recaptures a
CUDA graph.
"""
from __future__ import annotations

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from .. import _C, _args
from .optimizer import Optimizer

__all__ = ["LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
           "ExponentialLR", "CosineAnnealingLR", "OneCycleLR", "SequentialLR"]


def _check_optimizer(optimizer, where: str) -> None:
    if not isinstance(optimizer, Optimizer):
        raise _args.InvalidArgumentTypeError(
            f"{where}: optimizer must be a glassgrad.optim optimizer, got {type(optimizer).__name__}, which is not an "
            f"Optimizer\n  fix: pass a glassgrad.optim optimizer, e.g. SGD(model.parameters(), lr=0.1)")


def _per_group(name: str, optimizer: Optimizer, value, where: str, check: Callable[[Any, str], Any]) -> List[Any]:
    """One value per parameter group: a list or tuple of that length, or one value for all;
    each passed through check(value, name)."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            _args.fail(where, name, f"one value or {len(optimizer.param_groups)} (one per parameter group)", value)
        return [check(v, f"{name}[{i}]") for i, v in enumerate(value)]
    return [check(value, name)] * len(optimizer.param_groups)


def _milestones(value, where: str) -> List[int]:
    """Epoch numbers: a list (or any iterable but a string) of ints >= 0."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        _args.fail(where, "milestones", "a list of epoch numbers (ints >= 0)", value, fix="milestones=[30, 80]",
                   type_error=True)
    return [_args.integer(m, f"milestones[{i}]", where, minimum=0, fix="milestones=[30, 80]")
            for i, m in enumerate(value)]


class LRScheduler:
    """Base class: subclasses define get_lr() (the rates at self.last_epoch, usually from the
    groups' current rates) and optionally _get_closed_form_lr() (from base_lrs alone)."""

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1):
        where = type(self).__name__
        _check_optimizer(optimizer, where)
        last_epoch = _args.integer(last_epoch, "last_epoch", where, minimum=-1,
                                   fix="last_epoch=-1 (a new schedule), or the epoch a resumed run stopped at")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] when resuming a "
                                   f"scheduler with last_epoch >= 0\n  fix: load the optimizer's state_dict "
                                   f"(which holds initial_lr) before building the scheduler, or pass last_epoch=-1")
        self.base_lrs: List[float] = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self) -> None:
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self) -> Dict[str, Any]:
        """Every attribute but the optimizer (PyTorch's layout)."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> List[float]:
        """The rates the last step() set, one per parameter group."""
        return self._last_lr

    def get_lr(self) -> List[float]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _group_lrs(self) -> List[float]:
        return [group["lr"] for group in self.optimizer.param_groups]

    def step(self, epoch: Optional[int] = None) -> None:
        """Advances the schedule by one (call it after optimizer.step()). epoch (deprecated in
        PyTorch too) jumps to that epoch using the closed form where there is one."""
        if self._step_count == 1 and getattr(self.optimizer, "_step_calls", 1) == 0:
            warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`: call them in the "
                          "opposite order (optimizer.step() first), or the first value of the schedule is skipped",
                          UserWarning, stacklevel=2)
        self._step_count += 1
        self._update_lr(epoch)

    def _update_lr(self, epoch: Optional[int] = None) -> None:
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            self.last_epoch = epoch
            values = self._get_closed_form_lr() if hasattr(self, "_get_closed_form_lr") else self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = self._group_lrs()


class LambdaLR(LRScheduler):
    """lr = base_lr * lr_lambda(epoch), one function or one per group."""

    def __init__(self, optimizer: Optimizer, lr_lambda: Union[Callable[[int], float], Sequence[Callable]],
                 last_epoch: int = -1):
        where = type(self).__name__
        _check_optimizer(optimizer, where)
        self.optimizer = optimizer

        def function(fn, name):
            if not callable(fn):
                _args.fail(where, name, "a function of the epoch (or one per parameter group)", fn,
                           fix=f"{where}(optimizer, lr_lambda=lambda epoch: 0.95 ** epoch)", type_error=True)
            return fn
        self.lr_lambdas = _per_group("lr_lambda", optimizer, lr_lambda, where, function)
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> Dict[str, Any]:
        """As PyTorch: functions are not saved (None); callable objects save their __dict__."""
        out = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        out["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                             for fn in self.lr_lambdas]
        return out

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        state = dict(state_dict)
        lambdas = state.pop("lr_lambdas")
        self.__dict__.update(state)
        for fn, saved in zip(self.lr_lambdas, lambdas):
            if saved is not None:
                fn.__dict__.update(saved)

    def get_lr(self) -> List[float]:
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(LambdaLR):
    """lr = lr * lr_lambda(epoch) at every step after the first."""

    def get_lr(self) -> List[float]:
        if self.last_epoch > 0:
            return [g["lr"] * fn(self.last_epoch) for fn, g in zip(self.lr_lambdas, self.optimizer.param_groups)]
        return self._group_lrs()


class StepLR(LRScheduler):
    """lr = base_lr * gamma ** (epoch // step_size)."""

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1):
        where = "StepLR"
        self.step_size = _args.integer(step_size, "step_size", where, minimum=1, fix="StepLR(optimizer, step_size=30)")
        self.gamma = _args.real(gamma, "gamma", where, minimum=0.0, fix="gamma=0.1")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[float]:
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._group_lrs()
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> List[float]:
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """lr = base_lr * gamma ** (number of milestones <= epoch)."""

    def __init__(self, optimizer: Optimizer, milestones, gamma: float = 0.1, last_epoch: int = -1):
        where = "MultiStepLR"
        self.milestones = Counter(_milestones(milestones, where))
        self.gamma = _args.real(gamma, "gamma", where, minimum=0.0, fix="gamma=0.1")
        super().__init__(optimizer, last_epoch)

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        super().load_state_dict(state_dict)
        self.milestones = Counter({int(k): v for k, v in dict(self.milestones).items()})

    def get_lr(self) -> List[float]:
        if self.last_epoch not in self.milestones:
            return self._group_lrs()
        return [g["lr"] * self.gamma ** self.milestones[self.last_epoch] for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> List[float]:
        milestones = sorted(self.milestones.elements())
        return [base * self.gamma ** bisect_right(milestones, self.last_epoch) for base in self.base_lrs]


class ConstantLR(LRScheduler):
    """lr = base_lr * factor until epoch total_iters, then base_lr."""

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5, last_epoch: int = -1):
        where = "ConstantLR"
        self.factor = _args.real(factor, "factor", where, minimum=0.0, maximum=1.0, fix="factor=0.5")
        self.total_iters = _args.integer(total_iters, "total_iters", where, minimum=0, fix="total_iters=5")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[float]:
        if self.last_epoch == 0:
            return [g["lr"] * self.factor for g in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return self._group_lrs()
        return [g["lr"] * (1.0 / self.factor) for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> List[float]:
        return [base * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base in self.base_lrs]


class LinearLR(LRScheduler):
    """lr = base_lr * factor, the factor going linearly from start_factor to end_factor over
    total_iters epochs, then staying at end_factor."""

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3, end_factor: float = 1.0,
                 total_iters: int = 5, last_epoch: int = -1):
        where = "LinearLR"
        self.start_factor = _args.real(start_factor, "start_factor", where, minimum=0.0, maximum=1.0, above=True,
                                       fix="start_factor=0.1 (a warm-up from a tenth of the rate)")
        self.end_factor = _args.real(end_factor, "end_factor", where, minimum=0.0, maximum=1.0, fix="end_factor=1.0")
        self.total_iters = _args.integer(total_iters, "total_iters", where, minimum=1, fix="total_iters=5")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[float]:
        if self.last_epoch == 0:
            return [g["lr"] * self.start_factor for g in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._group_lrs()
        # factor(e) / factor(e - 1), factor(e) = start + (end - start) * e / total_iters
        d = self.end_factor - self.start_factor
        ratio = 1.0 + d / (self.total_iters * self.start_factor + (self.last_epoch - 1) * d)
        return [g["lr"] * ratio for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> List[float]:
        return [base * (self.start_factor + (self.end_factor - self.start_factor)
                        * min(self.total_iters, self.last_epoch) / self.total_iters) for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """lr = base_lr * gamma ** epoch."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1):
        self.gamma = _args.real(gamma, "gamma", "ExponentialLR", minimum=0.0, fix="gamma=0.95")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[float]:
        if self.last_epoch == 0:
            return self._group_lrs()
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> List[float]:
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2 (SGDR without
    restarts), computed recursively from the current rate as PyTorch does."""

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1):
        where = "CosineAnnealingLR"
        self.T_max = _args.integer(T_max, "T_max", where, minimum=1, fix="T_max=<the number of epochs>")
        self.eta_min = _args.real(eta_min, "eta_min", where, minimum=0.0, fix="eta_min=0.0")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[float]:
        groups = self.optimizer.param_groups
        e, T, lo = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return self._group_lrs()
        if self._step_count == 1 and e > 0:
            return [lo + (base - lo) * (1 + math.cos(e * math.pi / T)) / 2 for base in self.base_lrs]
        if (e - 1 - T) % (2 * T) == 0:
            return [g["lr"] + (base - lo) * (1 - math.cos(math.pi / T)) / 2 for base, g in zip(self.base_lrs, groups)]
        return [(1 + math.cos(math.pi * e / T)) / (1 + math.cos(math.pi * (e - 1) / T)) * (g["lr"] - lo) + lo
                for g in groups]

    def _get_closed_form_lr(self) -> List[float]:
        return [self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base in self.base_lrs]


class OneCycleLR(LRScheduler):
    """The 1cycle policy (Smith & Topin 2018): from max_lr / div_factor up to max_lr over the first
    pct_start of total_steps, then down to initial_lr / final_div_factor (cosine or linear
    annealing); with cycle_momentum the momentum (SGD, RMSprop) or beta1 (Adam, AdamW) moves the
    other way, between max_momentum and base_momentum. Step it after every batch."""

    def __init__(self, optimizer: Optimizer, max_lr, total_steps: Optional[int] = None,
                 epochs: Optional[int] = None, steps_per_epoch: Optional[int] = None, pct_start: float = 0.3,
                 anneal_strategy: str = "cos", cycle_momentum: bool = True, base_momentum=0.85,
                 max_momentum=0.95, div_factor: float = 25.0, final_div_factor: float = 1e4,
                 three_phase: bool = False, last_epoch: int = -1):
        where = "OneCycleLR"
        _check_optimizer(optimizer, where)
        self.optimizer = optimizer
        if total_steps is not None:
            self.total_steps = _args.integer(total_steps, "total_steps", where, minimum=1)
        elif epochs is not None and steps_per_epoch is not None:
            self.total_steps = (_args.integer(epochs, "epochs", where, minimum=1)
                                * _args.integer(steps_per_epoch, "steps_per_epoch", where, minimum=1))
        else:
            _args.fail(where, "total_steps", "given, or epochs and steps_per_epoch both", total_steps,
                       fix="OneCycleLR(optimizer, max_lr=0.1, total_steps=len(loader) * epochs)")
        pct_start = _args.real(pct_start, "pct_start", where, minimum=0.0, maximum=1.0, fix="pct_start=0.3")
        _args.choice(anneal_strategy, "anneal_strategy", where, ("cos", "linear"))
        cycle_momentum = _args.flag(cycle_momentum, "cycle_momentum", where)
        three_phase = _args.flag(three_phase, "three_phase", where)
        div_factor = _args.real(div_factor, "div_factor", where, minimum=0.0, above=True, fix="div_factor=25.0")
        final_div_factor = _args.real(final_div_factor, "final_div_factor", where, minimum=0.0, above=True,
                                      fix="final_div_factor=1e4")

        def rate(v, name):
            return _args.real(v, name, where, minimum=0.0, fix="max_lr=0.1 (or one per parameter group)")

        def momentum(v, name):
            return _args.real(v, name, where, minimum=0.0, maximum=1.0)
        up = float(pct_start * self.total_steps) - 1
        if three_phase:
            self._schedule_phases = [
                {"end_step": up, "start_lr": "initial_lr", "end_lr": "max_lr",
                 "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
                {"end_step": float(2 * pct_start * self.total_steps) - 2, "start_lr": "max_lr",
                 "end_lr": "initial_lr", "start_momentum": "base_momentum", "end_momentum": "max_momentum"},
                {"end_step": self.total_steps - 1, "start_lr": "initial_lr", "end_lr": "min_lr",
                 "start_momentum": "max_momentum", "end_momentum": "max_momentum"}]
        else:
            self._schedule_phases = [
                {"end_step": up, "start_lr": "initial_lr", "end_lr": "max_lr",
                 "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
                {"end_step": self.total_steps - 1, "start_lr": "max_lr", "end_lr": "min_lr",
                 "start_momentum": "base_momentum", "end_momentum": "max_momentum"}]
        self._anneal_func_type = anneal_strategy
        max_lrs = _per_group("max_lr", optimizer, max_lr, where, rate)
        if last_epoch == -1:
            for top, group in zip(max_lrs, optimizer.param_groups):
                group["initial_lr"] = top / div_factor
                group["max_lr"] = top
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise _C.InvalidArgumentError(
                    f"{where}: cycle_momentum=True, but the optimizer must support momentum or beta1 with "
                    f"`cycle_momentum` option enabled ({type(optimizer).__name__} has neither)\n"
                    f"  fix: cycle_momentum=False, or an optimizer with momentum (SGD, RMSprop) or betas (Adam, AdamW)")
            self.use_beta1 = "betas" in optimizer.defaults
            tops = _per_group("max_momentum", optimizer, max_momentum, where, momentum)
            bases = _per_group("base_momentum", optimizer, base_momentum, where, momentum)
            if last_epoch == -1:
                for top, base, group in zip(tops, bases, optimizer.param_groups):
                    if self.use_beta1:
                        group["betas"] = (top, *group["betas"][1:])
                    else:
                        group["momentum"] = top
                    group["max_momentum"] = top
                    group["base_momentum"] = base
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start: float, end: float, pct: float) -> float:
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> List[float]:
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total steps is {self.total_steps}\n"
                             f"  fix: build OneCycleLR with total_steps (or epochs * steps_per_epoch) covering "
                             f"every scheduler.step() call")
        lrs = []
        for group in self.optimizer.param_groups:
            start = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end = phase["end_step"]
                if step <= end or i == len(self._schedule_phases) - 1:
                    pct = (step - start) / (end - start)
                    lr = self._anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    if self.cycle_momentum:
                        momentum = self._anneal(group[phase["start_momentum"]], group[phase["end_momentum"]], pct)
                    break
                start = phase["end_step"]
            lrs.append(lr)
            if self.cycle_momentum:
                if self.use_beta1:
                    group["betas"] = (momentum, *group["betas"][1:])
                else:
                    group["momentum"] = momentum
        return lrs


class SequentialLR(LRScheduler):
    """Runs schedulers one after another: schedulers[i] from milestones[i-1] on (it restarts
    from epoch 0 at its milestone)."""

    def __init__(self, optimizer: Optimizer, schedulers: List[LRScheduler], milestones: List[int],
                 last_epoch: int = -1):
        where = "SequentialLR"
        _check_optimizer(optimizer, where)
        if not isinstance(schedulers, (list, tuple)) or not schedulers:
            _args.fail(where, "schedulers", "a non-empty list of schedulers", schedulers,
                       fix="SequentialLR(optimizer, [warmup, main], milestones=[5])")
        for i, s in enumerate(schedulers):
            if not hasattr(s, "optimizer"):
                _args.fail(where, f"schedulers[{i}]", "a scheduler (with an `optimizer` attribute)", s,
                           type_error=True)
            if s.optimizer is not optimizer:
                _args.fail(where, f"schedulers[{i}]", "a scheduler of the same optimizer", s,
                           fix="build every scheduler in the list on the optimizer given to SequentialLR")
        milestones = _milestones(milestones, where)
        if len(milestones) != len(schedulers) - 1:
            _args.fail(where, "milestones", f"{len(schedulers) - 1} epoch numbers (one fewer than the "
                       f"{len(schedulers)} schedulers)", milestones)
        self._schedulers = schedulers
        self._milestones = list(milestones)
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:  # undo what building the schedulers did
            group["lr"] = group["initial_lr"]
        self._undo(self)
        first = self._schedulers[bisect_right(self._milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def _undo(self, sched) -> None:
        if hasattr(sched, "_schedulers"):
            for s in sched._schedulers:
                self._undo(s)
        elif hasattr(sched, "last_epoch"):
            sched.last_epoch -= 1

    def step(self) -> None:
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self) -> Dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        out["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return out

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        state = dict(state_dict)
        saved = state.pop("_schedulers")
        self.__dict__.update(state)
        for s, st in zip(self._schedulers, saved):
            s.load_state_dict(st)
