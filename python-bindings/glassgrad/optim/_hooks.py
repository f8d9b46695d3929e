"""The optimizer hooks of torch.optim.Optimizer: register_step_pre_hook / register_step_post_hook
(around step()), register_state_dict_pre_hook / _post_hook (around state_dict()) and
register_load_state_dict_pre_hook / _post_hook (around load_state_dict()), each returning a
RemovableHandle. Optimizer.__init_subclass__ wraps every class's own step, state_dict and
load_state_dict with them (an inner super() call does not run the hooks again).
register_optimizer_step_pre_hook / _post_hook (torch.optim.optimizer) add hooks every optimizer
runs: the global pre-hooks before an optimizer's own, the global post-hooks after, as PyTorch's
profile_hook_step orders them."""
from __future__ import annotations

import functools
from collections import OrderedDict
from typing import Any, Callable, Dict, Optional, Tuple

from ..utils.hooks import RemovableHandle

_STEP_PRE, _STEP_POST = "_optimizer_step_pre_hooks", "_optimizer_step_post_hooks"
_SD_PRE, _SD_POST = "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks"
_LOAD_PRE, _LOAD_POST = "_optimizer_load_state_dict_pre_hooks", "_optimizer_load_state_dict_post_hooks"


# the global step hooks (torch.optim.optimizer._global_optimizer_pre_hooks / _post_hooks)
GLOBAL_STEP_PRE: "OrderedDict[int, Callable]" = OrderedDict()
GLOBAL_STEP_POST: "OrderedDict[int, Callable]" = OrderedDict()


def register_global(table: "OrderedDict[int, Callable]", hook: Callable) -> RemovableHandle:
    def remove() -> None:
        table.pop(handle.id, None)
    handle = RemovableHandle(remove)
    table[handle.id] = hook
    return handle


def _table(opt, key: str) -> "OrderedDict[int, Callable]":
    return opt.__dict__.setdefault(key, OrderedDict())


def _register(opt, key: str, hook: Callable, prepend: bool = False) -> RemovableHandle:
    table = _table(opt, key)

    def remove() -> None:
        table.pop(handle.id, None)
    handle = RemovableHandle(remove)
    table[handle.id] = hook
    if prepend:
        table.move_to_end(handle.id, last=False)
    return handle


class OptimizerHooks:
    """The registration methods (mixed into Optimizer), and PyTorch's hook types and step decorator."""

    OptimizerPreHook = Callable[[Any, Tuple[Any, ...], Dict[str, Any]], Optional[Tuple[Tuple[Any, ...], Dict[str, Any]]]]
    OptimizerPostHook = Callable[[Any, Tuple[Any, ...], Dict[str, Any]], None]

    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """hook(optimizer, args, kwargs) before each step() (args start with the optimizer, as
        PyTorch's); it may return (new_args, new_kwargs)."""
        return _register(self, _STEP_PRE, hook)

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """hook(optimizer, args, kwargs) after each step()."""
        return _register(self, _STEP_POST, hook)

    def register_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """hook(optimizer) before state_dict() builds the dict."""
        return _register(self, _SD_PRE, hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """hook(optimizer, state_dict) after; it may return a new state_dict."""
        return _register(self, _SD_POST, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """hook(optimizer, state_dict) before load_state_dict() reads it; it may return a new one."""
        return _register(self, _LOAD_PRE, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """hook(optimizer) after load_state_dict()."""
        return _register(self, _LOAD_POST, hook, prepend)


def _outermost(name: str, method: Callable, around: Callable) -> Callable:
    """method wrapped by around(self, call, *args, **kwargs) on its outermost call only."""
    flag = f"_in_{name}"

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        if self.__dict__.get(flag):
            return method(self, *args, **kwargs)
        self.__dict__[flag] = True
        try:
            return around(self, method, *args, **kwargs)
        finally:
            self.__dict__[flag] = False
    wrapper._hooked = True  # type: ignore[attr-defined]
    return wrapper


def _around_step(self, step, *args, **kwargs):
    d = self.__dict__
    if not d.get("_step_calls"):
        # a step ran (a subclass's own step() too, which need not call Optimizer.step): the
        # lr_scheduler's step-order warning reads this, as PyTorch's reads its wrapped step's flag
        d["_step_calls"] = 1
    pre, post = d.get(_STEP_PRE), d.get(_STEP_POST)
    if pre is not None and post is not None and not (pre or post or GLOBAL_STEP_PRE or GLOBAL_STEP_POST):
        return step(self, *args, **kwargs)  # no hook registered (the tables exist after the first step)
    args = (self, *args)  # PyTorch's hooks see the optimizer as the first positional argument
    for hook in list(GLOBAL_STEP_PRE.values()) + list(_table(self, _STEP_PRE).values()):
        result = hook(self, args, kwargs)
        if result is not None:
            if not (isinstance(result, tuple) and len(result) == 2):
                raise RuntimeError(f"{step} must return None or a tuple of (new_args, new_kwargs), but got {result}.")
            args, kwargs = result
    out = step(*args, **kwargs)
    for hook in list(_table(self, _STEP_POST).values()) + list(GLOBAL_STEP_POST.values()):
        hook(self, args, kwargs)
    return out


def _around_state_dict(self, state_dict):
    for hook in list(_table(self, _SD_PRE).values()):
        hook(self)
    out = state_dict(self)
    for hook in list(_table(self, _SD_POST).values()):
        result = hook(self, out)
        if result is not None:
            out = result
    return out


def _around_load_state_dict(self, load_state_dict, state_dict):
    state_dict = dict(state_dict)  # a shallow copy, as PyTorch's, for the hooks to edit
    for hook in list(_table(self, _LOAD_PRE).values()):
        result = hook(self, state_dict)
        if result is not None:
            state_dict = result
    load_state_dict(self, state_dict)
    for hook in list(_table(self, _LOAD_POST).values()):
        hook(self)


def profile_hook_step(func: Callable) -> Callable:
    """Optimizer.profile_hook_step: func (a step method) run with the step pre- and post-hooks."""
    return _outermost("step", func, _around_step)


OptimizerHooks.profile_hook_step = staticmethod(profile_hook_step)  # type: ignore[attr-defined]
_AROUND = {"step": _around_step, "state_dict": _around_state_dict, "load_state_dict": _around_load_state_dict}


def wrap_hooked_methods(cls) -> None:
    """Wraps the class's own step, state_dict and load_state_dict (once) with the hooks."""
    for name, around in _AROUND.items():
        method = cls.__dict__.get(name)
        if method is not None and not getattr(method, "_hooked", False):
            setattr(cls, name, _outermost(name, method, around))
