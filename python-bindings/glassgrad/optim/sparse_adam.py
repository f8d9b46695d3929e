from __future__ import annotations

from .. import _args
from .._tensor import Tensor, _op
from ..functional import where
from ._composed import advance_step, like, power
from .adam import BetasOptimizer


class SparseAdam(BetasOptimizer):
    """SparseAdam, PyTorch's torch.optim.SparseAdam (same arguments, defaults, state and rule): Adam
    applied to the entries a sparse gradient holds, the others (moments and parameter) untouched:

        step += 1;  g = grad (-grad with maximize=True)
        at the gradient's entries:  exp_avg += (1 - beta1) (g - exp_avg)
                                    exp_avg_sq += (1 - beta2) (g^2 - exp_avg_sq)
                                    p -= lr sqrt(1 - beta2^step) / (1 - beta1^step) * exp_avg / (sqrt(exp_avg_sq) + eps)

    glassgrad's gradients are dense (nn.Embedding(sparse=True)'s too), so the gradient's entries are
    the rows (of a 2-d parameter, as an embedding table) or the elements with a nonzero gradient:
    the embedding rows looked up in the batch, unless a row's whole gradient is exactly zero. lr
    and beta1 are tensors; composed from elementwise ops and Assign (optim/_composed.py)."""

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8, maximize: bool = False):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))

    def _check_group(self, group) -> None:
        super()._check_group(group)
        name = type(self).__name__
        if not isinstance(group["lr"], Tensor):
            _args.real(group["lr"], "lr", name, minimum=0.0, above=True, fix="lr=1e-3")
        _args.real(group["eps"], "eps", name, minimum=0.0, above=True, fix="eps=1e-8")

    def _update(self, p, group) -> None:
        st = self._state_with(p, "exp_avg", "exp_avg_sq")
        beta2, eps = group["betas"][1], group["eps"]
        g = self._grad(p, group)
        touched = g != 0.0
        if p.ndim == 2:  # an embedding table: whole rows
            touched = touched.any(1, keepdim=True)
        step = advance_step(self, st)
        avg = st["exp_avg"] + (g - st["exp_avg"]) * (1 - self._hyper(group, "beta1", p))
        avg_sq = st["exp_avg_sq"] + (g * g - st["exp_avg_sq"]) * (1 - beta2)
        self._assign(st, "exp_avg", where(touched, avg, st["exp_avg"]))
        self._assign(st, "exp_avg_sq", where(touched, avg_sq, st["exp_avg_sq"]))
        correction1 = 1 - power(self._hyper(group, "beta1", p, "float64"), step)
        step_size = self._hyper(group, "lr", p, "float64") * (1 - power(beta2, step)).sqrt() / correction1
        update = like(step_size, p) * (avg / (avg_sq.sqrt() + eps))
        self._swap(p, _op("Assign", [p, where(touched, p - update, p)]))
