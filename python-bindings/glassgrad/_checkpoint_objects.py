"""Whole objects in checkpoints: torch.save(model, f) and torch.load(f) under safe_globals.

glassgrad.save writes a tree of tensors in plain containers with pytorch_checkpoint's hand-written
pickle. Anything else (a model, a tuple-keyed dict, a set, a user's class) is pickled here, into the
same zip layout torch.save writes: glassgrad tensors become PyTorch's tensor records
(torch._utils._rebuild_tensor_v2 of a storage record, Parameters _rebuild_parameter of that),
glassgrad's device, dtype and Size become torch.device, torch.<dtype> and torch.Size, and a member
`.data/glassgrad_objects` marks the file, so that glassgrad.load gives back glassgrad Tensors and
Parameters where the tree format gives NumPy arrays. Classes are pickled by their module path
(glassgrad.nn.layers.Linear, __main__.RNNModel), as PyTorch pickles its own.

Loading never runs code the user did not allow (docs/save-and-resume.md, "Whole models"). What
the unpickler may construct:
- always: containers, numbers, strings, tensors, devices, dtypes, Sizes;
- classes and functions the user allowlisted: add_safe_globals([...]) or
  `with safe_globals([...]):`, torch.serialization's names and semantics;
- with weights_only=False, also glassgrad's layers, optimizers and schedulers, a user's subclasses
  of them from a module already imported (a model class of the training script), the
  activation functions of glassgrad.nn.functional, and a few standard-library value classes
  (_PLAIN_DATA: argparse.Namespace, datetime's, ...) from a module already imported. Nothing is imported by name from a file, and
  no other function can be called, so a hostile file cannot reach os.system or a file writer.
"""
from __future__ import annotations

import builtins
import codecs
import collections
import copyreg
import importlib
import io
import pickle
import sys
import threading
from typing import Any, Dict, List

import numpy as np

from . import _C
from ._dtypes import plain

MARKER = ".data/glassgrad_objects"  # member name inside the archive folder

# ---- the allowlist: torch.serialization's add_safe_globals / safe_globals ------------------------
_added: Dict[str, Any] = {}
_scoped = threading.local()  # a stack of {name: object} for the safe_globals contexts of this thread


def _global_name(entry) -> tuple:
    """(name, object) of an allowlist entry: an object (named module.qualname) or (object, name)."""
    if isinstance(entry, tuple):
        if len(entry) != 2 or not isinstance(entry[1], str):
            raise TypeError(f"safe_globals: a tuple entry must be (object, 'module.name'), got {entry!r}")
        return entry[1], entry[0]
    module = getattr(entry, "__module__", None)
    qualname = getattr(entry, "__qualname__", None) or getattr(entry, "__name__", None)
    if module is None or qualname is None:
        raise TypeError(f"safe_globals: expected classes or functions, got {entry!r} (a {type(entry).__name__})\n"
                        f"  fix: pass the class itself, e.g. safe_globals([MyModel])")
    return f"{module}.{qualname}", entry


def add_safe_globals(safe_globals: List[Any]) -> None:
    """Allowlists classes and functions for glassgrad.load(weights_only=True), for this process."""
    for entry in safe_globals:
        name, obj = _global_name(entry)
        _added[name] = obj


def get_safe_globals() -> List[Any]:
    """The globals add_safe_globals allowlisted (entries given as (object, name) come back so)."""
    return [obj if _global_name(obj)[0] == name else (obj, name) for name, obj in _added.items()
            if not isinstance(obj, tuple)]


def clear_safe_globals() -> None:
    """Forgets every global add_safe_globals allowlisted."""
    _added.clear()


class safe_globals:  # torch.serialization.safe_globals' spelling
    """`with safe_globals([MyModel, ...]):` allowlists them for the loads inside the block only."""

    def __init__(self, safe_globals: List[Any]):
        self.safe_globals = dict(_global_name(e) for e in safe_globals)

    def __enter__(self):
        stack = getattr(_scoped, "stack", None)
        if stack is None:
            stack = _scoped.stack = []
        stack.append(self.safe_globals)
        return self

    def __exit__(self, *exc) -> None:
        _scoped.stack.remove(self.safe_globals)


def _allowlisted(name: str):
    for scope in reversed(getattr(_scoped, "stack", None) or []):
        if name in scope:
            return scope[name]
    return _added.get(name, _MISSING)


_MISSING = object()

