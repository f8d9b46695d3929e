"""Module.register_backward_hook and nn.modules.module.register_module_backward_hook: PyTorch's
deprecated ("non-full") module backward hooks, with its rules and warnings.

PyTorch registers such a hook on the grad_fn of the module's output (its first tensor: result,
result[0], ... as PyTorch walks it): hook(module, grad_input, grad_output) sees the gradients of
that one node's inputs (in its next_functions order, None where an input needs none) and of its
output, and may return a new grad_input. For Linear that is addmm's (bias, input, weight.t()), for
a Sequential its last layer's node. The flags (module._is_full_backward_hook, and the global one)
keep one module from mixing these with full hooks, as PyTorch's do.

Here the output is re-made by an autograd Function over that node's inputs: its backward computes
the node's own gradients (autograd.grad of the node's output, which keeps its graph), runs the
hooks and returns their grad_input to the inputs, so a returned grad_input replaces what flows on,
as in PyTorch. The output is a new tensor with the same values (PyTorch returns the same object)."""
from __future__ import annotations

import warnings
import weakref
from typing import Any, Callable, Dict, List, Optional, Tuple

from .._tensor import Tensor, _wrap
from .._trace import user_stacklevel
from ..autograd.function import Function, FunctionCtx
from . import forward_hooks as _fh

FULL = _fh.BACKWARD
_MIXED_MODULE = ("Cannot use both regular backward hooks and full backward hooks on a single Module. Please use only "
                 "one of them.")
_MIXED_GLOBAL = ("Cannot use both regular backward hooks and full backward hooks as a global Module hook. Please use "
                 "only one of them.")


class _GlobalFlag:
    """torch.nn.modules.module._global_is_full_backward_hook: None until a global backward hook is
    registered, then whether those hooks are full ones."""
    is_full: Optional[bool] = None


GLOBAL_FLAG = _GlobalFlag()


def mark(module, full: bool) -> None:
    """Records which kind of backward hook `module` (or the global table, module None) has; one
    of the other kind raises PyTorch's RuntimeError."""
    if module is None:
        if GLOBAL_FLAG.is_full is (not full):
            raise RuntimeError(_MIXED_GLOBAL + "\n  fix: register_module_full_backward_hook for every global hook")
        GLOBAL_FLAG.is_full = full
        return
    if module.__dict__.get("_is_full_backward_hook") is (not full):
        raise RuntimeError(_MIXED_MODULE + "\n  fix: register_full_backward_hook for every hook of this module "
                                           "(register_backward_hook is deprecated)")
    object.__setattr__(module, "_is_full_backward_hook", full)


def hooks(module, full: bool) -> list:
    """The module's backward hooks of one kind (full or not): the global ones first, as PyTorch's
    Module._get_backward_hooks orders them."""
    found = list(_fh.GLOBAL_TABLES.get(FULL, {}).values()) if GLOBAL_FLAG.is_full is full else []
    if module.__dict__.get("_is_full_backward_hook") is full:
        found += list(module.__dict__.get(FULL, {}).values())
    return found


def has_hooks(module) -> bool:
    return bool(hooks(module, False))


class _State:
    """One node's hooks: (module, hook) pairs in registration order. A module whose output is an
    inner module's (a Sequential's last layer) adds its hooks to that node's, after the inner ones,
    as PyTorch registers both on the one grad_fn."""

    def __init__(self, output: Tensor, grad_fn, inputs: List[Any]):
        self.output, self.grad_fn, self.inputs = output, grad_fn, inputs
        self.hooks: List[Tuple[Any, Callable]] = []


# id(routed output) -> (weak reference to it, its _State, its _version when routed)
_ROUTED: Dict[int, Tuple[Any, _State, int]] = {}


def _routed_state(t: Tensor) -> Optional[_State]:
    """The state of the node t stands for, while t is still that node's output: an in-place op
    since (a ReLU(inplace=True) after a hooked convolution) made t the output of a node of its own,
    whose hooks are the next module's."""
    entry = _ROUTED.get(id(t))
    return entry[1] if entry is not None and entry[0]() is t and entry[2] == t._version else None


def _remember(t: Tensor, state: _State) -> None:
    key = id(t)
    _ROUTED[key] = (weakref.ref(t, lambda _ref: _ROUTED.pop(key, None)), state, t._version)


class _NodeHook(Function):
    @staticmethod
    def forward(ctx, state: _State, *needing):
        ctx.state = state
        return state.output.detach()

    @staticmethod
    def backward(ctx, grad):
        from ..autograd.gradients import grad as autograd_grad
        from .backward_hooks import _checked
        state = ctx.state
        slots = [i for i, t in enumerate(state.inputs) if t is not None]
        computed = autograd_grad(state.output, [state.inputs[i] for i in slots], grad, retain_graph=True,
                                 allow_unused=True)
        grad_input: tuple = tuple(computed[slots.index(i)] if i in slots else None for i in range(len(state.inputs)))
        for module, hook in state.hooks:
            result = hook(module, grad_input, (grad,))
            if result is not None:
                n = len(result) if isinstance(result, (tuple, list)) else 1
                grad_input = _checked(result, len(grad_input), "grad_input", f"hook 'hook' has returned an incorrect "
                                      f"number of values (got {n}, but expected {len(grad_input)})")
        return (None,) + tuple(grad_input[i] for i in slots)


