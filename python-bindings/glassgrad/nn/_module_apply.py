"""Module._apply(fn, recurse=True), PyTorch's one path for converting a model's tensors: fn is
applied to every parameter, buffer and parameter gradient, children first, and each parameter and
buffer keeps its object (its data becomes fn's result). Models override it to convert tensors of
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
    from .module import Parameter, _leaf_for, rebind_all
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
    rebind_all(pairs)
    for t, grad in grads:
        t.grad = grad
    return module
