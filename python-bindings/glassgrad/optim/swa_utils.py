"""Weight averaging with torch.optim.swa_utils's names, arguments and rules: AveragedModel (SWA's
running mean of the weights, or an exponential moving average through get_ema_multi_avg_fn),
SWALR (anneals each group's lr to a constant swa_lr) and update_bn (recomputes BatchNorm's
running statistics for the averaged weights).

    swa_model = AveragedModel(model)
    swa_scheduler = SWALR(optimizer, swa_lr=0.05)
    for epoch in range(epochs):
        train(...)
        if epoch >= swa_start:
            swa_model.update_parameters(model)
            swa_scheduler.step()
    update_bn(train_loader, swa_model)

The averages are written in place into the averaged copy's parameters (under no_grad), with
PyTorch's formulas: SWA  avg + (p - avg) / (n + 1);  EMA  lerp(avg, p, 1 - decay).
"""
from __future__ import annotations

import copy
import itertools
import math
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from .. import _C, _args
from .._runtime import no_grad
from .._tensor import Tensor, tensor
from ..nn.module import Module
from .lr_scheduler import LRScheduler, _check_optimizer, _per_group
from .optimizer import Optimizer

__all__ = ["AveragedModel", "SWALR", "update_bn", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
           "get_ema_avg_fn", "get_swa_avg_fn"]


class AveragingFunctionsError(_C.InvalidArgumentError, AssertionError):
    """Both avg_fn and multi_avg_fn given to AveragedModel: an InvalidArgumentError (a GlassgradError
    and a ValueError) and an AssertionError, what PyTorch raises there."""


AveragingFunctionsError.__module__ = "glassgrad"


def _lerp(start: Tensor, end: Tensor, weight) -> Tensor:
    """PyTorch's lerp: start + weight * (end - start) for weight < 0.5, else end - (end - start) * (1 - weight)."""
    w = float(weight)
    return start + (end - start) * w if w < 0.5 else end - (end - start) * (1 - w)


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable:
    """An exponential moving average over lists of tensors: ema = lerp(ema, p, 1 - decay), in place."""
    def ema_update(ema_param_list: List[Tensor], current_param_list: List[Tensor], _num_averaged) -> None:
        with no_grad():
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                if p_ema.is_floating_point():
                    p_ema.copy_(_lerp(p_ema, p_model, 1 - decay))
                else:
                    p_ema.copy_(p_ema * decay + p_model * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn() -> Callable:
    """The running mean over lists of tensors: avg = lerp(avg, p, 1 / (n + 1)), in place."""
    def swa_update(averaged_param_list: List[Tensor], current_param_list: List[Tensor], num_averaged) -> None:
        n = float(num_averaged)
        with no_grad():
            for p_avg, p_model in zip(averaged_param_list, current_param_list):
                if p_avg.is_floating_point():
                    p_avg.copy_(_lerp(p_avg, p_model, 1 / (n + 1)))
                else:
                    p_avg.copy_(p_avg + (p_model - p_avg) / (n + 1))
    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable:
    """avg_fn of an exponential moving average: decay * ema + (1 - decay) * p."""
    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged) -> Tensor:
        return ema_param * decay + current_param * (1 - decay)
    return ema_update


def get_swa_avg_fn() -> Callable:
    """avg_fn of the running mean: avg + (p - avg) / (n + 1)."""
    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged) -> Tensor:
        return averaged_param + (current_param - averaged_param) / (float(num_averaged) + 1)
    return swa_update


class AveragedModel(Module):
    """A deep copy of `model` (moved to `device` if given) whose parameters update_parameters(model)
    averages: avg_fn(averaged, current, n_averaged) -> tensor per parameter, or
    multi_avg_fn(averaged_list, current_list, n_averaged) writing in place; neither: the running
    mean (SWA). The first update copies the model's values. use_buffers=True averages the buffers
    too (iterating parameters then buffers, as PyTorch); otherwise they are copied from the model.
    n_averaged is an int64 buffer; calling the AveragedModel calls the copy."""

    def __init__(self, model: Module, device=None, avg_fn: Optional[Callable] = None,
                 multi_avg_fn: Optional[Callable] = None, use_buffers: bool = False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AveragingFunctionsError(
                "AveragedModel: only one of avg_fn and multi_avg_fn should be provided\n"
                "  fix: AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.999)) or avg_fn=... alone")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(np.array(0, np.int64), device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = _args.flag(use_buffers, "use_buffers", "AveragedModel")

    def forward(self, *args: Any, **kwargs: Any):
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Averages model's current parameters (and buffers with use_buffers) into this copy."""
        if self.use_buffers:
            mine = list(itertools.chain(self.module.parameters(), self.module.buffers()))
            theirs = list(itertools.chain(model.parameters(), model.buffers()))
        else:
            mine, theirs = list(self.parameters()), list(model.parameters())
        n = int(self.n_averaged.item())
        with no_grad():
            averaged = [p.detach() for p in mine]
            current = [p.detach().to(a.device) for p, a in zip(theirs, averaged)]
            if n == 0:
                for a, c in zip(averaged, current):
                    a.copy_(c)
            elif self.avg_fn is not None:
                for a, c in zip(averaged, current):
                    a.copy_(self.avg_fn(a, c, self.n_averaged))
            elif self.multi_avg_fn is not None:
                self.multi_avg_fn(averaged, current, self.n_averaged)
            else:  # PyTorch's per-tensor running mean (its path on the CPU)
                swa = get_swa_avg_fn()
                for a, c in zip(averaged, current):
                    a.copy_(swa(a, c, n))
            if not self.use_buffers:  # the buffers follow the model's
                for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                    b_swa.copy_(b_model.detach().to(b_swa.device))
            self.n_averaged.copy_(self.n_averaged + 1)


def update_bn(loader, model: Module, device=None) -> None:
    """One pass over `loader` in training mode to recompute the running mean and variance of every
    BatchNorm layer of `model` (reset first, then a cumulative average: momentum None during the
    pass, restored after). Batches that are lists or tuples give their first element as the input."""
    from ..nn.batchnorm import _BatchNorm
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with no_grad():
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's lr from its current value to swa_lr (one value, or one per group) over
    anneal_epochs steps ('cos' or 'linear'), then holds it there; PyTorch's formula: with
    alpha(t) the annealing curve at t = step / anneal_epochs, the rate is
    swa_lr * alpha + lr_0 * (1 - alpha), lr_0 recovered from the group's current lr."""

    def __init__(self, optimizer: Optimizer, swa_lr, anneal_epochs: int = 10, anneal_strategy: str = "cos",
                 last_epoch: int = -1):
        where = "SWALR"
        _check_optimizer(optimizer, where)
        rates = _per_group("swa_lr", optimizer, swa_lr, where,
                           lambda v, name: _args.real(v, name, where, fix="swa_lr=0.05"))  # any sign, as PyTorch's
        for rate, group in zip(rates, optimizer.param_groups):
            group["swa_lr"] = rate
        _args.choice(anneal_strategy, "anneal_strategy", where, ("cos", "linear"))
        self._set_anneal_func(anneal_strategy)
        self.anneal_epochs = _args.integer(anneal_epochs, "anneal_epochs", where, minimum=0, fix="anneal_epochs=10")
        super().__init__(optimizer, last_epoch)

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self) -> Dict[str, Any]:
        """Every attribute but the optimizer and anneal_func (PyTorch's layout)."""
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> List[float]:
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [group["swa_lr"] * alpha + lr * (1 - alpha) for group, lr in zip(self.optimizer.param_groups, prev_lrs)]
