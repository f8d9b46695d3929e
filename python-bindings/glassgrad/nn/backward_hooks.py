"""Module.register_full_backward_hook and register_full_backward_pre_hook with PyTorch's calling
rules (docs/porting.md, the module hooks row):

- a backward pre-hook sees (module, grad_output) once the gradients of the module's outputs are
  known, and may return a new grad_output;
- a full backward hook sees (module, grad_input, grad_output) once the gradients of the module's
  positional tensor inputs are known (None for an input that needs none), and may return a new
  grad_input; when no input needs a gradient it runs with the output gradients, grad_input all
  None, as PyTorch's does (with its warning).

Both ride on two identity autograd Functions (PyTorch's BackwardHook does the same): one over the
inputs after the forward pre-hooks, one over the top-level tensor outputs after the forward hooks.
Each Function's backward receives all its gradients at once, so a hook sees the whole tuple."""
from __future__ import annotations

import warnings
from typing import Any, Callable, List, Optional

from .._factories import zeros_like
from .._tensor import Tensor
from .._trace import user_stacklevel
from ..autograd.function import Function
from ..utils.hooks import RemovableHandle
from . import forward_hooks as _fh
from . import legacy_backward_hooks as _legacy

FULL, PRE = "_backward_hooks", "_backward_pre_hooks"


def register(module, kind: str, hook: Callable, prepend: bool) -> RemovableHandle:
    return _fh.register(module, kind, hook, prepend)


def full_hooks(module) -> list:
    """The full backward hooks of module (the `_backward_hooks` tables also hold the deprecated
    non-full ones: legacy_backward_hooks)."""
    return _legacy.hooks(module, True)


def has_hooks(module) -> bool:
    return bool(full_hooks(module)) or bool(_fh.table_hooks(module, PRE))


def _needs_grad(a: Any) -> bool:
    return isinstance(a, Tensor) and a.requires_grad and a.dtype.is_floating_point


def _checked(result, expected: int, what: str, headline: str = "") -> tuple:
    """A hook's return value as a tuple of `expected` entries, else PyTorch's error (`headline`:
    the first line where PyTorch's differs from the full hooks' one)."""
    result = tuple(result) if isinstance(result, (tuple, list)) else (result,)
    if len(result) != expected:
        headline = headline or f"Backward hook returned an invalid number of {what}, got {len(result)}, but expected " \
                               f"{expected}"
        raise RuntimeError(f"{headline}\n  fix: return a tuple with one entry (a Tensor or None) per {what} entry, "
                           f"or None to keep them")
    return result


def _spread(n: int, slots: List[int], grads) -> tuple:
    """n entries: grads at their slots, None elsewhere."""
    full: List[Any] = [None] * n
    for slot, g in zip(slots, grads):
        full[slot] = g
    return tuple(full)


class _State:
    """One call's link between its output and input Functions."""

    def __init__(self, module, n_inputs: int, inputs_need_grad: bool):
        self.module, self.n_inputs, self.inputs_need_grad = module, n_inputs, inputs_need_grad
        self.grad_output: Optional[tuple] = None

    def run_full_hooks(self, grad_input: tuple) -> tuple:
        for hook in full_hooks(self.module):
            result = hook(self.module, grad_input, self.grad_output)
            if result is not None:
                grad_input = _checked(result, len(grad_input), "grad_input")
        return grad_input


class _OutputHook(Function):
    @staticmethod
    def forward(ctx, state: _State, slots: List[int], n_items: int, *outputs):
        ctx.state, ctx.slots, ctx.n_items = state, slots, n_items
        ctx.set_materialize_grads(False)  # an output the loss did not use has None in grad_output, as PyTorch's
        return outputs

    @staticmethod
    def backward(ctx, *grads):
        state = ctx.state
        grad_output = _spread(ctx.n_items, ctx.slots, grads)
        for hook in _fh.table_hooks(state.module, PRE):
            result = hook(state.module, grad_output)
            if result is not None:
                grad_output = _checked(result, len(grad_output), "grad_output")
        state.grad_output = grad_output
        if not state.inputs_need_grad and full_hooks(state.module):
            warnings.warn("Full backward hook is firing when gradients are computed with respect to module outputs "
                          "since no inputs require gradients.", stacklevel=user_stacklevel())
            state.run_full_hooks((None,) * state.n_inputs)
        return (None, None, None) + tuple(grad_output[s] for s in ctx.slots)


class _InputHook(Function):
    @staticmethod
    def forward(ctx, state: _State, slots: List[int], needs: List[bool], *inputs):
        ctx.state, ctx.slots, ctx.needs = state, slots, needs
        # as PyTorch's BackwardHookFunction: a copy of an input that needs no gradient needs none either
        ctx.mark_non_differentiable(*(x for x, need in zip(inputs, needs) if not need))
        return inputs

    @staticmethod
    def backward(ctx, *grads):
        state = ctx.state
        # an input that needs no gradient has zeros there, as PyTorch reports it
        grads = [g if need or g is None else zeros_like(g) for need, g in zip(ctx.needs, grads)]
        grad_input = state.run_full_hooks(_spread(state.n_inputs, ctx.slots, grads))
        return (None, None, None) + tuple(grad_input[s] for s in ctx.slots)


def wrap_inputs(module, args: tuple):
    """args with the tensors that need gradients passed through the input Function. grad_input has
    one entry per positional argument (None for those that are not tensors), as PyTorch's."""
    needs = any(_needs_grad(a) for a in args)
    state = _State(module, len(args), needs)
    if not needs or not full_hooks(module):
        return args, state
    # every floating tensor goes through, as in PyTorch: one that needs no gradient of its own
    # gets zeros in grad_input (its copy needs no gradient either)
    slots = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.dtype.is_floating_point]
    routed = _InputHook.apply(state, slots, [_needs_grad(args[i]) for i in slots], *(args[i] for i in slots))
    new = list(args)
    for i, t in zip(slots, routed):
        new[i] = t
    return tuple(new), state


def wrap_outputs(state: _State, output):
    """The output (a tensor, or a tuple/list whose tensors are routed) through the output Function;
    grad_output has one entry per item of the output (None for those without a gradient)."""
    single = isinstance(output, Tensor)
    items = [output] if single else list(output) if isinstance(output, (tuple, list)) else None
    if items is None:
        return output
    idx = [i for i, y in enumerate(items) if _needs_grad(y)]
    if not idx:
        return output
    routed = _OutputHook.apply(state, idx, len(items), *(items[i] for i in idx))
    for i, y in zip(idx, routed):
        items[i] = y
    return items[0] if single else type(output)(items)
