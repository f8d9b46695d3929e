"""Tensor.register_post_accumulate_grad_hook: hook(tensor) runs right after backward() has added
a leaf's gradient into its .grad, before the next leaf's hooks, in the order PyTorch's engine
completes the leaves (the last layer's parameters first), as optimizer-in-backward code uses it
(docs/gradient-hooks.md); autograd.grad, which fills no .grad, runs none. Registered hooks are
held per leaf, weakly, by the leaf's id; the runtime calls `run` for the leaf through the one
callback it keeps on the leaf's value (set_post_accumulate_hook), which moves with the parameter
through its updates as its gradient hooks do.
"""
from __future__ import annotations

import weakref

from . import _C

# id(leaf) -> (weak reference to the leaf, its hooks in registration order)
_HOOKS: dict = {}


def register(leaf, hook):
    from .utils.hooks import RemovableHandle
    if not leaf.requires_grad:
        raise _C.TensorStateError("cannot register a hook on a tensor that doesn't require gradient\n"
                                  "  register_post_accumulate_grad_hook: this tensor is not part of a gradient "
                                  "computation\n  fix: x.requires_grad_() first")
    if not leaf.is_leaf:
        raise _C.TensorStateError("post accumulate grad hooks cannot be registered on non-leaf tensors\n"
                                  "  register_post_accumulate_grad_hook: this tensor is computed from others\n"
                                  "  fix: register it on the leaf (a parameter), or use register_hook here")
    if not callable(hook):
        raise TypeError(f"register_post_accumulate_grad_hook: hook must be callable, got {type(hook).__name__}")
    key = id(leaf)
    if key not in _HOOKS:
        ref = weakref.ref(leaf, lambda _ref: _HOOKS.pop(key, None))
        _HOOKS[key] = (ref, [])
        leaf._h.set_post_accumulate_hook(lambda: run(ref()))
    entry = _HOOKS[key][1]
    entry.append(hook)

    def remove():
        if hook in entry:
            entry.remove(hook)
    return RemovableHandle(remove)


def run(leaf) -> None:
    """Calls the leaf's hooks with the leaf, its .grad now holding this backward's gradient (under
    no_grad, as PyTorch); a hook returning a value raises PyTorch's RuntimeError. Nothing for a
    leaf collected since, or one without hooks."""
    entry = _HOOKS.get(id(leaf)) if leaf is not None else None
    if entry is None or entry[0]() is not leaf:
        return
    from ._runtime import no_grad
    with no_grad():
        for hook in list(entry[1]):
            if hook(leaf) is not None:
                name = getattr(hook, "__name__", type(hook).__name__)
                raise _C.TensorStateError(
                    "Tensor post accumulate grad hooks should return None.\n  register_post_accumulate_grad_hook: "
                    f"the hook '{name}' returned a value (a leaf {list(leaf.shape)}); it runs for its effects "
                    "only\n  fix: return nothing (an in-place op such as p.grad.mul_(0.5) returns its tensor: "
                    "put it on a line of its own)")
