from __future__ import annotations

from .optimizer import Optimizer, _op_multi


class Adam(Optimizer):
    """Adam with PyTorch's update rule (L2 weight decay added to the gradient):
        t += 1;  g = g + weight_decay * p
        m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2
        p = p - lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)
    """

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0.0):
        super().__init__(params, lr)
        b1, b2 = betas
        if not (0 <= b1 < 1 and 0 <= b2 < 1):
            raise ValueError(f"Adam: betas must be in [0, 1), got {betas}")
        self.betas, self.eps, self.weight_decay = (float(b1), float(b2)), float(eps), float(weight_decay)

    def _update(self, p) -> None:
        st = self.state.setdefault(id(p), {})
        if not st:
            st["exp_avg"] = self._zeros_state(p, "exp_avg")
            st["exp_avg_sq"] = self._zeros_state(p, "exp_avg_sq")
            st["step"] = self._zeros_state(p, "step", dtype="int64", shape=[])
        new = _op_multi("AdamUpdate", [p, p.grad, self._lr_for(p), st["exp_avg"], st["exp_avg_sq"], st["step"]],
                        {"beta1": self.betas[0], "beta2": self.betas[1], "eps": self.eps,
                         "weight_decay": self.weight_decay})
        self._swap(p, new[0])
        self._swap(st["exp_avg"], new[1])
        self._swap(st["exp_avg_sq"], new[2])
        self._swap(st["step"], new[3])
