from __future__ import annotations

from .. import _args
from ._composed import advance_step, descend, with_weight_decay
from .optimizer import Optimizer, refuse_differentiable


class Adadelta(Optimizer):
    """Adadelta (Zeiler 2012), PyTorch's torch.optim.Adadelta (same arguments, defaults, state and
    rule):

        step += 1;  g = grad (-grad with maximize=True) + weight_decay * p
        square_avg = rho * square_avg + (1 - rho) * g^2
        delta = sqrt(acc_delta + eps) / sqrt(square_avg + eps) * g
        acc_delta = rho * acc_delta + (1 - rho) * delta^2
        p = p - lr * delta

    Composed from elementwise ops, Assign (the state, in place) and SGDUpdate (optim/_composed.py);
    lr is a tensor (schedules change it without recompiling). foreach is accepted and ignored, so is capturable
    on CUDA (glassgrad's steps are always graph-safe); capturable=True is refused for CPU parameters
    at the step, as PyTorch refuses it."""

    def __init__(self, params, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6, weight_decay: float = 0,
                 foreach=None, *, capturable: bool = False, maximize: bool = False, differentiable: bool = False):
        refuse_differentiable(type(self).__name__, differentiable)
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      capturable=capturable, foreach=foreach, differentiable=differentiable))

    def _check_group(self, group) -> None:
        super()._check_group(group)
        name = type(self).__name__
        dict.__setitem__(group, "rho", _args.real_as_given(group["rho"], "rho", name, minimum=0.0, maximum=1.0,
                                                  fix="rho=0.9"))
        for key in ("eps", "weight_decay"):
            dict.__setitem__(group, key, _args.real_as_given(group[key], key, name, minimum=0.0))
        dict.__setitem__(group, "maximize", _args.flag(group["maximize"], "maximize", name))

    def _update(self, p, group) -> None:
        st = self._state_with(p, "square_avg", "acc_delta")
        rho, eps = group["rho"], group["eps"]
        g = with_weight_decay(p, self._grad(p, group), group)
        advance_step(self, st)
        self._assign(st, "square_avg", st["square_avg"] * rho + g * g * (1 - rho))
        delta = (st["acc_delta"] + eps).sqrt() / (st["square_avg"] + eps).sqrt() * g
        self._assign(st, "acc_delta", st["acc_delta"] * rho + delta * delta * (1 - rho))
        descend(self, p, delta, self._hyper(group, "lr", p), group)

