"""Breakpoint hooks: a callback on a layer or an op, run when a matching node executes, with
the node's inputs and outputs as NumPy arrays.

    def show(node, inputs, outputs):
        print(node.op, node.scope, node.role, node.source, [a.shape for a in inputs])

    handle = glassgrad.debug.register_hook(model.conv1, show)                  # forward nodes of a layer
    handle = glassgrad.debug.register_hook("Conv2DBackwardWeight", show, when="backward")
    ...
    handle.remove()            # or: with glassgrad.debug.register_hook(...): ...

Nodes carry the layer path they were recorded in ("layer2.0.conv1"), so a layer's hook sees the
nodes of the layer and of its sub-layers; backward nodes keep the layer of the forward node they
differentiate. Hooks run as the plan executes (at .item(), optimizer.step(), ...), not at the
line that records the op, and only for nodes that run (a value nobody needs is never computed,
e.g. the loss itself when only gradients are read). While hooks are registered, plans are
compiled without fusion, so every op is its own step. An exception raised in a hook stops the
run, and `breakpoint()` inside one opens the debugger with the arrays at hand. The arrays are
copies: inputs as the node read them, outputs as it wrote them.

A hook may compute with glassgrad (glassgrad.tensor(outputs[0]).abs().max().item()): that runs
in a plan of its own, with an arena of its own, and calls no hooks. It cannot ask for a tensor
that the running step is still computing (the loss, a parameter being updated): that raises an
error saying so, rather than running the step again."""
from __future__ import annotations

import itertools
import threading
from typing import Callable, Dict, List, NamedTuple, Optional

from .. import _C
from . import _fusion

_WHEN = {"forward": ("forward",), "backward": ("backward",), "optimizer": ("optimizer",),
         "any": None}


class NodeInfo(NamedTuple):
    """The executed node a hook is called for."""
    step: int      # index in the plan
    op: str        # "Conv2D", "Conv2DBackwardWeight", ...
    scope: str     # the layer path it was recorded in ("layer2.0.conv1"), "" outside layers
    role: str      # "forward", "backward", "optimizer", "recompute", ...
    source: str    # "train.py:42": the line that recorded it (the forward line for backward nodes)


class _Hook:
    def __init__(self, target, fn: Callable, when: str):
        self.fn = fn
        self.roles = _WHEN[when]
        self.module = None
        self.op: Optional[str] = None
        self.path: Optional[str] = None
        from ..nn import Module

        if isinstance(target, Module):
            self.module = target
        elif isinstance(target, str) and target in set(_C.op_names()):
            self.op = target
        elif isinstance(target, str):
            self.path = target
        else:
            raise TypeError(f"register_hook: the target must be a layer (glassgrad.Module), an op name such as "
                            f"'Conv2D', or a layer path such as 'layer2.0.conv1'; got {type(target).__name__}")

    def _prefixes(self) -> List[str]:
        if self.path is not None:
            return [self.path]
        m = self.module
        if m._scope:
            return [m._scope]
        # A model called at the top level records its own ops under its class name and each
        # sub-layer under its attribute path.
        return [type(m).__name__] + [p for p, _ in m.named_modules() if p]

    def matches(self, op: str, scope: str, role: str) -> bool:
        if self.roles is not None and role not in self.roles:
            return False
        if self.op is not None:
            return op == self.op
        return any(scope == p or scope.startswith(p + ".") for p in self._prefixes())


_hooks: Dict[int, _Hook] = {}
_ids = itertools.count()
_observer: Optional[int] = None


class _Dispatching(threading.local):
    active = False


_dispatching = _Dispatching()


def _dispatch(index, op, scope, role, source, inputs, outputs) -> None:
    # A hook may compute with glassgrad (e.g. gg.tensor(outputs[0]).abs().max().item()): those
    # nodes run in a plan of their own, and do not call hooks again (that recursed without end).
    if _dispatching.active:
        return
    matching = [h for h in list(_hooks.values()) if h.matches(op, scope, role)]
    if not matching:
        return
    info = NodeInfo(int(index), op, scope, role, source)
    ins = [t.numpy() for t in inputs]
    outs = [t.numpy() for t in outputs]
    _dispatching.active = True
    try:
        for h in matching:
            h.fn(info, [a.copy() for a in ins], [a.copy() for a in outs])
    finally:
        _dispatching.active = False


class HookHandle:
    """Returned by register_hook: .remove() detaches the hook (also at the end of a with block)."""

    def __init__(self, key: int):
        self._key = key

    @property
    def active(self) -> bool:
        return self._key in _hooks

    def remove(self) -> None:
        global _observer
        _hooks.pop(self._key, None)
        if not _hooks and _observer is not None:
            _C.remove_step_observer(_observer)
            _observer = None
            _fusion.resume("hooks")

    def __enter__(self) -> "HookHandle":
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


def register_hook(target, fn: Callable[[NodeInfo, list, list], None], when: str = "forward") -> HookHandle:
    """Calls fn(node: NodeInfo, inputs: [np.ndarray], outputs: [np.ndarray]) after each executed
    node that matches `target` and `when`.

    target: a layer (a glassgrad.Module: its nodes and its sub-layers'), an op name ('Conv2D',
            'ReLUBackward'; glassgrad._C.op_names() lists them) or a layer path ('layer2.0.conv1').
    when:   'forward', 'backward' (the gradient nodes of that layer / op name), 'optimizer', or 'any'.
    """
    global _observer
    if when not in _WHEN:
        raise _C.InvalidArgumentError(f"register_hook: when must be one of {sorted(_WHEN)}, got '{when}'\n"
                                      "  fix: when='forward' or when='backward'")
    if not callable(fn):
        raise TypeError("register_hook: fn must be callable as fn(node, inputs, outputs)")
    hook = _Hook(target, fn, when)
    key = next(_ids)
    _hooks[key] = hook
    if _observer is None:
        _observer = _C.add_step_observer(_dispatch)
        _fusion.suspend("hooks")
    return HookHandle(key)
