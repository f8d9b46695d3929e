from __future__ import annotations

from .optimizer import Optimizer, _op_multi


class SGD(Optimizer):
    """Stochastic gradient descent with PyTorch's update rule (dampening 0):
        d = g + weight_decay * p
        buf = momentum * buf + d               (momentum > 0; buf starts at zero)
        d = d + momentum * buf if nesterov else buf
        p = p - lr * d
    """

    def __init__(self, params, lr: float, momentum: float = 0.0, weight_decay: float = 0.0, nesterov: bool = False):
        super().__init__(params, lr)
        if momentum < 0 or weight_decay < 0:
            raise ValueError(f"SGD: momentum and weight_decay must be >= 0, got {momentum}, {weight_decay}")
        if nesterov and momentum == 0:
            raise ValueError("SGD: nesterov=True needs momentum > 0")
        self.momentum, self.weight_decay, self.nesterov = float(momentum), float(weight_decay), bool(nesterov)

    def _update(self, p) -> None:
        lr = self._lr_for(p)
        if self.momentum == 0:
            (new_p,) = _op_multi("SGDUpdate", [p, p.grad, lr], {"weight_decay": self.weight_decay})
            self._swap(p, new_p)
            return
        st = self.state.setdefault(id(p), {})
        if "momentum_buffer" not in st:
            st["momentum_buffer"] = self._zeros_state(p, "momentum_buffer")
        buf = st["momentum_buffer"]
        new_p, new_buf = _op_multi("SGDMomentumUpdate", [p, p.grad, lr, buf],
                                   {"momentum": self.momentum, "weight_decay": self.weight_decay,
                                    "nesterov": self.nesterov})
        self._swap(p, new_p)
        self._swap(buf, new_buf)
