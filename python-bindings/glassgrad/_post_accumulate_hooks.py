"""Tensor.register_post_accumulate_grad_hook: hook(tensor) runs once backward() has added a leaf's
gradient into its .grad (PyTorch's, as optimizer-in-backward code uses it); autograd.grad, which
fills no .grad, runs none. Registered hooks are held per leaf, weakly, by the leaf's id."""
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
        _HOOKS[key] = (weakref.ref(leaf, lambda _ref: _HOOKS.pop(key, None)), [])
    entry = _HOOKS[key][1]
    entry.append(hook)

    def remove():
        if hook in entry:
            entry.remove(hook)
    return RemovableHandle(remove)


def hooked_leaves(loss, inputs) -> list:
    """The leaves with hooks whose .grad this backward of loss fills (inputs, when given)."""
    if not _HOOKS:
        return []
    if inputs is not None:
        handles = [t._h for t in (inputs if isinstance(inputs, (tuple, list)) else (inputs,))]
    else:
        handles = loss._h.leaves_requiring_grad()
    found = []
    for ref, hooks in list(_HOOKS.values()):
        leaf = ref()
        if leaf is not None and hooks and any(h.same_value(leaf._h) for h in handles):
            found.append(leaf)
    return found


def run(leaves) -> None:
    """Calls each leaf's hooks with the leaf, its .grad now complete (under no_grad, as PyTorch);
    a hook returning a value raises PyTorch's RuntimeError."""
    from ._runtime import no_grad
    with no_grad():
        for leaf in leaves:
            for hook in list(_HOOKS.get(id(leaf), (None, []))[1]):
                if hook(leaf) is not None:
                    name = getattr(hook, "__name__", type(hook).__name__)
                    raise _C.TensorStateError(
                        "Tensor post accumulate grad hooks should return None.\n  register_post_accumulate_grad_hook: "
                        f"the hook '{name}' returned a value (a leaf {list(leaf.shape)}); it runs for its effects "
                        "only\n  fix: return nothing (an in-place op such as p.grad.mul_(0.5) returns its tensor: "
                        "put it on a line of its own)")
