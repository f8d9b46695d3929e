"""torch.jit's names, so scripts that script, trace or annotate for TorchScript run here unchanged
(docs/porting.md, "TorchScript and torch.compiler"). Scripted and traced objects run the same
Python (_script.py); the decorators and annotations return what they are given; fork runs its
function at once and returns a completed Future. TorchScript files (save/load) are refused with
the fix. torch 2.14's deprecation FutureWarnings are given where PyTorch gives them."""
from __future__ import annotations

import builtins
import contextlib
import typing
from typing import Any, Callable, NamedTuple

from ..futures import Future
from ._flatten import _flatten
from ._script import (RecursiveScriptModule, ScriptFunction, ScriptModule, TopLevelTracedModule, deprecated,
                      freeze, is_scripting, is_tracing, load, optimize_for_inference, save, script, trace,
                      trace_module)

__all__ = ["Attribute", "Error", "Final", "Future", "RecursiveScriptModule", "ScriptFunction", "ScriptModule",
           "ScriptWarning", "TopLevelTracedModule", "TracedModule", "TracerWarning", "annotate", "export", "fork",
           "freeze", "ignore", "interface", "is_scripting", "is_tracing", "isinstance", "load", "optimize_for_inference",
           "optimized_execution", "save", "script", "script_if_tracing", "script_method", "trace", "trace_module",
           "unused", "wait", "fuser", "enable_onednn_fusion", "onednn_fusion_enabled", "set_fusion_strategy"]

Final = typing.Final  # torch.jit.Final[int]: a constant attribute (a hint only here, as in Python)
TracedModule = TopLevelTracedModule


class Error(Exception):
    """torch.jit.Error: what TorchScript raises at run time (never raised here)."""


class TracerWarning(Warning):
    """torch.jit.TracerWarning: PyTorch's warning about a trace that may not generalize."""


class ScriptWarning(Warning):
    """torch.jit.ScriptWarning."""


class Attribute(NamedTuple):
    """torch.jit.Attribute(value, type): the value, with a type hint for TorchScript."""
    value: Any
    type: Any


def annotate(the_type, the_value):
    """torch.jit.annotate: the value itself (the type is TorchScript's hint)."""
    return the_value


def ignore(drop=False, **kwargs):
    """torch.jit.ignore, as @ignore or @ignore(drop=...): the function itself (it runs as Python)."""
    if callable(drop):
        return drop
    if drop:
        import warnings
        warnings.warn("ignore(True) has been deprecated. TorchScript will now drop the function call on compilation. "
                      "Use torch.jit.unused now. {}", FutureWarning, stacklevel=2)
    return lambda fn: fn


def unused(fn: Callable) -> Callable:
    """torch.jit.unused: the function itself."""
    return fn


def export(fn: Callable) -> Callable:
    """torch.jit.export: the method itself (every method is callable here)."""
    return fn


def interface(obj):
    """torch.jit.interface: the class itself."""
    return obj


def script_if_tracing(fn: Callable) -> Callable:
    """torch.jit.script_if_tracing: the function itself."""
    return fn


def script_method(fn: Callable) -> Callable:
    """torch.jit.script_method (methods of a ScriptModule subclass): the method itself."""
    deprecated("script_method")
    return fn


def _refines(obj, target_type) -> bool:
    """torch.jit.isinstance: isinstance, with typing's List[int], Dict[str, int], Optional[...]
    checked element by element as TorchScript refines them."""
    origin = typing.get_origin(target_type)
    if origin is None:
        return target_type is Any or builtins.isinstance(obj, target_type)
    args = typing.get_args(target_type)
    if origin is typing.Union:
        return any(_refines(obj, a) for a in args)
    if not builtins.isinstance(obj, origin):
        return False
    if origin in (list, set) and args:
        return all(_refines(o, args[0]) for o in obj)
    if origin is tuple and args:
        return len(obj) == len(args) and all(_refines(o, a) for o, a in zip(obj, args))
    if origin is dict and args:
        return all(_refines(k, args[0]) and _refines(v, args[1]) for k, v in obj.items())
    return True


isinstance = _refines  # torch.jit.isinstance (the module's own calls name _refines: the builtin is not shadowed there)


def run_forked(func: Callable, *args, **kwargs) -> Future:
    """torch.fork: func(*args, **kwargs) runs now; a completed Future holds the result (the lazy
    graph already overlaps independent work when it is computed)."""
    out: Future = Future()
    out.set_result(func(*args, **kwargs))
    return out


def wait_forked(future: Future):
    """torch.wait: the future's value."""
    return future.wait()


def fork(func: Callable, *args, **kwargs) -> Future:
    """torch.jit.fork: run_forked, with PyTorch 2.14's deprecation warning."""
    deprecated("fork", "Please use `torch.compile` instead.")
    return run_forked(func, *args, **kwargs)


def wait(future: Future):
    """torch.jit.wait: the future's value, with PyTorch 2.14's deprecation warning."""
    deprecated("wait", "Please use `torch.compile` instead.")
    return future.wait()


@contextlib.contextmanager
def optimized_execution(should_optimize: bool):
    """torch.jit.optimized_execution: nothing to switch here."""
    yield


@contextlib.contextmanager
def fuser(name: str):
    """torch.jit.fuser: glassgrad's fusion is its planner's (glassgrad.set_fusion)."""
    yield


_onednn = [False]
_fusion_strategy = [[("STATIC", 2), ("DYNAMIC", 10)]]


def enable_onednn_fusion(enabled: bool) -> None:
    _onednn[0] = bool(enabled)


def onednn_fusion_enabled() -> bool:
    return _onednn[0]


def set_fusion_strategy(strategy):
    """Kept and returned (the previous strategy), as PyTorch does; glassgrad's planner ignores it."""
    previous, _fusion_strategy[0] = _fusion_strategy[0], list(strategy)
    return previous
