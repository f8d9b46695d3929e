from __future__ import annotations

from .. import _args
from ._composed import advance_step, complement, descend, lerp, like, power, with_weight_decay
from .adam import BetasOptimizer
from .optimizer import refuse_differentiable, scalar_dtype


class NAdam(BetasOptimizer):
    """NAdam (Dozat 2016, Adam with Nesterov momentum), PyTorch's torch.optim.NAdam (same arguments,
    defaults, state and rule):

        step += 1;  g = grad (-grad with maximize=True)
        decoupled_weight_decay:  p = p * (1 - lr * weight_decay)     else  g = g + weight_decay * p
        mu = beta1 * (1 - 0.96^(step * momentum_decay) / 2);  mu_next: the same at step + 1
        mu_product = mu_product * mu
        exp_avg = exp_avg + (1 - beta1) * (g - exp_avg);  exp_avg_sq = beta2 exp_avg_sq + (1 - beta2) g^2
        denom = sqrt(exp_avg_sq / (1 - beta2^step)) + eps
        p = p - lr (1 - mu) / (1 - mu_product) * g / denom
              - lr mu_next / (1 - mu_product * mu_next) * exp_avg / denom

    The state holds PyTorch's entries: step, mu_product (a 0-d tensor of scalar_dtype(), as PyTorch's), exp_avg
    and exp_avg_sq. lr and beta1 are tensors; composed from elementwise ops, Assign and SGDUpdate
    (optim/_composed.py). foreach is accepted and ignored; capturable=True is
    refused for CPU parameters at the step, as PyTorch refuses it (ignored on CUDA)."""

    _CAPTURABLE_TENSORS = "params, mu_products and state_steps"

    _SCALAR_STATE = ("mu_product",)

    def __init__(self, params, lr: float = 2e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 momentum_decay: float = 4e-3, decoupled_weight_decay: bool = False, *, foreach=None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False):
        refuse_differentiable(type(self).__name__, differentiable)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize,
                                      foreach=foreach, capturable=capturable, differentiable=differentiable))

    def _check_group(self, group) -> None:
        super()._check_group(group)
        dict.__setitem__(group, "momentum_decay", _args.real_as_given(group["momentum_decay"], "momentum_decay",
                                                             type(self).__name__, minimum=0.0, fix="momentum_decay=4e-3"))

    def _update(self, p, group) -> None:
        st = self._state_for(p)
        if not st:  # PyTorch's entries in its order: a 0-d mu_product between step and the averages
            st["step"] = self._zeros_state(p, "step", dtype=scalar_dtype(), shape=[])
            st["mu_product"] = self._zeros_state(p, "mu_product", dtype=scalar_dtype(), shape=[], value=1.0)
            st["exp_avg"] = self._zeros_state(p, "exp_avg")
            st["exp_avg_sq"] = self._zeros_state(p, "exp_avg_sq")
        beta2, decay = group["betas"][1], group["momentum_decay"]
        g = with_weight_decay(p, self._grad(p, group), group)
        step = advance_step(self, st)
        beta1 = self._hyper(group, "beta1", p, "float64")
        mu = beta1 * (1.0 - 0.5 * power(0.96, step * decay))
        mu_next = beta1 * (1.0 - 0.5 * power(0.96, (step + 1) * decay))
        # PyTorch multiplies its mu_product (float32 but under a float64 default dtype) by mu
        # rounded to that dtype.
        self._assign(st, "mu_product", st["mu_product"] * mu.astype(st["mu_product"].dtype))
        product = st["mu_product"].astype("float64")
        self._assign(st, "exp_avg", lerp(st["exp_avg"], g, complement(self, group, "beta1", p)))
        self._assign(st, "exp_avg_sq", st["exp_avg_sq"] * beta2 + g * g * (1 - beta2))
        denom = (st["exp_avg_sq"] / like(1 - power(beta2, step), p)).sqrt() + group["eps"]
        direction = (g * like((1 - mu) / (1 - product), p) +
                     st["exp_avg"] * like(mu_next / (1 - product * mu_next), p)) / denom
        descend(self, p, direction, self._hyper(group, "lr", p), group)
