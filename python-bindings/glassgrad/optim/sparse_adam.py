from __future__ import annotations

import math

from .. import _args
from .._tensor import Tensor, _op
from ..functional import where
from ._composed import complement, like
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
    the embedding rows looked up in the batch, unless a row's whole gradient is exactly zero.
    The state's "step" is a Python int, as PyTorch's SparseAdam keeps it (the other optimizers' is
    a 0-d tensor), and the step size lr sqrt(1 - beta2^step) / (1 - beta1^step) is computed from it
    in double, as there; the update is composed from elementwise ops and Assign."""

    _INT_STEP = True

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8, maximize: bool = False):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))

    def _check_group(self, group) -> None:
        super()._check_group(group)
        name = type(self).__name__
        if not isinstance(group["lr"], Tensor):
            _args.real(group["lr"], "lr", name, minimum=0.0, above=True, fix="lr=1e-3")
        _args.real(group["eps"], "eps", name, minimum=0.0, above=True, fix="eps=1e-8")

    def _update(self, p, group) -> None:
        st = self._state_for(p)
        if not st:  # PyTorch's entries, in its order
            st["step"] = 0
            st["exp_avg"] = self._zeros_state(p, "exp_avg")
            st["exp_avg_sq"] = self._zeros_state(p, "exp_avg_sq")
        beta1, beta2, eps = float(group["betas"][0]), group["betas"][1], group["eps"]
        g = self._grad(p, group)
        touched = g != 0.0
        if p.ndim == 2:  # an embedding table: whole rows
            touched = touched.any(1, keepdim=True)
        st["step"] = step = int(st["step"]) + 1
        avg = st["exp_avg"] + (g - st["exp_avg"]) * complement(self, group, "beta1", p)
        avg_sq = st["exp_avg_sq"] + (g * g - st["exp_avg_sq"]) * (1 - beta2)
        self._assign(st, "exp_avg", where(touched, avg, st["exp_avg"]))
        self._assign(st, "exp_avg_sq", where(touched, avg_sq, st["exp_avg_sq"]))
        # A 0-d leaf of this step's value: the count lives in Python, so the factor is data, not
        # an attribute (the step's graph keeps its shape from step to step).
        size = float(group["lr"]) * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
        step_size = self._zeros_state(p, "step_size", "float64", [], size)
        update = like(step_size, p) * (avg / (avg_sq.sqrt() + eps))
        self._swap(p, _op("Assign", [p, where(touched, p - update, p)]))
