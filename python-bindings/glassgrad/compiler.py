"""torch.compiler's names, on glassgrad.compile (compile.py: a step is run, then recorded, then
replayed). What each does here (docs/porting.md, "TorchScript and torch.compiler"):

- is_compiling() / is_dynamo_compiling(): True while glassgrad.compile records a step (its
  second call), when Python in the step runs for the last time; False on replays (no Python runs).
- disable(fn): fn itself. Its ops are recorded with the rest of a compiled step, because a
  replay runs only recorded plans; a function that must run as Python on every step belongs
  outside the compiled step.
- allow_in_graph, assume_constant_result, substitute_in_graph, nested_compile_region: the
  function itself (every op call is recorded already; a constant result is recorded as the value
  it had when traced, which is what assume_constant_result asks for).
- reset(): drops every compiled plan (glassgrad.clear_plan_cache); the next call compiles again.
- cudagraph_mark_step_begin(): nothing to mark (a replay is one step).
"""
from __future__ import annotations

import contextlib
from typing import Callable, List

from . import _trace
from ._runtime import clear_plan_cache
from .compile import compile

__all__ = ["allow_in_graph", "assume_constant_result", "compile", "cudagraph_mark_step_begin", "disable",
           "is_compiling", "is_dynamo_compiling", "is_exporting", "list_backends", "nested_compile_region", "reset",
           "set_stance", "substitute_in_graph"]


def is_compiling() -> bool:
    """True while glassgrad.compile records a step on this thread."""
    return _trace.recording()


def is_dynamo_compiling() -> bool:
    """As is_compiling(): glassgrad.compile is the only compiler here."""
    return _trace.recording()


def is_exporting() -> bool:
    """True while glassgrad.onnx.export captures a model."""
    from .onnx import is_in_onnx_export
    return is_in_onnx_export()


def disable(fn=None, recursive: bool = True, *, reason=None):
    """torch.compiler.disable, as @disable or disable(fn): the function itself (module docstring)."""
    if fn is None:
        return lambda f: f
    return fn


def _same(fn: Callable) -> Callable:
    return fn


allow_in_graph = assume_constant_result = _same


def substitute_in_graph(original_fn: Callable, *, can_constant_fold_through: bool = False,
                        skip_signature_check: bool = False) -> Callable[[Callable], Callable]:
    """A decorator that keeps original_fn in use (its Python runs, and is recorded)."""
    return lambda replacement: original_fn


def nested_compile_region(fn=None, options=None):
    """The function itself (as @nested_compile_region or nested_compile_region(fn))."""
    return _same if fn is None else fn


def reset() -> None:
    """Drops every compiled plan; the next call of anything compiles again."""
    clear_plan_cache()


def cudagraph_mark_step_begin() -> None:
    """Nothing to mark: a compiled step's replay is one step (CUDA graphs: docs/cuda.md)."""


def list_backends(exclude_tags=("debug", "experimental")) -> List[str]:
    """glassgrad.compile takes any backend name and compiles the same way: one name is listed."""
    return ["glassgrad"]


@contextlib.contextmanager
def set_stance(stance: str = "default", *, skip_guard_eval_unsafe: bool = False, force_backend=None):
    """Accepted as a context manager; glassgrad.compile's guards (compile.py) decide re-tracing."""
    yield
