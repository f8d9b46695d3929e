"""Learning-rate schedules with torch.optim.lr_scheduler's names, arguments and formulas:
LambdaLR, MultiplicativeLR, StepLR, MultiStepLR, ConstantLR, LinearLR, ExponentialLR,
PolynomialLR, CosineAnnealingLR, CosineAnnealingWarmRestarts, OneCycleLR, CyclicLR, SequentialLR,
ChainedScheduler, and ReduceLROnPlateau (stepped with the metric it watches:
scheduler.step(val_loss)).

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

import functools
import math
import types
import warnings
from bisect import bisect_right
from collections import Counter
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from .. import _C, _args
from .._runtime import no_grad as _no_grad
from .._tensor import Tensor as _Tensor
from .optimizer import Optimizer

__all__ = ["LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
           "ExponentialLR", "PolynomialLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts", "OneCycleLR",
           "SequentialLR", "ChainedScheduler", "ReduceLROnPlateau", "CyclicLR"]


EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. Please "
    "use `scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available.")


def _warn_outside_step(get_lr: Callable) -> Callable:
    """get_lr as PyTorch's: called by the user (not by step()) it warns that get_last_lr() is
    the way to read the rates."""
    @functools.wraps(get_lr)
    def wrapper(self, *args, **kwargs):
        if not self.__dict__.get("_get_lr_called_within_step", False):
            warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                          UserWarning, stacklevel=2)
        return get_lr(self, *args, **kwargs)
    wrapper._warns = True  # type: ignore[attr-defined]
    return wrapper


def set_group_value(group, key: str, value) -> None:
    """group[key] = value, PyTorch's _update_param_group_val: a tensor there (a learning rate
    given as a 0-d tensor) is filled in place, so the script's tensor holds the new rate."""
    old = group[key]
    if isinstance(old, _Tensor):
        with _no_grad():
            old.fill_(float(value))
        group[key] = old  # the group sees the new value (its 0-d copies are refilled)
    else:
        group[key] = value


def _check_optimizer(optimizer, where: str) -> None:
    if not isinstance(optimizer, Optimizer):
        raise _args.InvalidArgumentTypeError(
            f"{where}: optimizer must be a glassgrad.optim optimizer, got {type(optimizer).__name__}, which is not an "
            f"Optimizer\n  fix: pass a glassgrad.optim optimizer, e.g. SGD(model.parameters(), lr=0.1)")


# PyTorch's sentence for a per-group list of the wrong length, by argument
_COUNT_SENTENCE = {"lr_lambda": "Expected {n} lr_lambdas, but got {got}", "min_lr": "expected {n} min_lrs, got {got}"}


def _per_group(name: str, optimizer: Optimizer, value, where: str, check: Callable[[Any, str], Any]) -> List[Any]:
    """One value per parameter group: a list or tuple of that length, or one value for all;
    each passed through check(value, name)."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            n = len(optimizer.param_groups)
            sentence = _COUNT_SENTENCE.get(name, f"expected {n} values of {name}, but got {{got}}")
            with _args.pytorch_says(sentence.format(n=n, got=len(value))):
                _args.fail(where, name, f"one value or {n} (one per parameter group)", value)
        return [check(v, f"{name}[{i}]") for i, v in enumerate(value)]
    return [check(value, name)] * len(optimizer.param_groups)


def _set_momentum(group, use_beta1: bool, value: float) -> None:
    """Writes a cycled momentum into a group: beta1 of its betas (Adam-like) or its momentum."""
    if use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


def _cycled_momenta(where: str, optimizer: Optimizer, base_momentum, max_momentum, last_epoch: int):
    """OneCycleLR's and CyclicLR's cycle_momentum: checks that the optimizer has a momentum or betas
    and the bounds (one value, or one per group, in [0, 1]); a new schedule (last_epoch -1) starts
    each group at max_momentum and records both bounds in it. Returns (use_beta1, bases, tops)."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise _C.InvalidArgumentError(
            f"{where}: cycle_momentum=True, but the optimizer must support momentum or beta1 with "
            f"`cycle_momentum` option enabled ({type(optimizer).__name__} has neither)\n"
            f"  fix: cycle_momentum=False, or an optimizer with momentum (SGD, RMSprop) or betas (Adam, AdamW)")
    use_beta1 = "betas" in optimizer.defaults

    def momentum(v, name):  # unchecked in PyTorch
        return _number(v, name, where)
    tops = _per_group("max_momentum", optimizer, max_momentum, where, momentum)
    bases = _per_group("base_momentum", optimizer, base_momentum, where, momentum)
    if last_epoch == -1:
        for top, base, group in zip(tops, bases, optimizer.param_groups):
            _set_momentum(group, use_beta1, top)
            group["max_momentum"] = top
            group["base_momentum"] = base
    return use_beta1, bases, tops


