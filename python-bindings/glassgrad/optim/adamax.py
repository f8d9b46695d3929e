from __future__ import annotations

from ..functional import maximum
from ._composed import advance_step, complement, descend, lerp, like, power, with_weight_decay
from .adam import BetasOptimizer
from .optimizer import refuse_differentiable


class Adamax(BetasOptimizer):
    """Adamax (Kingma & Ba 2014, Adam with the infinity norm), PyTorch's torch.optim.Adamax (same
    arguments, defaults, state and rule):

        step += 1;  g = grad (-grad with maximize=True) + weight_decay * p
        exp_avg = exp_avg + (1 - beta1) * (g - exp_avg)
        exp_inf = max(beta2 * exp_inf, |g| + eps)
        p = p - lr / (1 - beta1^step) * exp_avg / exp_inf

    lr and beta1 are tensors (a schedule cycling them, e.g. OneCycleLR, never recompiles); composed
    from elementwise ops, Assign and SGDUpdate (optim/_composed.py). foreach is accepted and
    ignored; capturable=True is refused for CPU parameters at the step, as PyTorch refuses it."""

    def __init__(self, params, lr: float = 2e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 foreach=None, *, maximize: bool = False, differentiable: bool = False, capturable: bool = False):
        refuse_differentiable(type(self).__name__, differentiable)
        # the keys in PyTorch's order: param_groups and state_dict() list them as PyTorch's do
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, capturable=capturable))

    def _update(self, p, group) -> None:
        st = self._state_with(p, "exp_avg", "exp_inf")
        g = with_weight_decay(p, self._grad(p, group), group)
        step = advance_step(self, st)
        self._assign(st, "exp_avg", lerp(st["exp_avg"], g, complement(self, group, "beta1", p)))
        self._assign(st, "exp_inf", maximum(st["exp_inf"] * group["betas"][1], g.abs() + group["eps"]))
        correction = 1 - power(self._hyper(group, "beta1", p, "float64"), step)
        descend(self, p, st["exp_avg"] / st["exp_inf"], self._hyper(group, "lr", p) / like(correction, p), group)
