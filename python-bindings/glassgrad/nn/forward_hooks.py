"""Module.register_forward_pre_hook and register_forward_hook with PyTorch's arguments and
calling rules (docs/porting.md, the forward hooks row): a pre-hook sees (module, args) and may
return new args (a value or a tuple), with_kwargs=True (module, args, kwargs) and may return
(args, kwargs); a forward hook sees (module, args, output), or (module, args, kwargs, output),
and may return a new output. Hooks run in registration order (prepend=True puts one first);
always_call=True runs a forward hook even when forward raised. Each registration returns a
RemovableHandle. A module without hooks keeps its plain call."""
from __future__ import annotations

import warnings
from collections import OrderedDict
from typing import Any, Callable, Dict

from ..utils.hooks import RemovableHandle

PRE, POST = "_forward_pre_hooks", "_forward_hooks"
# PyTorch's layout: the tables map a handle's id to the hook itself; which hooks take kwargs or
# are always called is kept beside them.
_KWARGS = {PRE: "_forward_pre_hooks_with_kwargs", POST: "_forward_hooks_with_kwargs"}
_ALWAYS = "_forward_hooks_always_called"


def _table(module, kind: str) -> "OrderedDict[int, Any]":
    table = module.__dict__.get(kind)
    if table is None:
        table = OrderedDict()
        object.__setattr__(module, kind, table)
    return table


def register(module, kind: str, hook: Callable, prepend: bool, with_kwargs: bool = False,
             always_call: bool = False) -> RemovableHandle:
    """Adds hook to the module's `kind` table (the backward hooks' tables too: those take no
    kwargs flags)."""
    table = _table(module, kind)
    kwargs = _table(module, _KWARGS[kind]) if kind in _KWARGS else OrderedDict()
    always = _table(module, _ALWAYS) if kind in _KWARGS else OrderedDict()

    def remove() -> None:
        for t in (table, kwargs, always):
            t.pop(handle.id, None)

    handle = RemovableHandle(remove)
    table[handle.id] = hook
    if with_kwargs:
        kwargs[handle.id] = True
    if always_call:
        always[handle.id] = True
    if prepend:
        table.move_to_end(handle.id, last=False)
    return handle


class _Global:
    """The tables of the hooks every module runs (torch.nn.modules.module.register_module_*_hook):
    they run before each module's own, as PyTorch's."""


GLOBAL = _Global()
_KINDS = (PRE, POST, "_backward_hooks", "_backward_pre_hooks")


# The global tables, read by Module.__call__ on every call (the object's dict never changes).
GLOBAL_TABLES = GLOBAL.__dict__
BACKWARD, BACKWARD_PRE = _KINDS[2], _KINDS[3]  # backward_hooks.FULL and .PRE


def has_hooks(module) -> bool:
    """Whether a call of module runs any hook (its own tables or the global ones: a table whose
    hooks were all removed is empty, so it counts as none). Module.__call__ asks this of a call
    only when the module has a table of its own or a global one exists (a table is made by the
    first registration, _table): a table made elsewhere must keep that true."""
    d, g = module.__dict__, GLOBAL_TABLES
    return bool(d.get(PRE) or d.get(POST) or d.get(BACKWARD) or d.get(BACKWARD_PRE)
                or g.get(PRE) or g.get(POST) or g.get(BACKWARD) or g.get(BACKWARD_PRE))


def table_hooks(module, kind: str) -> list:
    """The hooks of `kind` for module: the global ones first, then its own."""
    return list(GLOBAL.__dict__.get(kind, {}).values()) + list(module.__dict__.get(kind, {}).values())


def _hooks(module, kind: str):
    out = []
    for d in (GLOBAL.__dict__, module.__dict__):
        kwargs, always = d.get(_KWARGS[kind], {}), d.get(_ALWAYS, {})
        out += [(hook, i in kwargs, i in always) for i, hook in list(d.get(kind, {}).items())]
    return out


def call_with_hooks(module, forward: Callable, args: tuple, kwargs: Dict[str, Any]):
    # As PyTorch's Module._call_impl: an error anywhere from the first pre-hook to the last
    # forward hook runs the always_call forward hooks that have not run yet, with output None.
    hooks = _hooks(module, POST)
    called = set()
    try:
        for hook, with_kwargs, _ in _hooks(module, PRE):
            if with_kwargs:
                result = hook(module, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {result}.")
                    args, kwargs = result
            else:
                result = hook(module, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        from . import backward_hooks as _bw  # (imports autograd, which imports nn)
        from . import legacy_backward_hooks as _legacy
        state = None
        if _bw.has_hooks(module):
            args, state = _bw.wrap_inputs(module, args)
        output = forward(*args, **kwargs)
        for i, (hook, with_kwargs, always_call) in enumerate(hooks):
            if always_call:
                called.add(i)
            result = hook(module, args, kwargs, output) if with_kwargs else hook(module, args, output)
            if result is not None:
                output = result
    except Exception:
        for i, (hook, with_kwargs, always_call) in enumerate(hooks):
            if always_call and i not in called:
                try:
                    hook(module, args, kwargs, None) if with_kwargs else hook(module, args, None)
                except Exception as e:  # the first error is the one to report, as PyTorch's
                    warnings.warn("forward hook with ``always_call=True`` raised an exception that was silenced "
                                  f"as another error was raised in forward: {e}")
        raise
    if state is not None:
        output = _bw.wrap_outputs(state, output)
    return _legacy.attach(module, args, output) if _legacy.has_hooks(module) else output