def _milestones(value, where: str) -> List[int]:
    """Epoch numbers: a list (or any iterable but a string) of numbers. PyTorch takes any (a
    negative or fractional milestone is never reached, an epoch before 0 is)."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        _args.fail(where, "milestones", "a list of epoch numbers", value, fix="milestones=[30, 80]",
                   type_error=True)
    return [_number(m, f"milestones[{i}]", where, fix="milestones=[30, 80]") for i, m in enumerate(value)]


def _number(value, name: str, where: str, fix: str = ""):
    """A number PyTorch's scheduler takes unchecked (StepLR's step_size, PolynomialLR's
    total_iters, ...), kept as given: what it computes from one outside the usual range (a
    step_size of 0 divides by zero at the first step) is PyTorch's too. Anything but a number is
    refused here, where PyTorch fails later."""
    return _args.real_as_given(value, name, where, fix=fix)


def _last_epoch(value, where: str) -> int:
    return _args.integer(value, "last_epoch", where, minimum=-1,
                         fix="last_epoch=-1 (a new schedule), or the epoch a resumed run stopped at")


def _scheduler_list(where: str, schedulers, optimizer: Optional[Optimizer], fix: str) -> Optimizer:
    """The schedulers a SequentialLR or ChainedScheduler runs: a non-empty list or tuple of
    schedulers of one optimizer (`optimizer`, or the first scheduler's when None), none of them a
    ReduceLROnPlateau (its step() needs the metric). Returns that optimizer."""
    if not isinstance(schedulers, (list, tuple)) or not schedulers:
        _args.fail(where, "schedulers", "a non-empty list of schedulers", schedulers, fix=fix)
    for i, s in enumerate(schedulers):
        if not hasattr(s, "optimizer"):
            _args.fail(where, f"schedulers[{i}]", "a scheduler (with an `optimizer` attribute)", s, fix=fix,
                       type_error=True)
        if isinstance(s, ReduceLROnPlateau):
            _args.fail(where, f"schedulers[{i}]", "a scheduler whose step() takes no arguments (ReduceLROnPlateau "
                       "needs the metric)", s, fix="step the ReduceLROnPlateau on its own: plateau.step(val_loss)")
        optimizer = s.optimizer if optimizer is None else optimizer
        if s.optimizer is not optimizer:
            with _args.pytorch_says(f"{where} expects all schedulers to belong to the same optimizer, but got scheduler "
                                    f"{type(s).__name__} at index {i} has {s.optimizer}, which is different from "
                                    f"{type(optimizer).__name__}."):
                _args.fail(where, f"schedulers[{i}]", "a scheduler of the same optimizer", s,
                           fix=f"build every scheduler in the list on the optimizer given to {where}")
    return optimizer


class LRScheduler:
    """Base class: subclasses define get_lr() (the rates at self.last_epoch, usually from the
    groups' current rates) and optionally _get_closed_form_lr() (from base_lrs alone)."""

    # step(epoch) warns as PyTorch's (CosineAnnealingWarmRestarts' fractional epochs do not).
    _EPOCH_DEPRECATED = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        get_lr = cls.__dict__.get("get_lr")
        # PyTorch's own schedulers warn from get_lr(); a script's subclass's get_lr() does not
        ours = cls.__module__.split(".")[0] == __name__.split(".")[0]
        if ours and get_lr is not None and not getattr(get_lr, "_warns", False):
            cls.get_lr = _warn_outside_step(get_lr)  # type: ignore[method-assign]

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1):
        where = type(self).__name__
        _check_optimizer(optimizer, where)
        last_epoch = _last_epoch(last_epoch, where)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                lr = group["lr"]  # a tensor is cloned, as PyTorch's: the group's is filled in place
                group.setdefault("initial_lr", lr.clone() if isinstance(lr, _Tensor) else lr)
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

    def _group_lrs(self) -> List[Any]:  # floats, or tensors where a group holds one
        # a tensor rate is cloned (PyTorch's _param_groups_val_list): the group's is filled in place
        return [lr.clone() if isinstance(lr, _Tensor) else lr for lr in (g["lr"] for g in self.optimizer.param_groups)]

    def step(self, epoch: Optional[int] = None) -> None:
        """Advances the schedule by one (call it after optimizer.step()). epoch (deprecated in
        PyTorch too) jumps to that epoch using the closed form where there is one."""
        if self._step_count == 1 and getattr(self.optimizer, "_step_calls", 1) == 0:
            warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`: call them in the "
                          "opposite order (optimizer.step() first), or the first value of the schedule is skipped",
                          UserWarning, stacklevel=2)
        if epoch is not None and self._EPOCH_DEPRECATED:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._step_count += 1
        self._update_lr(epoch)

    def _update_lr(self, epoch: Optional[int] = None) -> None:
        # PyTorch's flag (in its state_dict too): True while step() computes the rates.
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                values = self._get_closed_form_lr() if hasattr(self, "_get_closed_form_lr") else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            set_group_value(group, "lr", lr)
        self._last_lr = self._group_lrs()


class _LRScheduler(LRScheduler):
    """PyTorch's older name of the base class (still what many custom schedulers subclass)."""


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
        if self._is_initial:  # as PyTorch: not `last_epoch == 0`, which differs on resuming and inside
            return self._group_lrs()  # a ChainedScheduler that a SequentialLR restarts
        return [g["lr"] * fn(self.last_epoch) for fn, g in zip(self.lr_lambdas, self.optimizer.param_groups)]


class StepLR(LRScheduler):
    """lr = base_lr * gamma ** (epoch // step_size)."""

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1):
        where = "StepLR"
        self.step_size = _number(step_size, "step_size", where, fix="StepLR(optimizer, step_size=30)")
        self.gamma = _number(gamma, "gamma", where, fix="gamma=0.1")
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
        self.gamma = _number(gamma, "gamma", where, fix="gamma=0.1")
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
        with _args.pytorch_says("Constant multiplicative factor expected to be between 0 and 1."):
            self.factor = _args.real(factor, "factor", where, minimum=0.0, maximum=1.0, fix="factor=0.5")
        self.total_iters = _number(total_iters, "total_iters", where, fix="total_iters=5")
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
        with _args.pytorch_says("Starting multiplicative factor expected to be greater than 0 and less or equal to 1."):
            self.start_factor = _args.real(start_factor, "start_factor", where, minimum=0.0, maximum=1.0, above=True,
                                           fix="start_factor=0.1 (a warm-up from a tenth of the rate)")
        with _args.pytorch_says("Ending multiplicative factor expected to be between 0 and 1."):
            self.end_factor = _args.real(end_factor, "end_factor", where, minimum=0.0, maximum=1.0,
                                         fix="end_factor=1.0")
        self.total_iters = _number(total_iters, "total_iters", where, fix="total_iters=5")
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
        self.gamma = _number(gamma, "gamma", "ExponentialLR", fix="gamma=0.95")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[float]:
        if self._is_initial:  # as MultiplicativeLR
            return self._group_lrs()
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> List[float]:
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """lr = base_lr * (1 - min(epoch, total_iters) / total_iters) ** power: down to 0 at epoch
    total_iters, then unchanged; computed recursively (the ratio of consecutive factors) as PyTorch
    does."""

    def __init__(self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0, last_epoch: int = -1):
        where = "PolynomialLR"
        self.total_iters = _number(total_iters, "total_iters", where, fix="total_iters=<the number of steps to decay over>")
        self.power = _number(power, "power", where, fix="power=1.0 (linear decay), or 2.0")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[float]:
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._group_lrs()
        e, T = self.last_epoch, self.total_iters
        ratio = ((1.0 - e / T) / (1.0 - (e - 1) / T)) ** self.power  # factor(e) / factor(e - 1)
        return [g["lr"] * ratio for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> List[float]:
        return [base * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
                for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2 (SGDR without
    restarts), computed recursively from the current rate as PyTorch does."""

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1):
        where = "CosineAnnealingLR"
        self.T_max = _number(T_max, "T_max", where, fix="T_max=<the number of epochs>")
        self.eta_min = _number(eta_min, "eta_min", where, fix="eta_min=0.0")
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


class CosineAnnealingWarmRestarts(LRScheduler):
    """SGDR (Loshchilov & Hutter 2017): lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * T_cur /
    T_i)) / 2, where T_cur counts the epochs since the last restart and the periods are T_0,
    T_0 * T_mult, T_0 * T_mult ** 2, ... Step it once per epoch, or after every batch with a
    fractional epoch, step(epoch + i / iters), which sets T_cur (and T_i) for that point.

    For step(epoch) with T_mult > 1 the period number n (the largest with T_0 (T_mult ** n - 1) /
    (T_mult - 1) <= epoch) is found exactly; PyTorch takes int(log(...)), which rounds down at some
    restarts (T_0=1, T_mult=3, epoch=121: log_3(243) = 4.999...) and then gives eta_min where the
    documented rate, and this one, is base_lr."""

    _EPOCH_DEPRECATED = False

    def __init__(self, optimizer: Optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0, last_epoch: int = -1):
        where = "CosineAnnealingWarmRestarts"
        with _args.pytorch_says(f"Expected positive integer T_0, but got {T_0}"):
            self.T_0 = _args.integer(T_0, "T_0", where, minimum=1, fix="T_0=10 (the epochs until the first restart)")
        self.T_i = self.T_0
        with _args.pytorch_says(f"Expected integer T_mult >= 1, but got {T_mult}"):
            self.T_mult = _args.integer(T_mult, "T_mult", where, minimum=1,
                                        fix="T_mult=1 (equal periods), or 2 (each period twice the last)")
        with _args.pytorch_says(f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}"):
            self.eta_min = _number(eta_min, "eta_min", where, fix="eta_min=0.0")
        self.T_cur = _last_epoch(last_epoch, where)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[float]:
        return [self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for base in self.base_lrs]

    def _restarts_before(self, epoch: float) -> int:
        """n with start(n) <= epoch < start(n + 1), start(n) = T_0 (T_mult ** n - 1) / (T_mult - 1)."""
        T_0, m = self.T_0, self.T_mult
        n = int(math.log(epoch / T_0 * (m - 1) + 1, m))  # PyTorch's estimate, then corrected both ways
        while n > 0 and T_0 * (m ** n - 1) / (m - 1) > epoch:
            n -= 1
        while T_0 * (m ** (n + 1) - 1) / (m - 1) <= epoch:
            n += 1
        return n

    def step(self, epoch=None) -> None:
        """PyTorch's own step(): no warning when it precedes optimizer.step(), no _step_count
        (it stays 0), and step(epoch) with a fractional epoch is the documented use, not deprecated."""
        self._update_lr(epoch)

    def _update_lr(self, epoch=None) -> None:
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if not _args._is_int(epoch):
                epoch = _args.real(epoch, "epoch", "CosineAnnealingWarmRestarts.step", minimum=0.0,
                                   fix="step(epoch + i / iters) after batch i of `iters`, or step()")
            elif epoch < 0:
                _args.fail("CosineAnnealingWarmRestarts.step", "epoch", "an epoch number >= 0", epoch,
                           fix="step(epoch + i / iters) after batch i of `iters`, or step()")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = self._restarts_before(epoch)
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            set_group_value(group, "lr", lr)
        self._last_lr = self._group_lrs()


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
            with _args.pytorch_says(f"Expected positive integer total_steps, but got {total_steps}"):
                self.total_steps = _args.integer(total_steps, "total_steps", where, minimum=1)
        elif epochs is not None and steps_per_epoch is not None:
            with _args.pytorch_says(f"Expected positive integer epochs, but got {epochs}"):
                epochs = _args.integer(epochs, "epochs", where, minimum=1)
            with _args.pytorch_says(f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}"):
                self.total_steps = epochs * _args.integer(steps_per_epoch, "steps_per_epoch", where, minimum=1)
        else:
            with _args.pytorch_says("You must define either total_steps OR (epochs AND steps_per_epoch)"):
                _args.fail(where, "total_steps", "given, or epochs and steps_per_epoch both", total_steps,
                           fix="OneCycleLR(optimizer, max_lr=0.1, total_steps=len(loader) * epochs)")
        if type(pct_start) is not float:  # PyTorch's check: 0 and 1 are refused, 0.0 and 1.0 taken
            raise _C.InvalidArgumentError(f"{where}: Expected float between 0 and 1 pct_start, but got {pct_start!r}\n"
                                          f"  fix: pct_start=0.3 (a float)")
        pct_start = _args.real(pct_start, "pct_start", where, minimum=0.0, maximum=1.0, fix="pct_start=0.3")
        with _args.pytorch_says(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"):
            _args.choice(anneal_strategy, "anneal_strategy", where, ("cos", "linear"))
        cycle_momentum = _args.flag(cycle_momentum, "cycle_momentum", where)
        three_phase = _args.flag(three_phase, "three_phase", where)
        # unchecked in PyTorch (0 divides by zero below, as there)
        div_factor = _number(div_factor, "div_factor", where, fix="div_factor=25.0")
        final_div_factor = _number(final_div_factor, "final_div_factor", where, fix="final_div_factor=1e4")

        def rate(v, name):
            return _number(v, name, where, fix="max_lr=0.1 (or one per parameter group)")
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
            self.use_beta1, _, _ = _cycled_momenta(where, optimizer, base_momentum, max_momentum, last_epoch)
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
                _set_momentum(group, self.use_beta1, momentum)
        return lrs


class _Composite(LRScheduler):
    """A scheduler of schedulers (self._schedulers): its state_dict holds theirs, as PyTorch's."""

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


class SequentialLR(_Composite):
    """Runs schedulers one after another: schedulers[i] from milestones[i-1] on (it restarts
    from epoch 0 at its milestone)."""

    def __init__(self, optimizer: Optimizer, schedulers: List[LRScheduler], milestones: List[int],
                 last_epoch: int = -1):
        where = "SequentialLR"
        _check_optimizer(optimizer, where)
        _scheduler_list(where, schedulers, optimizer, "SequentialLR(optimizer, [warmup, main], milestones=[5])")
        for i, s in enumerate(schedulers[1:], 1):  # restarted at its milestone by the closed form at epoch 0
            if isinstance(s, ChainedScheduler):
                _args.fail(where, f"schedulers[{i}]", "a scheduler that can restart at its milestone (a "
                           "ChainedScheduler has no closed form to restart from)", s,
                           fix="make the ChainedScheduler the first of the list, or chain the SequentialLR inside "
                               "a ChainedScheduler instead")
        milestones = _milestones(milestones, where)
        if len(milestones) != len(schedulers) - 1:
            with _args.pytorch_says("Sequential Schedulers expects number of schedulers provided to be one more than the "
                                    f"number of milestone points, but got number of schedulers {len(schedulers)} and the "
                                    f"number of milestones to be equal to {len(milestones)}"):
                _args.fail(where, "milestones", f"{len(schedulers) - 1} epoch numbers (one fewer than the "
                           f"{len(schedulers)} schedulers)", milestones)
        self._schedulers = schedulers
        self._milestones = list(milestones)
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:  # undo what building the schedulers did
            set_group_value(group, "lr", group["initial_lr"])
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


class ChainedScheduler(_Composite):
    """Steps every scheduler of the list, in order, at each step(): their effects multiply (e.g. a
    ConstantLR warm-up factor on top of an ExponentialLR decay). optimizer defaults to the first
    scheduler's."""

    def __init__(self, schedulers: Sequence[LRScheduler], optimizer: Optional[Optimizer] = None):
        where = "ChainedScheduler"
        if optimizer is not None:
            _check_optimizer(optimizer, where)
        self.optimizer = _scheduler_list(where, schedulers, optimizer,
                                         "ChainedScheduler([ConstantLR(opt, 0.1, 2), ExponentialLR(opt, 0.9)])")
        self._schedulers = schedulers
        self._last_lr = [group["lr"] for group in self._schedulers[-1].optimizer.param_groups]

    def _initial_step(self) -> None:
        # A SequentialLR starting this chain steps its schedulers once more, as PyTorch's does; that
        # step is not the user's, so it must not trip their 'scheduler before optimizer' warning.
        for scheduler in self._schedulers:
            if hasattr(scheduler, "_step_count"):
                scheduler._step_count = 0
        super()._initial_step()

    def step(self) -> None:
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = [group["lr"] for group in self._schedulers[-1].optimizer.param_groups]


class ReduceLROnPlateau(LRScheduler):
    """Multiplies the rates by factor (not below min_lr; a change smaller than eps is skipped)
    once the metric given to step(metric) has not improved for more than `patience` steps, then
    waits `cooldown` steps before counting again. Improving means, for mode='min',
    metric < best * (1 - threshold) (threshold_mode='rel') or metric < best - threshold ('abs');
    for mode='max', metric > best * (1 + threshold) or metric > best + threshold. A NaN metric never
    improves. Building it leaves the rates as they are (no initial step, no 'initial_lr')."""

    def __init__(self, optimizer: Optimizer, mode: str = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, threshold_mode: str = "rel", cooldown: int = 0, min_lr=0,
                 eps: float = 1e-8):
        where = "ReduceLROnPlateau"
        with _args.pytorch_says("Factor should be < 1.0."):
            self.factor = _args.real_as_given(factor, "factor", where, maximum=1.0, below=True,
                                              fix="factor=0.1 (new_lr = lr * factor, so a factor < 1.0 lowers the rate)")
        _check_optimizer(optimizer, where)
        self.optimizer = optimizer

        def rate(v, name):
            return _number(v, name, where, fix="min_lr=1e-6 (or one per parameter group)")
        self.default_min_lr = None if isinstance(min_lr, (list, tuple)) else rate(min_lr, "min_lr")
        self.min_lrs = _per_group("min_lr", optimizer, min_lr, where, rate)
        # unchecked in PyTorch: a negative patience drops the rate at every step
        self.patience = _number(patience, "patience", where,
                                fix="patience=10 (steps without improvement before the rate drops)")
        self.cooldown = _number(cooldown, "cooldown", where, fix="cooldown=0")
        self.eps = _number(eps, "eps", where, fix="eps=1e-8")
        self.last_epoch = 0
        self._last_lr = self._group_lrs()
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _init_is_better(self, mode, threshold, threshold_mode) -> None:
        where = "ReduceLROnPlateau"
        with _args.pytorch_says(f"mode {mode} is unknown!"):
            mode = _args.choice(mode, "mode", where, ("min", "max"),
                                fix="mode='min' for a loss, mode='max' for an accuracy")
        threshold = _number(threshold, "threshold", where, fix="threshold=1e-4")
        with _args.pytorch_says(f"threshold mode {threshold_mode} is unknown!"):
            threshold_mode = _args.choice(threshold_mode, "threshold_mode", where, ("rel", "abs"),
                                          fix="threshold_mode='rel' (a fraction of best) or 'abs' (an amount)")
        # set in PyTorch's order (mode_worse first), which its state_dict's keys follow
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode

    def _reset(self) -> None:
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    @property
    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def _is_better(self, a: float, best: float) -> bool:
        if self.mode == "min":
            return a < (best * (1.0 - self.threshold) if self.threshold_mode == "rel" else best - self.threshold)
        return a > (best * (self.threshold + 1.0) if self.threshold_mode == "rel" else best + self.threshold)

    def step(self, metrics, epoch: Optional[int] = None) -> None:  # type: ignore[override]
        """One evaluation: metrics is the watched quantity (a number or a one-element tensor)."""
        where = "ReduceLROnPlateau.step"
        fix = "scheduler.step(val_loss), with val_loss a number (e.g. loss.item())"
        if isinstance(metrics, (bool, str, bytes)) or not hasattr(metrics, "__float__"):
            _args.fail(where, "metrics", "a number (or a one-element tensor)", metrics, fix=fix, type_error=True)
        try:
            current = float(metrics)
        except (TypeError, ValueError):
            _args.fail(where, "metrics", "a number (or a one-element tensor)", metrics, fix=fix, type_error=True)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            epoch = _args.integer(epoch, "epoch", where, minimum=0, fix="step(val_loss), without an epoch")
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch

        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs during the cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = self._group_lrs()

    def _reduce_lr(self) -> None:
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise _C.InvalidArgumentError(
                    f"ReduceLROnPlateau: the optimizer has {len(groups)} parameter groups, but min_lr was given "
                    f"for {len(self.min_lrs)} (a group was added after the scheduler was built)\n"
                    f"  fix: scheduler.min_lrs = [...] with one value per parameter group")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, low in zip(groups, self.min_lrs):
            old = float(group["lr"])
            new = max(old * self.factor, low)
            if old - new > self.eps:
                set_group_value(group, "lr", new)

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)


from .cyclic_lr import CyclicLR  # noqa: E402  (it subclasses LRScheduler, defined above)
