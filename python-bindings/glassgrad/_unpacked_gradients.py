"""The gradient from what a saved_tensors_hooks unpack_hook returned (docs/autograd.md, "Hooks for
saved tensors"). PyTorch's backward formula reads the unpacked tensors; glassgrad's reads the
forward values, so where an unpacked tensor differs from the one saved, the difference of the two
formulas is added to each input's gradient for this backward: a hook on the op's output keeps
the gradient g reaching it, a hook on each input adds delta(g) (exact, as gradients add up over
an input's uses). Covered: mul, matmul of matrices, div, sin, cos, log, abs, and the ops whose
node saves their result (exp, sigmoid, tanh, relu, sqrt, rsqrt)."""
from __future__ import annotations

from typing import Callable, Dict, List, Optional


def correct(op: str, inputs: tuple, output, saved: list, unpacked: list) -> None:
    """Registers this backward's correction of op's input gradients where unpacked differs from saved."""
    from ._tensor import Tensor
    if len(unpacked) != len(saved) or all(_same(s, u) for s, u in zip(saved, unpacked)):
        return
    if not all(isinstance(u, Tensor) and tuple(u.shape) == tuple(s.shape) for s, u in zip(saved, unpacked)):
        return
    subs = {id(s): u.detach() for s, u in zip(saved, unpacked)}
    deltas = _DELTAS.get(op)
    if deltas is None:
        return
    tensors = [t for t in inputs if isinstance(t, Tensor)]
    found = deltas(tensors, output, subs)
    if not found:
        return
    state: Dict[str, Optional[object]] = {"g": None}

    def keep(g):
        state["g"] = g
        return None
    _once(output, keep)
    for x, delta in found:
        if x.requires_grad:
            _once(x, _adder(state, delta))


def _same(saved, unpacked) -> bool:
    from ._tensor import Tensor
    if unpacked is saved:
        return True
    if not isinstance(unpacked, Tensor) or tuple(unpacked.shape) != tuple(saved.shape):
        return False
    if unpacked._h.identity == saved._h.identity:
        return True
    return bool((unpacked.detach().to(saved.device) == saved.detach()).all().item())


def _once(t, hook: Callable) -> None:
    """hook on t's gradient for the next backward only (a later one finds it spent)."""
    spent = [False]

    def run(g):
        if spent[0]:
            return None
        spent[0] = True
        return hook(g)
    t.register_hook(run)


def _adder(state: dict, delta: Callable) -> Callable:
    def add(grad):
        g = state["g"]
        return None if g is None or grad is None else grad + delta(g)
    return add


def _to(value, like):
    """value summed to like's shape (undoing the op's broadcast)."""
    if tuple(value.shape) == tuple(like.shape):
        return value
    return value.sum_to_size(*like.shape) if like.ndim else value.sum()


def _sub(subs: dict, t):
    return subs.get(id(t), t.detach())


def _mul(tensors: List, output, subs: dict) -> list:
    a, b = tensors
    a0, b0 = a.detach(), b.detach()
    a1, b1 = _sub(subs, a), _sub(subs, b)
    return [(a, lambda g: _to(g * (b1 - b0), a)), (b, lambda g: _to(g * (a1 - a0), b))]


def _matmul(tensors: List, output, subs: dict) -> list:
    a, b = tensors
    if a.ndim != 2 or b.ndim != 2:
        return []
    a0, b0 = a.detach(), b.detach()
    a1, b1 = _sub(subs, a), _sub(subs, b)
    return [(a, lambda g: g @ (b1 - b0).t()), (b, lambda g: (a1 - a0).t() @ g)]


def _div(tensors: List, output, subs: dict) -> list:
    a, b = tensors
    a0, b0 = a.detach(), b.detach()
    a1, b1 = _sub(subs, a), _sub(subs, b)
    return [(a, lambda g: _to(g / b1 - g / b0, a)),
            (b, lambda g: _to(g * a0 / (b0 * b0) - g * a1 / (b1 * b1), b))]


def _from_result(formula: Callable) -> Callable:
    """An op whose node saves its result r: delta = g * (formula(r') - formula(r))."""
    def deltas(tensors: List, output, subs: dict) -> list:
        r0 = output.detach()
        r1 = subs.get(id(output), r0)
        return [(tensors[0], lambda g: g * (formula(r1) - formula(r0)))]
    return deltas


def _from_input(derivative: Callable) -> Callable:
    """A one-input op whose node saves its input x: delta = g * (derivative(x') - derivative(x))."""
    def deltas(tensors: List, output, subs: dict) -> list:
        x = tensors[0]
        x0 = x.detach()
        x1 = _sub(subs, x)
        return [(x, lambda g: g * (derivative(x1) - derivative(x0)))]
    return deltas


_DELTAS: Dict[str, Callable] = {
    "Mul": _mul, "MatMul": _matmul, "Div": _div,
    "Exp": _from_result(lambda r: r),
    "Sigmoid": _from_result(lambda r: r * (1 - r)),
    "Tanh": _from_result(lambda r: 1 - r * r),
    "ReLU": _from_result(lambda r: (r > 0).to(r.dtype)),
    "Sqrt": _from_result(lambda r: 0.5 / r),
    "Rsqrt": _from_result(lambda r: -0.5 * r * r * r),
    "Sin": _from_input(lambda x: x.cos()), "Cos": _from_input(lambda x: -x.sin()),
    "Log": _from_input(lambda x: 1 / x), "Abs": _from_input(lambda x: x.sign()),
}