# ---- resolving a pickled global ------------------------------------------------------------------
# Always allowed: building blocks of containers and of the objects protocol 2 writes.
_BUILTINS = {("builtins", n): getattr(builtins, n) for n in ("set", "frozenset", "complex", "slice", "range",
                                                             "bytearray", "bytes", "list", "dict", "tuple", "int",
                                                             "float", "str", "bool", "object")}
_ALWAYS = {**_BUILTINS, ("_codecs", "encode"): codecs.encode, ("collections", "OrderedDict"): collections.OrderedDict,
           ("collections", "defaultdict"): collections.defaultdict, ("copyreg", "_reconstructor"): copyreg._reconstructor}
# Of those, the ones weights_only=True refuses unless allowlisted, as PyTorch's weights-only
# unpickler does (it allows set, complex, bytearray, OrderedDict, Counter and _codecs.encode).
_NOT_WEIGHTS_ONLY = {("builtins", n) for n in ("frozenset", "slice", "range", "list", "dict", "tuple", "int", "float",
                                              "str", "bool", "object")} | {("collections", "defaultdict"),
                                                                           ("copyreg", "_reconstructor")}


def _trusted_class(obj) -> bool:
    """A class weights_only=False constructs unasked: a glassgrad layer, optimizer (with its
    parameter groups) or scheduler, or a subclass of one (in-memory objects: their constructors
    touch nothing outside the process)."""
    from .nn.module import Module
    from .optim.lr_scheduler import LRScheduler
    from .optim.optimizer import Optimizer, ParamGroup
    return isinstance(obj, type) and issubclass(obj, (Module, Optimizer, LRScheduler, ParamGroup))


# Standard-library value classes that training scripts save beside their weights (an argparse
# Namespace of settings, as `torch.save({'settings': opt, 'model': state}, f)` writes it): building
# one sets attributes or fields and touches nothing outside the process.
_PLAIN_DATA = {("argparse", "Namespace"), ("types", "SimpleNamespace"), ("datetime", "date"),
               ("datetime", "datetime"), ("datetime", "time"), ("datetime", "timedelta"), ("datetime", "timezone"),
               ("fractions", "Fraction"), ("decimal", "Decimal")}


def _plain_data(module: str, name: str, obj) -> bool:
    """A standard-library value class of _PLAIN_DATA (weights_only=False builds it unasked)."""
    return (module, name) in _PLAIN_DATA and isinstance(obj, type)


def _trusted_function(module: str, obj) -> bool:
    """glassgrad.nn.functional's activations (a TransformerEncoderLayer holds one)."""
    return module in ("glassgrad.functional", "glassgrad.nn.functional") and callable(obj) and not isinstance(obj, type)


class WeightsOnlyRefusal(_C.GlassgradError):
    """A global refused under weights_only=True; load_pytorch_bytes raises it as
    serialization.WeightsOnlyLoadError, a pickle.UnpicklingError as PyTorch's refusal is."""


def find_global(module: str, name: str, weights_only: bool, path: str):
    """The object a checkpoint's GLOBAL module.name stands for, or a GlassgradError that says why
    it is refused and how to allow it (a WeightsOnlyRefusal under weights_only=True, its message
    begun with PyTorch's 'Weights only load failed.')."""
    full = f"{module}.{name}"
    if (module, name) in _ALWAYS and not (weights_only and (module, name) in _NOT_WEIGHTS_ONLY):
        return _ALWAYS[(module, name)]
    obj = _allowlisted(full)
    if obj is not _MISSING:
        return obj
    if not weights_only:
        # Only modules already imported (the training script's own, glassgrad's): a file never
        # makes glassgrad import anything.
        owner = sys.modules.get(module)
        if owner is None and module.startswith("glassgrad."):
            owner = importlib.import_module(module)
        found = _attribute(owner, name) if owner is not None else _MISSING
        if found is not _MISSING and (_trusted_class(found) or _trusted_function(module, found) or
                                      _plain_data(module, name, found)):
            return found
        if owner is None and not module.startswith("torch"):
            raise _C.GlassgradError(
                f"{path}: the checkpoint holds a {full}, and its module '{module}' is not imported\n"
                f"  cause: glassgrad.load never imports a module a file names (importing runs its code)\n"
                f"  fix: import {module} before glassgrad.load, or allowlist the class: "
                f"glassgrad.serialization.add_safe_globals([{name}])")
    if module.startswith("torch"):
        raise (WeightsOnlyRefusal if weights_only else _C.GlassgradError)(
            ("Weights only load failed. " if weights_only else "") +
            f"{path}: the checkpoint holds a {full}, a PyTorch object glassgrad does not rebuild (a whole PyTorch "
            f"model or optimizer object)\n  fix: in PyTorch, save the state alone: torch.save(model.state_dict(), "
            f"path), then model.load_state_dict(glassgrad.load(path)) here")
    if weights_only:
        raise WeightsOnlyRefusal(
            f"Weights only load failed. {path}: the checkpoint holds a {full}, which is not an allowed global by "
            f"default (glassgrad.load never runs code from a file unless told to trust it)\n"
            f"  cause: glassgrad.load(f) reads tensors, containers and numbers (weights_only=True, PyTorch's "
            f"default), and other classes only when you allowlist them\n"
            f"  fix: if you wrote the file and {name} is your own class (a model), allowlist it: `with "
            f"glassgrad.serialization.safe_globals([{name}]): obj = glassgrad.load(f)`, or load it with "
            f"glassgrad.load(f, weights_only=False); never allowlist a function such as os.system")
    raise _C.GlassgradError(
        f"{path}: the checkpoint holds a {full}, which glassgrad.load never constructs unasked: it loads "
        f"glassgrad's layers, optimizers and schedulers and subclasses of them, and never runs code from a file\n"
        f"  fix: if you wrote the file and {name} is your own class, "
        f"glassgrad.serialization.add_safe_globals([{name}]) before loading")


