"""torch.jit.script and torch.jit.trace here: they return objects that run the same Python.

glassgrad records every call into a graph and plans it (docs/architecture.md), which is what
TorchScript was for, so scripting compiles nothing: a scripted or traced function is a
ScriptFunction calling the function; a scripted or traced module is a new module object of a
class derived from ScriptModule and the module's own class, sharing its parameters, buffers and
submodules (as PyTorch's RecursiveScriptModule shares them). trace runs the module once on the
example inputs (errors surface at the call, as in PyTorch). What needs TorchScript itself (its
code and graph, torch.jit.save/load archives) raises an error naming the fix."""
from __future__ import annotations

import functools
import os
import threading
import warnings
from typing import Any, Callable, Dict

from .. import _C
from ..nn.module import Module


def deprecated(name: str, instead: str = "Please switch to `torch.compile` or `torch.export`.") -> None:
    """PyTorch 2.14's FutureWarning for torch.jit.<name>."""
    warnings.warn(f"`torch.jit.{name}` is deprecated. {instead}", FutureWarning, stacklevel=3)


def _no_torchscript(what: str) -> _C.UnsupportedError:
    return _C.UnsupportedError(
        f"{what} needs TorchScript, which glassgrad does not have: torch.jit.script and trace return objects "
        f"that run the Python itself\n  fix: keep the weights with glassgrad.save(model.state_dict(), path) (or the "
        f"whole model: glassgrad.save(model, path)); for a file other runtimes run, "
        f"glassgrad.onnx.export(model, example_input, path)")


_tracing, _scripting = threading.local(), threading.local()


def is_tracing() -> bool:
    """True while torch.jit.trace runs the traced function on its example inputs (this thread)."""
    return getattr(_tracing, "depth", 0) > 0


def is_scripting() -> bool:
    """True while a scripted module or function runs (this thread), as inside TorchScript: code
    under `if torch.jit.is_scripting():` takes the branch PyTorch's scripted code takes."""
    return getattr(_scripting, "depth", 0) > 0


def _call_scripted(fn: Callable, args, kwargs):
    _scripting.depth = getattr(_scripting, "depth", 0) + 1
    try:
        return fn(*args, **kwargs)
    finally:
        _scripting.depth -= 1


class _TorchScriptArtifacts:
    """save(), .code and .graph of a scripted object: the TorchScript archive, source and graph,
    which glassgrad does not make (the same Python runs); each raises naming the fix."""
    _kind = ""  # ScriptModule or ScriptFunction, as PyTorch's messages name the class

    def save(self, f, **kwargs) -> None:
        raise _no_torchscript(f"{self._kind}.save (a TorchScript archive)")

    @property
    def code(self) -> str:
        raise _no_torchscript(f"{self._kind}.code (TorchScript source)")

    @property
    def graph(self):
        raise _no_torchscript(f"{self._kind}.graph (a TorchScript graph)")


class ScriptModule(_TorchScriptArtifacts, Module):
    """torch.jit.ScriptModule: the base of what script() and trace() return for a module, and a
    base class scripts may subclass (with @torch.jit.script_method methods, which run as Python).
    A call runs with is_scripting() true, except a traced module's."""
    _scripted = True
    _kind = "ScriptModule"

    def __call__(self, *args, **kwargs):
        if not self._scripted:
            return super().__call__(*args, **kwargs)
        return _call_scripted(super().__call__, args, kwargs)

    @property
    def original_name(self) -> str:
        """The class name of the module that was scripted (PyTorch's original_name)."""
        for cls in type(self).__mro__:
            if not issubclass(cls, ScriptModule) and issubclass(cls, Module):
                return cls.__name__
        return type(self).__name__


class RecursiveScriptModule(ScriptModule):
    """What torch.jit.script(module) returns (combined with the module's class)."""


class TopLevelTracedModule(ScriptModule):
    """What torch.jit.trace(module, inputs) returns (combined with the module's class)."""
    _scripted = False


_classes: Dict[tuple, type] = {}


def wrap_module(module: Module, kind: type) -> Module:
    """A new module of a class derived from `kind` and module's class, sharing module's state."""
    if isinstance(module, ScriptModule):
        return module
    base = type(module)
    cls = _classes.get((kind, base))
    if cls is None:
        cls = type(base.__name__, (kind, base), {"__module__": base.__module__, "__qualname__": base.__qualname__})
        _classes[(kind, base)] = cls
    out: Module = object.__new__(cls)
    out.__dict__.update(module.__dict__)  # the same parameter, buffer and submodule tables
    return out


class ScriptFunction(_TorchScriptArtifacts):
    """torch.jit.ScriptFunction: calls the function it was made from (name, docstring kept),
    with is_scripting() true when script() made it."""
    _kind = "ScriptFunction"

    def __init__(self, fn: Callable, scripted: bool = True) -> None:
        functools.update_wrapper(self, fn)
        self._fn, self._scripted = fn, scripted

    def __call__(self, *args, **kwargs):
        return _call_scripted(self._fn, args, kwargs) if self._scripted else self._fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<glassgrad.jit.ScriptFunction of {getattr(self._fn, '__qualname__', self._fn)!r}>"


