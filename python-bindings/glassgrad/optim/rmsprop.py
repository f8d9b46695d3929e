from __future__ import annotations

from .. import _args
from .optimizer import Optimizer, _op_multi, refuse_differentiable, scalar_dtype


class RMSprop(Optimizer):
    """RMSprop, PyTorch's torch.optim.RMSprop (same arguments, defaults and rule):

        step += 1;  g = grad (-grad with maximize=True) + weight_decay * p
        square_avg = alpha * square_avg + (1 - alpha) * g^2
        centered:  grad_avg = grad_avg + (1 - alpha) * (g - grad_avg);  avg = sqrt(square_avg - grad_avg^2) + eps
        else:      avg = sqrt(square_avg) + eps
        momentum > 0:  buf = momentum * buf + g / avg;  p = p - lr * buf
        else:          p = p - lr * g / avg

    Composed from elementwise ops, Assign (the state updates, in place) and the SGD update ops
    (p -= lr * buf is SGDMomentumUpdate with g / avg as its gradient), so it has no kernel of its
    own; lr and momentum are tensors (schedules change them without recompiling). capturable=True
    is refused for CPU parameters at the step, as PyTorch refuses it (ignored on CUDA).
    """

    _TENSOR_HYPERPARAMETERS = ("lr", "momentum")

    def __init__(self, params, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8, weight_decay: float = 0,
                 momentum: float = 0, centered: bool = False, capturable: bool = False, foreach=None,
                 maximize: bool = False, differentiable: bool = False):
        refuse_differentiable("RMSprop", differentiable)
        # Checked (and made plain floats and bools) by _check_group.
        # the keys in PyTorch's order: param_groups and state_dict() list them as PyTorch's do
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                                      weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable))

    def _check_group(self, group) -> None:
        super()._check_group(group)
        for key in ("alpha", "eps", "weight_decay", "momentum"):
            dict.__setitem__(group, key, _args.real_as_given(group[key], key, "RMSprop", minimum=0.0))
        for key in ("centered", "maximize"):
            dict.__setitem__(group, key, _args.flag(group[key], key, "RMSprop"))

    def _structure(self, group):
        return (group["momentum"] > 0,)

    def _update(self, p, group) -> None:
        st = self._state_for(p)
        if not st:
            st["step"] = self._zeros_state(p, "step", dtype=scalar_dtype(), shape=[])
            st["square_avg"] = self._zeros_state(p, "square_avg")
        if group["momentum"] > 0 and "momentum_buffer" not in st:
            st["momentum_buffer"] = self._zeros_state(p, "momentum_buffer")
        if group["centered"] and "grad_avg" not in st:
            st["grad_avg"] = self._zeros_state(p, "grad_avg")
        alpha = group["alpha"]
        g = self._grad(p, group)
        if group["weight_decay"] != 0:
            g = g + p * group["weight_decay"]
        self._assign(st, "step", st["step"] + 1)
        self._assign(st, "square_avg", st["square_avg"] * alpha + g * g * (1 - alpha))
        sq = st["square_avg"]
        if group["centered"]:
            self._assign(st, "grad_avg", st["grad_avg"] + (g - st["grad_avg"]) * (1 - alpha))
            avg = (sq - st["grad_avg"] * st["grad_avg"]).sqrt() + group["eps"]
        else:
            avg = sq.sqrt() + group["eps"]
        lr = self._hyper(group, "lr", p)
        if group["momentum"] > 0:
            buf = st["momentum_buffer"]
            new_p, new_buf = _op_multi("SGDMomentumUpdate", [p, g / avg, lr, buf, self._hyper(group, "momentum", p)],
                                       {"weight_decay": 0.0, "dampening": 0.0, "nesterov": False})
            self._swap(buf, new_buf)
        else:
            (new_p,) = _op_multi("SGDUpdate", [p, g / avg, lr], {"weight_decay": 0.0})
        self._swap(p, new_p)