def _attribute(owner, dotted: str):
    obj = owner
    for part in dotted.split("."):
        obj = getattr(obj, part, _MISSING)
        if obj is _MISSING:
            return _MISSING
    return obj


# ---- restoring tensors -------------------------------------------------------------------------
def restore_device(location: str, map_location, storage=None) -> str:
    """Where a tensor saved on `location` goes, by torch.load's map_location rules (None: where
    it was saved; a device or string; a {saved: new} dict; a function of (storage, location)
    called with the CPU storage of the loaded values, whose result names the device: a storage
    or tensor (its device), a device or string, or None (where it was saved))."""
    from . import _device
    target = location
    if callable(map_location) and not isinstance(map_location, (str, dict)):
        result = map_location(storage, location)
        if result is not None:
            target = str(result) if isinstance(result, (str, _device.device)) else str(getattr(result, "device", "cpu"))
    elif isinstance(map_location, dict):
        target = str(map_location.get(location, location))
    elif map_location is not None:
        target = str(map_location)
    target = _device.normalize(target)
    if target != "cpu" and not _device.cuda_available():
        raise _C.DeviceError(
            f"glassgrad.load: a tensor was saved on {location} and this machine has no usable CUDA GPU\n"
            f"  fix: glassgrad.load(f, map_location='cpu') (or map_location=glassgrad.device('cpu'))")
    return target


def tensor_of(array: np.ndarray, location: str, map_location, requires_grad: bool = False, dtype=None):
    """A loaded tensor: `array`'s values in `dtype` (default the array's), placed by map_location."""
    from ._tensor import tensor
    if callable(map_location) and not isinstance(map_location, (str, dict)):
        host = tensor(array, dtype=dtype, device="cpu")
        target = restore_device(location, map_location, host.untyped_storage())
        return host.to(target).requires_grad_(requires_grad) if requires_grad else host.to(target)
    return tensor(array, dtype=dtype, device=restore_device(location, map_location), requires_grad=requires_grad)


def parameter_of(data, requires_grad: bool = True, backward_hooks=None, state=None, *, share: bool = False):
    """A saved Parameter (a tensor of integers, which nn.Parameter refuses, stays a tensor), with
    the attributes torch._utils._rebuild_parameter_with_state carries set on it again; share=True:
    over data's own memory (a view of another tensor of the file)."""
    from .nn.module import Parameter, sharing_parameter
    if not data.dtype.is_floating_point:
        return _with_state(data, state)
    made = sharing_parameter(data, bool(requires_grad)) if share else Parameter(data, bool(requires_grad))
    return _with_state(made, state)


def rebuild_from_type(func, new_type, args, state):
    """torch._tensor._rebuild_from_type_v2: the tensor func(*args) rebuilds, with the attributes
    set on it when saved (`state`, its __dict__), as PyTorch's torch.load restores them."""
    return _with_state(func(*args), state)


def _with_state(obj, state):
    """obj with the attributes of a saved tensor's state set (torch._utils._set_obj_state's
    forms: the __dict__, or a (__dict__, slots) pair; None when there were none)."""
    parts = state if isinstance(state, tuple) else (state,)
    if len(parts) > 2 or not all(p is None or isinstance(p, dict) for p in parts):
        raise _C.GlassgradError(f"a tensor's saved state must be a dict or a (dict, dict) pair, got "
                                f"{type(state).__name__}: the checkpoint is damaged")
    for part in parts:
        for key, value in (part or {}).items():
            setattr(obj, key, value)
    return obj


