from __future__ import annotations

import numpy as np

from .. import _args
from .._dtypes import plain
from .._tensor import Tensor, _op
from ..functional import maximum, minimum, where
from ._composed import advance_step, lerp, like
from .optimizer import Optimizer, scalar_dtype


class Adafactor(Optimizer):
    """Adafactor (Shazeer & Stern 2018), PyTorch's torch.optim.Adafactor (same arguments, defaults,
    state and rule; eps=(eps1, eps2), eps1=None being the parameter dtype's machine epsilon):

        step += 1;  g = grad (-grad with maximize=True)
        beta2_t = step ** beta2_decay;  rho = min(lr, 1 / sqrt(step))
        alpha = max(eps2, rms(p)) * rho                    (p before the weight decay)
        p = p * (1 - lr * weight_decay)
        p of 2 or more axes: factored over the last two,
            row_var = lerp(row_var, mean(g^2, -1), beta2_t);  col_var = lerp(col_var, mean(g^2, -2), beta2_t)
            v = row_var * col_var / max(mean(row_var, -2), eps1)
        else:  variance = lerp(variance, g^2, beta2_t);  v = variance
        u = g / sqrt(max(v, eps1^2));  p = p - alpha / max(1, rms(u) / d) * u

    The state holds PyTorch's entries in its order: step, then row_var (the last axis 1) and
    col_var (the second-to-last axis 1), or variance for a vector. The factors computed from the
    step and the norms are float64 0-d tensors in the step's graph (no host read), cast to the
    parameter's dtype where they meet it, as PyTorch's Python floats are. foreach is accepted and
    ignored."""

    def __init__(self, params, lr: float = 1e-2, beta2_decay: float = -0.8, eps=(None, 1e-3), d: float = 1.0,
                 weight_decay: float = 0.0, *, foreach=None, maximize: bool = False):
        super().__init__(params, dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize))

    def _check_group(self, group) -> None:
        super()._check_group(group)
        name = type(self).__name__
        eps = group["eps"]
        if not isinstance(eps, (tuple, list)) or len(eps) != 2:
            raise TypeError(f"{name}: eps must be a pair (eps1, eps2), got {eps!r}\n  fix: eps=(None, 1e-3) "
                            "(PyTorch's default; eps1=None is the parameter dtype's machine epsilon)")
        eps1 = None if eps[0] is None else _args.real(eps[0], "eps[0] (epsilon1)", name, minimum=0.0)
        dict.__setitem__(group, "eps", (eps1, _args.real(eps[1], "eps[1] (epsilon2)", name, minimum=0.0)))
        dict.__setitem__(group, "beta2_decay", _args.real_as_given(group["beta2_decay"], "beta2_decay", name, maximum=0.0,
                                                          fix="beta2_decay=-0.8 (PyTorch's default)"))
        dict.__setitem__(group, "d", _args.real_as_given(group["d"], "d (clipping threshold)", name, minimum=1.0,
                                                fix="d=1.0 (PyTorch's default)"))
        dict.__setitem__(group, "weight_decay", _args.real_as_given(group["weight_decay"], "weight_decay", name, minimum=0.0))
        dict.__setitem__(group, "maximize", _args.flag(group["maximize"], "maximize", name))

    def _state_shape(self, p, name: str):
        shape = tuple(p.shape)
        if name == "row_var" and p.ndim > 1:
            return shape[:-1] + (1,)
        if name == "col_var" and p.ndim > 1:
            return shape[:-2] + (1, shape[-1])
        return shape

    def _update(self, p, group) -> None:
        st = self._state_for(p)
        factored = p.ndim > 1
        if not st:  # PyTorch's entries in its order
            st["step"] = self._zeros_state(p, "step", dtype=scalar_dtype(), shape=[])
            if factored:
                st["row_var"] = self._zeros_state(p, "row_var", shape=list(self._state_shape(p, "row_var")))
                st["col_var"] = self._zeros_state(p, "col_var", shape=list(self._state_shape(p, "col_var")))
            else:
                st["variance"] = self._zeros_state(p, "variance")
        eps1, eps2 = group["eps"]
        if eps1 is None:
            eps1 = float(np.finfo(np.dtype(plain(p.dtype))).eps)
        g = self._grad(p, group)
        step = advance_step(self, st)
        # PyTorch's Python floats, in the same operations: step ** beta2_decay, 1 / step ** 0.5,
        # norm / numel ** 0.5 (float64 0-d tensors here).
        beta2_t = like(step ** group["beta2_decay"], p)
        lr = self._hyper(group, "lr", p, "float64")
        inv_sqrt = 1.0 / step.sqrt()
        scale = maximum(p.norm().astype("float64") / p.numel() ** 0.5, eps2)
        if factored:
            self._assign(st, "row_var", lerp(st["row_var"], (g * g).mean(-1, keepdim=True), beta2_t))
            self._assign(st, "col_var", lerp(st["col_var"], (g * g).mean(-2, keepdim=True), beta2_t))
            v = st["row_var"] * st["col_var"] / st["row_var"].mean(-2, keepdim=True).clamp(min=eps1)
        else:
            self._assign(st, "variance", lerp(st["variance"], g * g, beta2_t))
            v = st["variance"]
        u = v.clamp(min=eps1 * eps1).rsqrt() * g
        denom = maximum(u.norm().astype("float64") / (u.numel() ** 0.5 * group["d"]), 1.0)
        step_size = scale * minimum(lr, inv_sqrt) / denom
        decay = 1 - lr * group["weight_decay"]
        if isinstance(group["lr"], Tensor) and group["lr"].dtype != "float64":
            # A tensor lr: PyTorch's min(lr, 1 / sqrt(step)) is then that tensor where it is the
            # smaller, and what is computed from it is in its dtype (float32).
            ldt = plain(group["lr"].dtype)
            lr_t = self._hyper(group, "lr", p, ldt)
            from_tensor = (scale.astype(ldt) * lr_t / denom.astype(ldt)).astype("float64")
            step_size = where(inv_sqrt < lr, step_size, from_tensor)
            decay = (1 - lr_t * group["weight_decay"]).astype("float64")
        new_p = p
        if group["weight_decay"] != 0:
            new_p = p * like(decay, p)
        new_p = new_p - u * like(step_size, p)
        self._swap(p, _op("Assign", [p, new_p]))
