from __future__ import annotations

from ..functional import where
from ._composed import advance_step, complement, descend, lerp, like, power, with_weight_decay
from .adam import BetasOptimizer
from .optimizer import refuse_differentiable


class RAdam(BetasOptimizer):
    """RAdam (Liu et al. 2019, Adam with a rectified adaptive learning rate), PyTorch's
    torch.optim.RAdam (same arguments, defaults, state and rule):

        step += 1;  g = grad (-grad with maximize=True)
        decoupled_weight_decay:  p = p * (1 - lr * weight_decay)     else  g = g + weight_decay * p
        exp_avg = exp_avg + (1 - beta1) * (g - exp_avg);  exp_avg_sq = beta2 exp_avg_sq + (1 - beta2) g^2
        m_hat = exp_avg / (1 - beta1^step)
        rho_inf = 2 / (1 - beta2) - 1;  rho = rho_inf - 2 step beta2^step / (1 - beta2^step)
        rho > 5:  p = p - lr * m_hat * sqrt(1 - beta2^step) / (sqrt(exp_avg_sq) + eps)
                         * sqrt((rho - 4)(rho - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho))
        else:     p = p - lr * m_hat

    rho depends on the step count alone, so the two branches are one Where in the graph (a compiled
    step replays both). lr and beta1 are tensors; composed from elementwise ops, Assign and
    SGDUpdate (optim/_composed.py). foreach is accepted and ignored; capturable=True is
    refused for CPU parameters at the step, as PyTorch refuses it (ignored on CUDA)."""

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 decoupled_weight_decay: bool = False, *, foreach=None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False):
        refuse_differentiable(type(self).__name__, differentiable)
        # the keys in PyTorch's order: param_groups and state_dict() list them as PyTorch's do
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      decoupled_weight_decay=decoupled_weight_decay, differentiable=differentiable))

    def _update(self, p, group) -> None:
        st = self._state_with(p, "exp_avg", "exp_avg_sq")
        beta2 = group["betas"][1]
        g = with_weight_decay(p, self._grad(p, group), group)
        step = advance_step(self, st)
        self._assign(st, "exp_avg", lerp(st["exp_avg"], g, complement(self, group, "beta1", p)))
        self._assign(st, "exp_avg_sq", st["exp_avg_sq"] * beta2 + g * g * (1 - beta2))
        m_hat = st["exp_avg"] / like(1 - power(self._hyper(group, "beta1", p, "float64"), step), p)
        beta2_t = power(beta2, step)
        correction2 = 1 - beta2_t
        rho_inf = 2 / (1 - beta2) - 1
        rho = rho_inf - step * beta2_t * 2 / correction2
        rect = ((rho - 4) * (rho - 2) * rho_inf / (rho * ((rho_inf - 4) * (rho_inf - 2)))).sqrt()
        adaptive = like(correction2.sqrt(), p) / (st["exp_avg_sq"].sqrt() + group["eps"])
        rectified = rho > 5.0
        factor = where(rectified, adaptive * like(where(rectified, rect, rho * 0.0), p), 1.0)
        descend(self, p, m_hat * factor, self._hyper(group, "lr", p), group)