def finish(obj) -> Any:
    """Every module reached from `obj`: its buffers become module state again (as
    register_buffer makes them), so plans update them in place as before saving."""
    from .nn.module import Module, _state_leaf
    seen = set()
    todo = [obj]
    while todo:
        x = todo.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, Module):
            buffers = x.__dict__.get("_buffers", {})
            for n, b in list(buffers.items()):
                if b is not None:
                    buffers[n] = _state_leaf(b.numpy(force=True), b.device, b.name)
            todo.extend(x.__dict__.values())
        elif isinstance(x, dict):
            todo.extend(x.values())
        elif isinstance(x, (list, tuple, set, frozenset)):
            todo.extend(x)
    return obj


# ---- writing -------------------------------------------------------------------------------------
class _Global:
    """A global written by name (PyTorch's rebuild functions and types need no torch here)."""

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle wants a reduce function to be callable; this one is only written
        raise TypeError(f"{self.module}.{self.name} is a name written into a checkpoint, not a function")


_REBUILD_TENSOR = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
_REBUILD_PARAMETER_WITH_STATE = _Global("torch._utils", "_rebuild_parameter_with_state")
_REBUILD_FROM_TYPE = _Global("torch._tensor", "_rebuild_from_type_v2")
_TORCH_TENSOR = _Global("torch", "Tensor")
_TORCH_DEVICE = _Global("torch", "device")
_TORCH_SIZE = _Global("torch", "Size")


class _Storage:
    def __init__(self, key: str, array: np.ndarray, location: str):
        self.key, self.array, self.location = key, array, location


class _Data:
    """A Parameter's tensor, written as a plain tensor record (its .data)."""

    def __init__(self, t):
        self.t = t


class _Discard:
    """A file that keeps nothing: _TensorFinder's pickle is only walked."""

    @staticmethod
    def write(data) -> None:
        pass


class _TensorFinder(pickle._Pickler):
    """Pickles an object only to meet every tensor it holds (each once: pickle's memo), in the
    order _Pickler meets them; their values are not read."""

    def __init__(self):
        super().__init__(_Discard(), protocol=2)
        self.tensors: List[Any] = []

    def reducer_override(self, obj):
        from ._tensor import Tensor
        if isinstance(obj, Tensor):
            self.tensors.append(obj)
            return int, (), (dict(obj.__dict__) or None)  # its attributes may hold tensors too
        return NotImplemented