def script(obj, optimize=None, _frames_up: int = 0, _rcb=None, example_inputs=None):
    """torch.jit.script: a module instance -> a RecursiveScriptModule sharing its state; a
    function -> a ScriptFunction; a plain class -> the class itself (its methods run as Python).
    A subclass of nn.Module is refused, as PyTorch refuses it (pass an instance)."""
    deprecated("script")
    if isinstance(obj, Module):
        return wrap_module(obj, RecursiveScriptModule)
    if isinstance(obj, type):
        if issubclass(obj, Module):
            raise _C.InvalidArgumentError(
                f"Type '{obj}' cannot be compiled since it inherits from nn.Module, pass an instance instead\n"
                f"  fix: torch.jit.script({obj.__name__}(...))")
        return obj
    if isinstance(obj, ScriptFunction):
        return obj
    if callable(obj):
        return ScriptFunction(obj)
    raise _C.InvalidArgumentError(f"torch.jit.script takes a module, a function or a class, got "
                                  f"{type(obj).__name__}\n  fix: torch.jit.script(model) or @torch.jit.script on a def")


def _as_tuple(inputs) -> tuple:
    return inputs if isinstance(inputs, tuple) else (inputs,)


def _run_traced(fn: Callable, inputs, kwargs=None):
    _tracing.depth = getattr(_tracing, "depth", 0) + 1
    try:
        return fn(*_as_tuple(inputs), **(kwargs or {}))
    finally:
        _tracing.depth -= 1


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
          strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
          example_kwarg_inputs=None, _store_inputs=True):
    """torch.jit.trace: func runs once on example_inputs (a tensor or a tuple; or
    example_kwarg_inputs, a dict), with is_tracing() true; a module comes back as a
    TopLevelTracedModule sharing its state, a function as a ScriptFunction. The result runs the
    Python again on every call, so branches on data are not frozen as PyTorch's trace freezes them."""
    deprecated("trace")
    if example_inputs is None and example_kwarg_inputs is None:
        raise _C.InvalidArgumentError("torch.jit.trace needs example_inputs (or example_kwarg_inputs)\n"
                                      "  fix: torch.jit.trace(model, torch.randn(1, 3, 224, 224))")
    args = () if example_inputs is None else example_inputs
    if isinstance(func, Module):
        _run_traced(func, args, example_kwarg_inputs)
        return wrap_module(func, TopLevelTracedModule)
    _run_traced(func, args, example_kwarg_inputs)
    return func if isinstance(func, ScriptFunction) else ScriptFunction(func, scripted=False)


def trace_module(mod: Module, inputs: Dict[str, Any], optimize=None, check_trace=True, check_inputs=None,
                 check_tolerance=1e-5, strict=True, _force_outplace=False, _module_class=None,
                 _compilation_unit=None, example_inputs_is_kwarg=False, _store_inputs=True):
    """torch.jit.trace_module: each named method runs once on its example inputs."""
    deprecated("trace_method")
    if not isinstance(mod, Module):
        raise _C.InvalidArgumentError("expected torch.nn.Module as the first argument\n"
                                      "  fix: torch.jit.trace_module(model, {'forward': example_input})")
    for method, example in inputs.items():
        fn = getattr(mod, method)
        if example_inputs_is_kwarg:
            _run_traced(fn, (), example)
        else:
            _run_traced(fn, example)
    return wrap_module(mod, TopLevelTracedModule)


def save(m, f, _extra_files=None) -> None:
    """torch.jit.save writes a TorchScript archive: refused, naming glassgrad's ways to save."""
    deprecated("save", "Please switch to `torch.export`.")
    raise _no_torchscript("torch.jit.save (a TorchScript archive)")


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    """torch.jit.load reads a TorchScript archive, whose code glassgrad cannot run: refused (a
    missing file gets PyTorch's ValueError first)."""
    deprecated("load", "Please switch to `torch.export`.")
    if isinstance(f, (str, os.PathLike)) and not os.path.exists(f):
        raise ValueError(f"The provided filename {os.fspath(f)} does not exist\n  fix: check the path")
    raise _C.UnsupportedError(
        "torch.jit.load reads a TorchScript archive (code and weights); glassgrad cannot run TorchScript code\n"
        "  fix: in PyTorch, save its weights: torch.save(torch.jit.load(path).state_dict(), 'weights.pt'); here, "
        "build the model's Python class and model.load_state_dict(glassgrad.load('weights.pt'))")


def freeze(mod, preserved_attrs=None, optimize_numerics: bool = True):
    """torch.jit.freeze: PyTorch's checks (a ScriptModule, in eval mode), then the module itself
    (its weights are read where its plans read them; nothing to fold)."""
    deprecated("freeze", "Please use `torch.compile` instead.")
    if not isinstance(mod, ScriptModule):
        raise _C.InvalidArgumentError("Freezing expects a ScriptModule as input. Please use torch.jit.script or "
                                      "torch.jit.trace to script your 'nn.Module'.\n  fix: "
                                      "torch.jit.freeze(torch.jit.script(model.eval()))")
    if mod.training:
        raise _C.InvalidArgumentError("Freezing is currently only implemented for modules in eval mode. Please call "
                                      ".eval() on your module before freezing.\n  fix: torch.jit.freeze(model.eval())")
    return mod


def optimize_for_inference(mod, other_methods=None):
    """torch.jit.optimize_for_inference: the module in eval mode (freeze's checks but training)."""
    deprecated("optimize_for_inference", "Please use `torch.compile` instead.")
    if not isinstance(mod, ScriptModule):
        raise _C.InvalidArgumentError("optimize_for_inference expects a ScriptModule as input. Please use "
                                      "torch.jit.script or torch.jit.trace to script your 'nn.Module'.\n  fix: "
                                      "torch.jit.optimize_for_inference(torch.jit.script(model.eval()))")
    return mod.eval()
