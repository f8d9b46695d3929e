from __future__ import annotations

import math

from .. import _args
from .._tensor import Tensor, _op
from .._shapes import addmm
from ._composed import lerp, like
from .optimizer import Optimizer

# PyTorch's defaults (torch.optim.Muon): the quintic Newton-Schulz coefficients and steps.
DEFAULT_NS_COEFFICIENTS = (3.4445, -4.7750, 2.0315)
EPS = 1e-7
DEFAULT_NS_STEPS = 5


def zeropower_via_newtonschulz(grad: Tensor, ns_coefficients, ns_steps: int, eps: float,
                               dtype: str = "bfloat16") -> Tensor:
    """PyTorch's Newton-Schulz orthogonalization of a 2-d gradient: X = grad in `dtype` (bfloat16,
    as PyTorch's), transposed when it has more rows than columns, divided by max(||X||_F, eps);
    then ns_steps times A = X X^T, B = b A + c A A, X = a X + B X; transposed back. The result is
    about U S' V^T with S' in (0.5, 1.5) for grad = U S V^T (docs/optimizers.md).

    A bfloat16 X is rounded where PyTorch's bfloat16 ops round it: each product and each addmm
    is computed in float32 (PyTorch's accumulation type for bfloat16) and rounded once."""
    a, b, c = ns_coefficients
    work = "float32" if dtype in ("bfloat16", "float16") else dtype

    def rounded(t: Tensor) -> Tensor:  # stored as `dtype`, computed on as `work`
        return t.astype(dtype).astype(work) if dtype != work else t

    x = rounded(grad.astype(work) if grad.dtype != work else grad)
    tall = grad.shape[0] > grad.shape[1]
    if tall:
        x = x.T
    x = rounded(x / rounded(x.norm()).clamp(min=eps))
    for _ in range(ns_steps):
        gram = rounded(x @ x.T)
        x = rounded(addmm(x, rounded(addmm(gram, gram, gram, beta=b, alpha=c)), x, beta=a))
    x = x.astype(dtype) if dtype != work else x
    return x.T if tall else x


class Muon(Optimizer):
    """Muon (MomentUm Orthogonalized by Newton-Schulz), PyTorch's torch.optim.Muon (same arguments,
    defaults, state and rule), for 2-d parameters only (PyTorch's ValueError for any other):

        buf = lerp(buf, grad, 1 - momentum)
        u = lerp(grad, buf, momentum) if nesterov else buf
        u = zeropower_via_newtonschulz(u, ns_coefficients, ns_steps, eps)   (in bfloat16)
        p = p * (1 - lr * weight_decay) - lr * ratio * u
        ratio = sqrt(max(1, A / B)) ("original", None) or 0.2 * sqrt(max(A, B)) ("match_rms_adamw")
        for a parameter of shape (A, B)

    The state holds PyTorch's one entry, momentum_buffer. The orthogonalization runs in bfloat16,
    rounded where PyTorch's rounds, so the updates agree with PyTorch's to the last bfloat16 bit
    but where a sum's float32 order differs (then by one bfloat16 ulp of an entry)."""

    _ADJUST = (None, "original", "match_rms_adamw")

    def __init__(self, params, lr: float = 1e-3, weight_decay: float = 0.1, momentum: float = 0.95,
                 nesterov: bool = True, ns_coefficients=DEFAULT_NS_COEFFICIENTS, eps: float = EPS,
                 ns_steps: int = DEFAULT_NS_STEPS, adjust_lr_fn=None):
        super().__init__(params, dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                                      ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps,
                                      adjust_lr_fn=adjust_lr_fn))

    def _check_group(self, group) -> None:
        super()._check_group(group)
        name = type(self).__name__
        for p in group["params"]:
            if p.ndim != 2:
                raise ValueError(f"Muon only supports 2D parameters whereas we found a parameter with size: "
                                 f"{list(p.shape)}\n  fix: give Muon the 2-d weights only and another optimizer "
                                 "(AdamW) the rest: [p for p in model.parameters() if p.ndim == 2]")
        dict.__setitem__(group, "momentum", _args.real_as_given(group["momentum"], "momentum", name, minimum=0.0))
        dict.__setitem__(group, "weight_decay", _args.real_as_given(group["weight_decay"], "weight_decay", name, minimum=0.0))
        dict.__setitem__(group, "nesterov", _args.flag(group["nesterov"], "nesterov", name))
        dict.__setitem__(group, "eps", _args.real_as_given(group["eps"], "eps", name))  # unchecked, as PyTorch's
        coefficients = group["ns_coefficients"]
        if not isinstance(coefficients, (tuple, list)) or len(coefficients) != 3:
            raise ValueError(f"Coefficients must be a tuple of exactly 3 values\n  {name}: got ns_coefficients="
                             f"{coefficients!r}; fix: ns_coefficients={DEFAULT_NS_COEFFICIENTS} (PyTorch's default)")
        dict.__setitem__(group, "ns_coefficients", tuple(
            _args.real(v, f"ns_coefficients[{i}]", name) for i, v in enumerate(coefficients)))
        steps = _args.integer(group["ns_steps"], "ns_steps", name, minimum=0)
        if steps >= 100:  # PyTorch raises this at the step; here when the group is made
            raise ValueError(f"Number of steps must be less than 100 for computational efficiency\n  {name}: got "
                             f"ns_steps={steps}; fix: ns_steps={DEFAULT_NS_STEPS} (PyTorch's default)")
        dict.__setitem__(group, "ns_steps", steps)
        if group["adjust_lr_fn"] not in self._ADJUST:
            raise ValueError(f"Adjust learning rate function {group['adjust_lr_fn']} is not supported\n  fix: "
                             "adjust_lr_fn=None (or 'original'), or 'match_rms_adamw'")

    @staticmethod
    def _ratio(shape, adjust_lr_fn) -> float:
        rows, cols = shape[:2]
        if adjust_lr_fn in (None, "original"):
            return math.sqrt(max(1, rows / cols))
        return 0.2 * math.sqrt(max(rows, cols))

    def _update(self, p, group) -> None:
        st = self._state_for(p)
        if not st:
            st["momentum_buffer"] = self._zeros_state(p, "momentum_buffer")
        g, m = p.grad, group["momentum"]
        self._assign(st, "momentum_buffer", lerp(st["momentum_buffer"], g, 1 - m))
        buf = st["momentum_buffer"]
        # PyTorch's lerp with a weight >= 0.5 is end - (end - start) * (1 - weight).
        u = (buf - (buf - g) * (1 - m) if m >= 0.5 else lerp(g, buf, m)) if group["nesterov"] else buf
        u = zeropower_via_newtonschulz(u, group["ns_coefficients"], group["ns_steps"], group["eps"])
        lr = self._hyper(group, "lr", p, "float64")
        new_p = p
        if group["weight_decay"] != 0:
            new_p = p * like(1 - lr * group["weight_decay"], p)
        new_p = new_p - u.astype(p.dtype) * like(lr * self._ratio(p.shape, group["adjust_lr_fn"]), p)
        self._swap(p, _op("Assign", [p, new_p]))