class _Pickler(pickle._Pickler):  # the Python pickler: its save_global can write a name torch has
    def __init__(self, file, storage_of: Dict[Any, str], views: Dict[int, tuple]):
        super().__init__(file, protocol=2)
        self.storage_of = storage_of
        self.storages: List[_Storage] = []
        self.views = views  # id(tensor): (StorageSpan, offset, strides), _storage_views.shared_layouts
        self.span_storages: Dict[int, _Storage] = {}  # id(StorageSpan): its one storage record

    def persistent_id(self, obj):
        if isinstance(obj, _Storage):
            return ("storage", _Global("torch", self.storage_of[obj.array.dtype]), obj.key, obj.location,
                    int(obj.array.size))
        return None

    def save_global(self, obj, name=None):
        if isinstance(obj, _Global):
            self.write(pickle.GLOBAL + obj.module.encode() + b"\n" + obj.name.encode() + b"\n")
            self.memoize(obj)
            return
        super().save_global(obj, name)

    def reducer_override(self, obj):
        from . import _device, _size
        from ._tensor import Tensor
        from .nn.module import Parameter
        if isinstance(obj, _Global):
            return obj.name  # a str: written by save_global
        # A tensor with attributes set on it is written as torch.save writes one (Tensor.__reduce_ex__):
        # Parameter's _rebuild_parameter_with_state, a tensor's _rebuild_from_type_v2, state its __dict__
        state = dict(obj.__dict__) if isinstance(obj, Tensor) and obj.__dict__ else None
        if isinstance(obj, Parameter):
            if state is not None:
                return _REBUILD_PARAMETER_WITH_STATE, (_Data(obj), obj.requires_grad, collections.OrderedDict(), state)
            return _REBUILD_PARAMETER, (_Data(obj), obj.requires_grad, collections.OrderedDict())
        if isinstance(obj, (Tensor, _Data)):
            # a Parameter's .data record does not require grad: _rebuild_parameter sets that
            args = self._tensor_args(obj.t, False) if isinstance(obj, _Data) else \
                self._tensor_args(obj, bool(obj.requires_grad))
            if state is not None:
                return _REBUILD_FROM_TYPE, (_REBUILD_TENSOR, _TORCH_TENSOR, args, state)
            return _REBUILD_TENSOR, args
        if isinstance(obj, _device.device):
            return _TORCH_DEVICE, (obj.type,) if obj.index is None else (obj.type, obj.index)
        if isinstance(obj, _size.Size):
            return _TORCH_SIZE, (tuple(int(d) for d in obj),)
        if isinstance(obj, np.ndarray) and obj.dtype.hasobject:
            raise pickle.PicklingError("a NumPy array of Python objects")
        return NotImplemented

    def _tensor_args(self, t, requires_grad: bool) -> tuple:
        """torch._utils._rebuild_tensor_v2's arguments for t: its values a new storage record, or,
        for a tensor sharing its memory with others of the object, its layout over their one record."""
        from ._tensor import stored_array
        if id(t) in self.views:
            span, offset, strides = self.views[id(t)]
            storage = self.span_storages.get(id(span))
            if storage is None:
                storage = self._storage(span.array.astype(span.array.dtype.newbyteorder("<"), copy=False), t)
                self.span_storages[id(span)] = storage
            return storage, offset, tuple(int(d) for d in t.shape), strides, requires_grad, collections.OrderedDict()
        arr = np.array(stored_array(t), order="C")
        storage = self._storage(arr.astype(arr.dtype.newbyteorder("<"), copy=False), t)
        shape = tuple(int(d) for d in arr.shape)
        strides, acc = [], 1
        for d in reversed(shape):
            strides.append(acc)
            acc *= max(d, 1)
        return storage, 0, shape, tuple(reversed(strides)), requires_grad, collections.OrderedDict()

    def _storage(self, arr: np.ndarray, t) -> _Storage:
        """A new storage record of arr's elements, on t's device."""
        if arr.dtype.newbyteorder("=") not in self.storage_of:
            raise pickle.PicklingError(f"a tensor of dtype {arr.dtype} (PyTorch's format has no storage for it)")
        storage = _Storage(str(len(self.storages)), arr, str(t.device))
        self.storages.append(storage)
        return storage

    def save(self, obj, save_persistent_id=True):
        from . import _dtypes
        if isinstance(obj, _dtypes.dtype):  # torch.float32 and its kin are globals of the torch module
            obj = _DTYPE_GLOBALS.setdefault(plain(obj), _Global("torch", plain(obj)))
        super().save(obj, save_persistent_id)


_DTYPE_GLOBALS: Dict[str, _Global] = {}


class SavePicklingError(pickle.PicklingError, TypeError):
    """glassgrad.save's error where pickle raises PicklingError (a lambda, a class that __main__
    cannot name): the type torch.save lets through, and a TypeError as glassgrad's other refusals."""


class SaveAttributeError(AttributeError, TypeError):
    """glassgrad.save's error where pickle raises AttributeError (an attribute lookup failing
    while pickling), as torch.save lets it through; a TypeError too."""


_SAVE_ERRORS = {pickle.PicklingError: SavePicklingError, AttributeError: SaveAttributeError}


def pickle_objects(obj, storage_of: Dict[Any, str]):
    """(data.pkl bytes, [(key, array)]) for any picklable `obj`; raises TypeError naming what
    cannot be pickled, of pickle's own error type too (PicklingError, AttributeError), as
    torch.save raises pickle's error."""
    from ._storage_views import shared_layouts
    buf = io.BytesIO()
    try:
        finder = _TensorFinder()
        finder.dump(obj)  # first the tensors, to write those of one memory as views of one storage
        p = _Pickler(buf, storage_of, shared_layouts(finder.tensors))
        p.dump(obj)
    except RecursionError:
        raise TypeError("glassgrad.save: the object nests too deeply to be saved") from None
    except (pickle.PicklingError, TypeError, AttributeError) as e:
        raise _SAVE_ERRORS.get(type(e), TypeError)(f"glassgrad.save: cannot save this {type(obj).__name__}: {e}\n"
                        f"  cause: it holds something Python cannot pickle (a lambda, an open file, a generator, "
                        f"a CUDA handle)\n  fix: save its state instead, e.g. glassgrad.save(model.state_dict(), "
                        f"path)") from None
    return buf.getvalue(), [(s.key, s.array) for s in p.storages]


def torch_dtype(name: str):
    """glassgrad's dtype for a torch.<name> global, or None."""
    from . import _dtypes
    return _dtypes.DTYPES.get(name)
