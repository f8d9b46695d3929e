from __future__ import annotations

from .. import _args
from ..functional import where
from .._tensor import _op
from ._composed import advance_step, like
from .optimizer import Optimizer, refuse_differentiable, scalar_dtype


class ASGD(Optimizer):
    """Averaged SGD (Polyak & Juditsky 1992), PyTorch's torch.optim.ASGD (same arguments, defaults,
    state and rule):

        step += 1;  g = grad (-grad with maximize=True) + weight_decay * p
        p = p * (1 - lambd * eta) - eta * g
        ax = p if mu == 1 else ax + mu * (p - ax)
        eta = lr / (1 + lambd * lr * step) ** alpha;  mu = 1 / max(1, step - t0)

    The state holds PyTorch's entries: step, eta (the group's lr at the first step), mu (1) and ax
    (the averaged parameter); eta and mu are 0-d tensors of scalar_dtype(), as PyTorch's. The new eta reads the
    group's lr (a tensor: schedules change it without recompiling). Composed from elementwise ops
    and Assign (optim/_composed.py). foreach is accepted and ignored; capturable=True is
    refused for CPU parameters at the step, as PyTorch refuses it (ignored on CUDA)."""

    _CAPTURABLE_TENSORS = "params, mus, etas, and state_steps"

    _SCALAR_STATE = ("eta", "mu")

    def __init__(self, params, lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75, t0: float = 1e6,
                 weight_decay: float = 0, foreach=None, maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False):
        refuse_differentiable(type(self).__name__, differentiable)
        # the keys in PyTorch's order: param_groups and state_dict() list them as PyTorch's do
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize, differentiable=differentiable, capturable=capturable))

    def _check_group(self, group) -> None:
        super()._check_group(group)
        name = type(self).__name__
        for key in ("lambd", "alpha", "t0"):
            dict.__setitem__(group, key, _args.real_as_given(group[key], key, name))
        dict.__setitem__(group, "weight_decay", _args.real_as_given(group["weight_decay"], "weight_decay", name, minimum=0.0))
        dict.__setitem__(group, "maximize", _args.flag(group["maximize"], "maximize", name))

    def _update(self, p, group) -> None:
        st = self._state_for(p)
        if not st:  # PyTorch's entries in its order
            st["step"] = self._zeros_state(p, "step", dtype=scalar_dtype(), shape=[])
            st["eta"] = self._zeros_state(p, "eta", dtype=scalar_dtype(), shape=[], value=float(group["lr"]))
            st["mu"] = self._zeros_state(p, "mu", dtype=scalar_dtype(), shape=[], value=1.0)
            st["ax"] = self._zeros_state(p, "ax")
        lambd = group["lambd"]
        g = self._grad(p, group)
        if group["weight_decay"] != 0:
            g = g + p * group["weight_decay"]
        step = advance_step(self, st)
        eta = st["eta"].astype("float64")
        new_p = p * like(1 - eta * lambd, p) - g * like(eta, p)
        self._swap(p, _op("Assign", [p, new_p]))
        mu = st["mu"]
        self._assign(st, "ax", where(mu == 1.0, p, st["ax"] + (p - st["ax"]) * like(mu.astype("float64"), p)))
        lr = self._hyper(group, "lr", p, "float64")
        # PyTorch computes both in double, makes each a tensor of the default dtype (scalar_dtype())
        # and copies that into the state's scalar (of the parameter's dtype once a state was loaded).
        self._assign(st, "eta", _as_state(lr / (lr * lambd * step + 1) ** group["alpha"], st["eta"]))
        since = step - group["t0"]
        self._assign(st, "mu", _as_state(1 / where(since > 1, since, 1.0), st["mu"]))


def _as_state(value, scalar):
    """value (float64) rounded as torch.as_tensor(float) then scalar.copy_() round it."""
    return value.astype(scalar_dtype()).astype(scalar.dtype)
