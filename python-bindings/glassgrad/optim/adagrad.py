from __future__ import annotations

from .. import _args
from ._composed import advance_step, descend, like, with_weight_decay
from ._stand_ins import lay_out_state
from .optimizer import Optimizer, refuse_differentiable, refuse_fused_with_foreach, scalar_dtype


class Adagrad(Optimizer):
    """Adagrad (Duchi et al. 2011), PyTorch's torch.optim.Adagrad (same arguments, defaults, state
    and rule):

        step += 1;  g = grad (-grad with maximize=True) + weight_decay * p
        clr = lr / (1 + (step - 1) * lr_decay)
        sum = sum + g^2
        p = p - clr * g / (sqrt(sum) + eps)

    Like PyTorch's, the state (step 0, sum = initial_accumulator_value) exists from construction,
    so state_dict() lists every parameter before the first step. Composed from elementwise ops,
    Assign and SGDUpdate (optim/_composed.py); lr is a tensor. foreach and fused are accepted and
    ignored."""

    def __init__(self, params, lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach=None, *, maximize: bool = False,
                 differentiable: bool = False, fused=None):
        refuse_differentiable(type(self).__name__, differentiable)
        refuse_fused_with_foreach(type(self).__name__, fused, foreach)
        # the keys in PyTorch's order: param_groups and state_dict() list them as PyTorch's do
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, fused=fused))
        for group in self.param_groups:
            for p in group["params"]:
                self._initial_state(p, group)
            lay_out_state(group["params"], self.state, set())  # a transposed parameter's sum has its strides

    def _check_group(self, group) -> None:
        super()._check_group(group)
        name = type(self).__name__
        for key in ("lr_decay", "weight_decay", "initial_accumulator_value", "eps"):
            dict.__setitem__(group, key, _args.real_as_given(group[key], key, name, minimum=0.0))
        dict.__setitem__(group, "maximize", _args.flag(group["maximize"], "maximize", name))

    def _initial_state(self, p, group) -> dict:
        st = self._state_for(p)
        if not st:
            st["step"] = self._zeros_state(p, "step", dtype=scalar_dtype(), shape=[])
            st["sum"] = self._zeros_state(p, "sum", value=group["initial_accumulator_value"])
        return st

    def _update(self, p, group) -> None:
        st = self._initial_state(p, group)
        g = with_weight_decay(p, self._grad(p, group), group)
        step = advance_step(self, st)
        lr = self._hyper(group, "lr", p)
        if group["lr_decay"] != 0:
            lr = lr / like((step - 1) * group["lr_decay"] + 1, p)
        self._assign(st, "sum", st["sum"] + g * g)
        descend(self, p, g / (st["sum"].sqrt() + group["eps"]), lr, group)