def _first_tensor(result):
    """PyTorch's walk to the tensor whose grad_fn gets the hooks: result, else result[0] (a dict:
    its first tensor value), repeatedly. Returns (tensor, rebuild) with rebuild(new) the result
    with that tensor replaced."""
    if isinstance(result, Tensor):
        return result, lambda new: new
    if isinstance(result, dict):
        key = next((k for k, v in result.items() if isinstance(v, Tensor)), None)
        if key is None:
            return None, None
        inner, rebuild = _first_tensor(result[key])
        return inner, lambda new: type(result)({**result, key: rebuild(new)})
    if isinstance(result, (tuple, list)) and result:
        inner, rebuild = _first_tensor(result[0])
        if inner is None:
            return None, None
        rest = list(result[1:])

        def rebuild_sequence(new):
            items = [rebuild(new)] + rest
            return type(result)(*items) if hasattr(result, "_fields") else type(result)(items)

        return inner, rebuild_sequence
    return None, None


def _node_key(node) -> Any:
    """What identifies a next_functions entry or a grad_fn across reads (each read makes a new
    object): the identity of the value it made, or of the leaf it accumulates into."""
    if node is None:
        return None
    if isinstance(node, FunctionCtx):  # a custom Function's node is its ctx: the same object on every read
        return ("ctx", id(node))
    h = getattr(node, "_h", None)
    return ("node", h.identity) if h is not None else ("leaf", node._leaf.identity)


def _same_nodes(a: list, b: list) -> bool:
    """Whether the two lists of _node_key hold the same nodes (as sets)."""
    return set(a) == set(b)


def _warn_like_pytorch(args: tuple, result, grad_fn, routed: Optional[Tensor] = None) -> None:
    """PyTorch's Module._maybe_warn_non_full_backward_hook: a FutureWarning saying which part of
    grad_input or grad_output the hook misses. `routed`: an output standing for grad_fn's node."""
    stack = user_stacklevel()
    results = (result,) if isinstance(result, Tensor) else result
    if not (isinstance(results, tuple) and all(isinstance(r, Tensor) for r in results)):
        warnings.warn("Using non-full backward hooks on a Module that does not return a single Tensor or a tuple of "
                      "Tensors is deprecated and will be removed in future versions. This hook will be missing some "
                      "of the grad_output. Please use register_full_backward_hook to get the documented behavior.",
                      FutureWarning, stacklevel=stack)
        return
    if not all(isinstance(a, Tensor) for a in args):
        warnings.warn("Using non-full backward hooks on a Module that does not take as input a single Tensor or a "
                      "tuple of Tensors is deprecated and will be removed in future versions. This hook will be "
                      "missing some of the grad_input. Please use register_full_backward_hook to get the documented "
                      "behavior.", FutureWarning, stacklevel=stack)
        return
    out_nodes: list = []
    for r in results:
        key = _node_key(grad_fn if r is routed else r.grad_fn)
        if key is not None and key not in out_nodes:
            out_nodes.append(key)
    if not out_nodes or (len(out_nodes) == 1 and not _same_nodes(out_nodes, [_node_key(grad_fn)])):
        warnings.warn("Using a non-full backward hook when outputs are nested in python data structure is deprecated "
                      "and will be removed in future versions. This hook will be missing some grad_output.",
                      FutureWarning, stacklevel=stack)
    elif len(out_nodes) > 1:
        warnings.warn("Using a non-full backward hook when outputs are generated by different autograd Nodes is "
                      "deprecated and will be removed in future versions. This hook will be missing some grad_output. "
                      "Please use register_full_backward_hook to get the documented behavior.", FutureWarning,
                      stacklevel=stack)
    else:
        inputs_nodes = [_node_key(a.grad_fn) for a in args if a.grad_fn is not None]
        next_nodes = [_node_key(n) for n, _ in grad_fn.next_functions]
        if not _same_nodes(inputs_nodes, next_nodes):
            warnings.warn("Using a non-full backward hook when the forward contains multiple autograd Nodes is "
                          "deprecated and will be removed in future versions. This hook will be missing some "
                          "grad_input. Please use register_full_backward_hook to get the documented behavior.",
                          FutureWarning, stacklevel=stack)


def attach(module, args: tuple, result):
    """The module's result with its first tensor routed through the hooks' Function (unchanged
    when that tensor has no grad_fn, as in PyTorch, where the hooks then never run)."""
    var, rebuild = _first_tensor(result)
    if var is None:
        return result
    inner = _routed_state(var)
    if inner is not None:  # an inner module's hooked output: the same node, PyTorch's order
        _warn_like_pytorch(args, result, inner.grad_fn, var)
        inner.hooks += [(module, hook) for hook in hooks(module, False)]
        return result
    grad_fn = var.grad_fn
    if grad_fn is None:
        return result
    inputs = [_wrap(h) if h is not None and h.requires_grad else None for h in grad_fn._composite_inputs()]
    if grad_fn._op.endswith("Scalar"):  # PyTorch's node lists the number too (next_functions)
        inputs.append(None)
    _warn_like_pytorch(args, result, grad_fn)
    state = _State(var, grad_fn, inputs)
    state.hooks += [(module, hook) for hook in hooks(module, False)]
    routed = _NodeHook.apply(state, *(t for t in inputs if t is not None))
    _remember(routed, state)
    return rebuild(routed)
