from __future__ import annotations

from .. import _C, _args
from ..functional import where
from ._composed import advance_step
from .._tensor import _op
from .optimizer import Optimizer, refuse_differentiable, scalar_dtype


class Rprop(Optimizer):
    """Rprop (resilient backpropagation, Riedmiller & Braun 1993), PyTorch's torch.optim.Rprop
    (same arguments, defaults, state and rule):

        step += 1;  g = grad (-grad with maximize=True)
        s = sign(g * prev):  s > 0 -> etaplus,  s < 0 -> etaminus,  s == 0 -> 1
        step_size = clamp(step_size * s, step_size_min, step_size_max)
        g = 0 where the sign flipped (s == etaminus)
        p = p - sign(g) * step_size;  prev = g

    The state holds PyTorch's entries: step, prev (zeros) and step_size (filled with the group's
    lr at the first step; lr is not read after that). Composed from elementwise ops, Assign
    (optim/_composed.py). foreach is accepted and ignored; capturable=True is
    refused for CPU parameters at the step, as PyTorch refuses it (ignored on CUDA)."""

    def __init__(self, params, lr: float = 1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable: bool = False,
                 foreach=None, maximize: bool = False, differentiable: bool = False):
        refuse_differentiable(type(self).__name__, differentiable)
        # the keys in PyTorch's order: param_groups and state_dict() list them as PyTorch's do
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, capturable=capturable))

    def _check_group(self, group) -> None:
        super()._check_group(group)
        name = type(self).__name__
        for key, fix in (("etas", "etas=(0.5, 1.2)"), ("step_sizes", "step_sizes=(1e-6, 50)")):
            pair = group[key]
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                _args.fail(name, key, "a pair of numbers", pair, fix=fix)
            dict.__setitem__(group, key, _args.sequence_as_given(pair, lambda v: _args.real_as_given(v, key, name,
                                                                                                fix=fix)))
        etaminus, etaplus = group["etas"]
        if not 0.0 < etaminus < 1.0 < etaplus:
            raise _C.InvalidArgumentError(
                f"{name}: etas must satisfy 0 < etaminus < 1 < etaplus, got etas={group['etas']}\n"
                f"  fix: etas=(0.5, 1.2)")
        dict.__setitem__(group, "maximize", _args.flag(group["maximize"], "maximize", name))

    def _update(self, p, group) -> None:
        st = self._state_for(p)
        if not st:  # PyTorch's entries in its order; step_size starts at the group's lr
            st["step"] = self._zeros_state(p, "step", dtype=scalar_dtype(), shape=[])
            st["prev"] = self._zeros_state(p, "prev")
            st["step_size"] = self._zeros_state(p, "step_size", value=float(group["lr"]))
        etaminus, etaplus = group["etas"]
        low, high = group["step_sizes"]
        g = self._grad(p, group)
        advance_step(self, st)
        s = (g * st["prev"]).sign()
        # In p's dtype (s is -1, 0 or 1; NaN stays NaN, as PyTorch's masked writes leave it).
        factor = where(s > 0, s * etaplus, where(s < 0, s * -etaminus, s + 1))
        self._assign(st, "step_size", (st["step_size"] * factor).clamp(low, high))
        g = where(s < 0, 0.0, g)
        self._assign(st, "prev", g)
        self._swap(p, _op("Assign", [p, p - g.sign() * st["step_size"]]))
