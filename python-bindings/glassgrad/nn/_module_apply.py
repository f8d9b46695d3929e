"""Module._apply(fn, recurse=True), PyTorch's one path for converting a model's tensors: fn is
applied to every parameter, buffer and parameter gradient, children first, and each parameter and
buffer takes fn's result (install: a parameter keeps its object, a buffer is a new tensor). Models override it to convert tensors of
their own along, calling super()._apply(fn) first (a detection head that moves its anchor grid:
`def _apply(self, fn): self = super()._apply(fn); self.grid = fn(self.grid); return self`), so
Module.to, cuda, cpu, float, double, half, bfloat16 and type go through it whenever a module of
the model overrides it (overrides_apply); otherwise they take their own paths in module.py."""
from __future__ import annotations

from typing import Callable


def overrides_apply(module) -> bool:
    """Whether a module of the tree (module included) has a class that overrides _apply."""
    from .module import Module
    return any(type(m)._apply is not Module._apply for m in module.modules())


def apply_fn(module, fn: Callable, recurse: bool = True):
    """Module._apply: children first (through their own _apply), then module's own parameters and
    buffers, all of them rebound at once (an error leaves them as they were), then the gradients."""
    from .._runtime import no_grad
    from .._tensor import Tensor
    from .module import Parameter, _leaf_for
    if recurse:
        for child in module.children():
            child._apply(fn)
    pairs, grads = [], []
    with no_grad():
        for table in (module._parameters, module._buffers):
            for t in table.values():
                if t is None:
                    continue
                new = fn(t)
                if not isinstance(new, Tensor):
                    raise TypeError(f"{type(module).__name__}._apply: fn returned a {type(new).__name__} for the "
                                    f"tensor '{t.name}'\n  fix: fn must map each tensor to a tensor")
                if new is not t:
                    pairs.append((t, _leaf_for(t, new._raw())))
                if isinstance(t, Parameter) and t.grad is not None:
                    grads.append((t, fn(t.grad)))
    install(module, pairs, recurse=False)
    for t, grad in grads:
        t.grad = grad
    return module


def install(root, pairs, recurse: bool = True) -> None:
    """[(tensor, its converted leaf)] for the parameters and buffers of root (and, with recurse, of
    its submodules), as PyTorch's _apply installs them: a parameter keeps its object, pointed at its
    new leaf (param.data = fn(param)); a buffer's entries become a new tensor over its leaf and the
    old object, perhaps a tensor the caller registered, stays as it was (_buffers[key] = fn(buf):
    model.half() leaves that tensor float32). A buffer shared by two entries stays shared. The leaves
    are made before this is called, so a failed conversion leaves the model as it was."""
    from .._tensor import _wrap
    from .module import _bump_structure_version, rebind_all
    modules = list(root.modules()) if recurse else [root]
    buffers = {id(b) for m in modules for b in m._buffers.values() if b is not None}
    from .lazy import is_lazy, stays_uninitialized
    replaced = {id(t): _wrap(leaf) for t, leaf in pairs if id(t) in buffers}
    for t, _ in pairs:  # an uninitialized buffer's conversion stays uninitialized, as PyTorch's (docs/lazy.md)
        if id(t) in replaced and is_lazy(t):
            stays_uninitialized(replaced[id(t)], type(t))
    rebind_all([(t, leaf) for t, leaf in pairs if id(t) not in buffers])
    for m in modules:
        for name, b in m._buffers.items():
            if b is not None and id(b) in replaced:
                m._buffers[name] = replaced[id(b)]
    if replaced:
        _bump_structure_version()  # compiled steps re-trace with the new buffers
