"""Module: the base of every layer. Attributes that are Parameters, buffers or Modules are
registered in assignment order; their attribute paths ("layer2.0.conv1.weight") name parameters
in state_dict() and name layers in error messages and printed plans."""
from __future__ import annotations

import copy
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping
from typing import Any, Dict, Iterator, List, Optional, Tuple, TypeVar, Union

import numpy as np

from .. import _C, _device, _dtypes
from .. import _memory_formats as _mf
from .._args import InvalidArgumentTypeError
from .._tensor import Tensor, _wrap, raw_from_numpy
from .._trace import RECORDINGS as _RECORDINGS
from .._trace import _local as _trace_local
from .._trace import note_module_call, user_source
from . import _module_apply as _applied
from . import forward_hooks as _hooks
from . import registration_hooks as _reg
from . import state_dict_load as _sdl

_HOOK_GLOBALS = _hooks.GLOBAL_TABLES
_PRE, _POST, _BW_FULL, _BW_PRE = _hooks.PRE, _hooks.POST, _hooks.BACKWARD, _hooks.BACKWARD_PRE


class ParameterDTypeError(_C.DTypeError, RuntimeError):
    """nn.Parameter of integers: PyTorch raises a RuntimeError there, glassgrad's dtype errors are
    TypeErrors; this is both."""


class Parameter(Tensor):
    """A trainable tensor: a leaf that requires gradients and that optimizers update in place."""

    __slots__ = ()

    def __init__(self, data=None, requires_grad: bool = True, *, device=None, name: str = ""):
        """PyTorch's nn.Parameter(data=None, requires_grad=True): data (a tensor, an array or
        nested lists of floats; None: an empty tensor) on its own device, or on `device`."""
        if data is None:
            data = np.zeros((0,), np.float32)
        dtype = None  # arr's own
        if _keeps_layout(data, device):
            # PyTorch's Parameter shares the tensor's storage and strides (nn.Parameter(w.t())); here
            # a strided one does (a dense one is copied into a leaf of its own), as a detached view.
            self._h = _aliasing_handle(data, requires_grad)
            return
        if isinstance(data, Tensor):
            device = data.device if device is None else device
            arr, dtype = _array_and_dtype(data)
        elif str(getattr(data, "dtype", "")) == "torch.bfloat16":
            arr, dtype = _array_and_dtype(data)
        else:
            arr = np.asarray(data)
            if arr.dtype == np.float64 and not isinstance(data, (np.ndarray, np.generic)):
                arr = arr.astype(np.float32)  # Python floats: the default float type, as torch.tensor
        if arr.dtype.kind != "f" and requires_grad:  # requires_grad=False: any dtype, as in PyTorch
            raise ParameterDTypeError(f"a Parameter must hold floats, got {arr.dtype} (Only Tensors of floating point "
                                      f"and complex dtype can require gradients)\n  fix: "
                                      f"nn.Parameter(x.float()), or np.asarray(x, dtype=np.float32)")
        # Until a model call names it by its path, the allocation log knows it by where it was made.
        raw = raw_from_numpy(arr, _device.normalize(device), name or f"parameter@{user_source()}", dtype)
        self._h = _C.lazy_leaf(raw, "parameter", bool(requires_grad), name)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo) -> "Parameter":
        """copy.deepcopy: a new Parameter holding a copy of the values, on the same device (with
        the strides of one dense in another order than row-major, as PyTorch's)."""
        if id(self) not in memo:
            laid_out = _mf.laid_out_copy(self)
            data = self.numpy(force=True) if laid_out is None else laid_out
            memo[id(self)] = Parameter(data, self.requires_grad, device=self.device, name=self.name)
        return memo[id(self)]


def _aliasing_handle(data: Tensor, requires_grad: bool):
    """A handle of a leaf over data's memory (a detached view: writes through either are seen by
    the other), requiring gradients as asked."""
    h = data.detach()._h
    h.set_requires_grad(bool(requires_grad))
    return h


def sharing_parameter(data: Tensor, requires_grad: bool) -> "Parameter":
    """A Parameter over data's own memory, as PyTorch's nn.Parameter(data) of any tensor (an
    optimizer step on it writes data); load_state_dict(assign=True) makes its Parameters so. A
    tensor of integers that must require gradients gets nn.Parameter's error."""
    if requires_grad and not data.dtype.is_floating_point:
        return Parameter(data, requires_grad)  # raises ParameterDTypeError
    p = Parameter.__new__(Parameter)
    p._h = _aliasing_handle(data, requires_grad)
    return p


def _keeps_layout(data, device) -> bool:
    """nn.Parameter(data) aliases data: a float tensor on its own device that is not dense in
    row-major order (a transposed weight); see Parameter.__init__."""
    return (isinstance(data, Tensor) and (device is None or _device.normalize(device) == data.device)
            and data.dtype.is_floating_point and not data.is_contiguous())


class _BufferMeta(type):
    """isinstance(t, nn.Buffer) holds for every tensor that nn.Buffer made (marked `_is_buffer`),
    as in PyTorch, whose Buffer returns a plain tensor."""

    def __instancecheck__(cls, instance) -> bool:
        if cls is Buffer and isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """PyTorch's nn.Buffer(data=None, *, persistent=True): a tensor that becomes a buffer of the
    module it is assigned to (`self.mask = nn.Buffer(t)` as register_buffer("mask", t, persistent)).
    persistent=False keeps it out of state_dict(). As PyTorch's, the result is a plain Tensor
    sharing data's memory (writes through either are seen by the other) and requiring gradients
    as data does; lists and NumPy arrays become a tensor of their own."""

    persistent: bool  # an attribute of each object, set by __new__

    def __new__(cls, data=None, *, persistent: bool = True):
        # Invariant: a plain Tensor marked `_is_buffer` (isinstance through _BufferMeta).
        out = Tensor.__new__(Tensor)
        if isinstance(data, Tensor):
            # A plain tensor: the same handle (as Tensor.as_subclass), so register_buffer makes
            # this object a module-state leaf over data's memory (_made_module_state); else a
            # detached view of data, which register_buffer keeps as it is.
            out._h = data._h if not (data.requires_grad or data._h.is_view) else _aliasing_handle(
                data, data.requires_grad)
        else:
            arr, dtype = _array_and_dtype(np.zeros((0,), np.float32) if data is None else data)
            out._h = _state_leaf(arr, _device.default_device(), "", dtype)._h
        out.__dict__.update(persistent=bool(persistent), _is_buffer=True)
        return out


def _copied_buffer(b: Tensor, memo: dict) -> Tensor:
    """Module.__deepcopy__'s copy of buffer b: a new state leaf of its values, with b's attributes
    (nn.Buffer's mark and persistent) and requires_grad (a buffer registered requiring gradients,
    as PyTorch's copy), once per tensor (one shared by two names stays shared)."""
    if id(b) not in memo:
        out = _state_leaf(b.numpy(force=True), b.device, b.name)
        if b.requires_grad:
            out._h.set_requires_grad(True)
        out.__dict__.update(copy.deepcopy(b.__dict__, memo))
        memo[id(b)] = out
    return memo[id(b)]


def _made_module_state(t) -> bool:
    """Whether register_buffer makes t, which it keeps as the buffer either way (PyTorch keeps
    every tensor), a module-state leaf over its own memory (named by its path, updated in place by
    plans): a glassgrad tensor with memory of its own (not a view of another's), not requiring
    gradients and not a Parameter (an nn.Buffer of such a tensor too). A view, a tensor in a
    graph or a Parameter is kept as it is (writes through its base, its gradient, its identity
    are PyTorch's); NumPy arrays become a tensor of their values."""
    return (isinstance(t, Tensor) and not isinstance(t, Parameter) and not t.requires_grad
            and not t._h.is_view)


def _state_leaf(arr: np.ndarray, device: str, name: str, dtype: Optional[str] = None) -> Tensor:
    """A buffer's leaf holding arr's values in dtype (default arr's own)."""
    return _wrap(_C.lazy_leaf(raw_from_numpy(arr, device, name, dtype), "state", False, name))


def _array_and_dtype(t) -> Tuple[np.ndarray, Optional[str]]:
    """The values of tensor t (glassgrad's, or a CPU PyTorch tensor) as an array, and the dtype
    to make of it: None (the array's own) except for bfloat16, which NumPy lacks (its values are
    then float32, exactly)."""
    if isinstance(t, Tensor):
        return (t._values(), "bfloat16") if t.dtype == "bfloat16" else (t.numpy(force=True), None)
    if str(getattr(t, "dtype", "")) == "torch.bfloat16":  # a PyTorch tensor
        return t.detach().float().cpu().numpy(), "bfloat16"
    return np.asarray(t), None


def _leaf_for(t: Tensor, raw: "_C.Tensor"):
    """A new leaf holding `raw`, of t's kind (parameter or state), name and requires_grad (a
    frozen parameter stays frozen through load_state_dict, .to(dtype) and .double())."""
    kind = "parameter" if isinstance(t, Parameter) else "state"
    return _C.lazy_leaf(raw, kind, t.requires_grad, t.name)


def _new_data(t: Tensor, arr, device: Optional[str] = None):
    """The leaf that assign_data would give t: arr converted to t's dtype, on `device` (default
    t's own). Nothing about t changes."""
    return _leaf_for(t, raw_from_numpy(np.asarray(arr), device or t.device, t.name, t.dtype))  # dense, 0-d kept


def rebind_all(pairs) -> None:
    """[(tensor, new leaf)]: points every tensor at its new leaf in one call, so an error or a
    KeyboardInterrupt can never leave a model half loaded or half moved (make the leaves first:
    that is where conversions and allocations fail)."""
    pairs = list(pairs)
    _C.lazy_reset_all([t._h for t, _ in pairs], [leaf for _, leaf in pairs])


def load_all(pairs) -> None:
    """load_state_dict's [(tensor, new leaf of the tensor's dtype and device)]: rebind_all, except
    that a view (a buffer or Parameter over part of another tensor's memory) has the values
    written into it, so its base sees them, as PyTorch's load_state_dict copies in place. The
    views are written after the others are rebound (the leaves are made already)."""
    pairs = list(pairs)
    rebind_all([(t, leaf) for t, leaf in pairs if not t._h.is_view])
    views = [(t, leaf) for t, leaf in pairs if t._h.is_view]
    if views:
        from .._runtime import no_grad
        with no_grad():
            for t, leaf in views:
                t.copy_(_wrap(leaf))  # type: ignore[attr-defined]


def assign_data(t: Tensor, arr: np.ndarray, device: Optional[str] = None) -> None:
    """Gives the parameter or buffer `t` new data (converted to its dtype; on `device`, default its
    own), keeping the Python object: optimizers and models holding it see the new values."""
    rebind_all([(t, _new_data(t, arr, device))])


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """load_state_dict's result, printed as PyTorch prints it: `<All keys matched successfully>`
    when nothing is missing or unexpected, else `_IncompatibleKeys(missing_keys=[...], ...)`."""
    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys!r}, unexpected_keys={self.unexpected_keys!r})"

    __str__ = __repr__


IncompatibleKeys = _IncompatibleKeys


def _uninitialized(t) -> bool:
    """Whether t is a lazy layer's UninitializedParameter or UninitializedBuffer (nn/lazy.py)."""
    return getattr(t, "cls_to_become", None) is not None


def _check_entry(name: str, value, t: Tensor, read: bool = True):
    """(array of t's shape whose values t's dtype can hold, None), or (None, (exception class,
    PyTorch's error message for the entry, a fix)), checked before anything is loaded. With
    read=False a glassgrad Tensor entry is checked without reading its values and given back
    itself (of t's shape) in place of the array: load_state_dict(assign=True) puts it in place."""
    if _uninitialized(value):  # an uninitialized lazy tensor (docs/lazy.md)
        return None, (_C.ShapeError, f"'{name}' is an uninitialized parameter or buffer (from a lazy layer saved "
                      f"before its first forward); the model's is {list(t.shape)}",
                      "run one forward pass of the lazy model before calling state_dict()")
    try:
        arr = (value if not read else value._values()) if isinstance(value, Tensor) else _array_and_dtype(value)[0]
    except Exception as e:  # whatever the object is, say which entry it was
        return None, (StateDictError, f'While copying the parameter named "{name}", expected torch.Tensor or '
                      f"Tensor-like object from checkpoint but received {type(value)} ({e})",
                      "pass the tensors model.state_dict() returned")
    if t.ndim == 0 and tuple(arr.shape) == (1,):  # PyTorch's compatibility rule for old 0-d entries
        arr = arr.reshape(())
    if tuple(arr.shape) != tuple(t.shape):
        return None, (StateDictShapeError, f"size mismatch for {name}: copying a param with shape "
                      f"{_sdl.shape_text(arr.shape)} from checkpoint, the shape in current model is "
                      f"{_sdl.shape_text(t.shape)}.", "build the model with the same layer sizes")
    if not isinstance(arr, Tensor) and arr.dtype.kind not in "biuf":
        return None, (StateDictDTypeError, f"'{name}' holds {arr.dtype} values, the model's tensor is {t.dtype}",
                      "pass numeric tensors or arrays, as model.state_dict() returns")
    return arr, None


def _entry_dtype(value) -> Optional[str]:
    """The dtype load_state_dict(assign=True) gives an entry's new tensor when its array (from
    _checked_entry) does not say it: bfloat16, held as float32 values; else None."""
    if isinstance(value, Tensor):
        return "bfloat16" if value.dtype == "bfloat16" else None
    return "bfloat16" if str(getattr(value, "dtype", "")) == "torch.bfloat16" else None


class StateDictError(_C.InvalidArgumentError, RuntimeError):
    """load_state_dict(strict=True) with missing or unexpected keys, or an entry of another shape:
    PyTorch raises a RuntimeError there, glassgrad's argument errors are ValueErrors; this is both."""


class _ExtraState:
    """A state_dict entry that is not a tensor: what module.get_extra_state() returns."""

    def __init__(self, module):
        self.module = module


class StateDictShapeError(_C.ShapeError, RuntimeError):
    """A state_dict entry whose shape is not the model's (PyTorch's RuntimeError "size mismatch")."""


class StateDictDTypeError(_C.DTypeError):
    """A state_dict entry of values no tensor holds (strings, objects)."""


def _refuse(module, messages: List[str], kinds: List[type], fixes: List[str]) -> None:
    """PyTorch's load_state_dict error: every message under "Error(s) in loading state_dict for
    X:", raised as the first entry error's class (a size mismatch: StateDictShapeError), else as
    StateDictError; both are RuntimeErrors, as PyTorch's."""
    fix = "".join(f"\n  fix: {f}" for f in dict.fromkeys(fixes))
    raise (kinds[0] if kinds else StateDictError)(
        f"Error(s) in loading state_dict for {type(module).__name__}:\n\t" + "\n\t".join(messages) + fix)


def _check_new_name(module, kind: str, name, table: str) -> None:
    """PyTorch's register_buffer/register_parameter name rules (KeyError, TypeError)."""
    where = f"{type(module).__name__}.register_{kind}"
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}\n  fix: {where}('name', ...)")
    if "." in name:
        raise KeyError(f"{kind} name can't contain \".\" (got '{name}'; dots separate submodules in state_dict "
                       f"keys)\n  fix: register it on the submodule, or use '{name.replace('.', '_')}'")
    if name == "":
        raise KeyError(f"{kind} name can't be empty string \"\"\n  fix: {where}('name', ...)")
    if name not in module.__dict__.get(table, {}) and (hasattr(module, name) or name in module.__dict__):
        raise KeyError(f"attribute '{name}' already exists on {type(module).__name__}\n  fix: pick another "
                       f"name, or `del module.{name}` first")


def _positional_state_dict_args(args, destination, prefix: str, keep_vars: bool):
    """state_dict(destination, prefix, keep_vars) by position: PyTorch still reads them, with a
    FutureWarning (keywords given as well win, as in PyTorch)."""
    warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to the documentation of "
                  "torch.nn.Module.state_dict for details.", FutureWarning, stacklevel=3)
    if len(args) > 3:
        raise TypeError(f"state_dict() takes at most 3 positional arguments (destination, prefix, keep_vars), got "
                        f"{len(args)}\n  fix: model.state_dict(prefix='...', keep_vars=False)")
    if destination is None:
        destination = args[0]
    if len(args) > 1 and prefix == "":
        prefix = args[1]
    if len(args) > 2 and keep_vars is False:
        keep_vars = args[2]
    return destination, prefix, keep_vars


def _refuse_non_entry(module, name: str, value) -> None:
    """PyTorch's __setattr__ rules for a value that is neither a Parameter nor a Module: over a
    buffer it must be a tensor, over a child module nothing else is allowed (None aside)."""
    d = module.__dict__
    if name in d.get("_buffers", {}) and not isinstance(value, Tensor):
        raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' (glassgrad.nn.Buffer, "
                        f"glassgrad.Tensor or None expected)\n  fix: module.{name} = glassgrad.tensor(value), or "
                        f"`del module.{name}` first to make it a plain attribute")
    if name in d.get("_modules", {}):
        raise TypeError(f"cannot assign '{type(value).__name__}' as child module '{name}' (glassgrad.nn.Module or "
                        f"None expected)\n  fix: `del module.{name}` first to replace the layer by another value")


def _assign_entries(pairs) -> None:
    """load_state_dict(assign=True): [(module, tensor, name, entry, dtype)], the entry a glassgrad
    Tensor or the array of another kind of entry. As PyTorch's assign: a Tensor entry of a buffer
    becomes the buffer itself (the same object); of a Parameter, a Parameter entry becomes the
    parameter itself, its requires_grad set to the old parameter's, and any other Tensor is
    wrapped in a Parameter sharing its memory (keeping the old one's requires_grad). An array
    (NumPy, or a PyTorch tensor's values) becomes a new Parameter or buffer holding its values, in
    the entry's dtype (bfloat16 too). Every new tensor is made before any is put in place."""
    made: List[Tuple[Dict[str, Any], str, Tensor]] = []
    frozen: List[Tuple[Parameter, bool]] = []
    for owner, t, attr, arr, dtype in pairs:
        if isinstance(arr, Tensor):
            entry = arr
            if isinstance(t, Parameter) and isinstance(entry, Parameter):
                frozen.append((entry, t.requires_grad))
            elif isinstance(t, Parameter):
                entry = sharing_parameter(entry, t.requires_grad)
            made.append((owner._parameters if isinstance(t, Parameter) else owner._buffers, attr, entry))
            continue
        if isinstance(t, Parameter):
            values = _wrap(_C.lazy_leaf(raw_from_numpy(arr, t.device, t.name, dtype), "constant", False, "")) \
                if dtype is not None else arr
            made.append((owner._parameters, attr, Parameter(values, t.requires_grad, device=t.device, name=t.name)))
        else:
            made.append((owner._buffers, attr, _state_leaf(np.asarray(arr), t.device, t.name, dtype)))
    for p, requires_grad in frozen:
        p.requires_grad_(requires_grad)
    for table, attr, new in made:
        name = table[attr].name
        table[attr] = new
        new._h.name = name  # the path of the entry it replaces ("layer1.0.conv1.weight")
    if made:
        _bump_structure_version()


_structure_version = 0


def structure_version() -> int:
    """Changes whenever a layer, parameter or buffer of a module is replaced by another object
    (glassgrad.compile guards its replays with it)."""
    return _structure_version


def _bump_structure_version() -> None:
    global _structure_version
    _structure_version += 1



_REGISTRATION_HOOKS = _reg.ACTIVE


def _registration_hooked(module, name: str, value):
    """value after the global registration hooks of its kind: a Parameter's, a Module's, or a
    tensor assigned to a buffer's name (add_module(name, None) runs the module hooks itself)."""
    if isinstance(value, Parameter):
        return _reg.run(_reg.PARAMETER, module, name, value)
    if isinstance(value, Module):
        return _reg.run(_reg.MODULE, module, name, value)
    if isinstance(value, Tensor) and name in module.__dict__.get("_buffers", {}):
        return _reg.run(_reg.BUFFER, module, name, value)
    return value


def layer_name(layer: "Module") -> str:
    """How messages name a layer: "Conv2D 'layer2.0.conv1'" (its path once a model called it), or
    its class alone. The engine's shape rules word their checks with it (NodeMeta.layer)."""
    return f"{type(layer).__name__} '{layer._scope}'" if layer._scope else type(layer).__name__


def _call_names(module: "Module") -> Tuple[type, str, str, str]:
    """module's "_call_names" entry, made for its class and path now: (class, path, scope,
    layer name), the scope and layer name being what Module.__call__ pushes for its calls (the
    path, or the class's name at the top, and layer_name's). Module.__call__ uses the entry while
    the module's class and `_scope` are the objects it holds (a module's class may change:
    nn.utils.parametrize, lazy layers; its path changes when it is assigned into a model).
    module._scope raises as before for a module whose Module.__init__ did not run."""
    scope_ = module._scope
    cls = type(module)
    names = module.__dict__["_call_names"] = (cls, scope_, scope_ or cls.__name__, layer_name(module))
    return names


# PyTorch's Module.__init__ makes these tables; glassgrad makes each at its first use (a module
# without hook tables keeps its plain call), or when a script reads it. The buffer names kept out
# of state_dict() are the `_non_persistent` set; PyTorch's name for it reads the same set.
_LAZY_TABLES = frozenset({
    "_forward_hooks", "_forward_hooks_with_kwargs", "_forward_hooks_always_called", "_forward_pre_hooks",
    "_forward_pre_hooks_with_kwargs", "_backward_hooks", "_backward_pre_hooks", "_state_dict_hooks",
    "_state_dict_pre_hooks", "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks",
    "_non_persistent_buffers_set"})


def _lazy_table(module, name: str):
    d = module.__dict__
    table = d.setdefault("_non_persistent", set()) if name == "_non_persistent_buffers_set" else OrderedDict()
    object.__setattr__(module, name, table)
    return table


def _is_dtype(a) -> bool:
    return _dtypes._parse(a) is not None and not isinstance(a, bool)


def _to_arguments(args: tuple, device, dtype):
    """(device, dtype) of Module.to's positional forms, PyTorch's: (device, dtype), (dtype) or
    (tensor), each followed by the flags non_blocking and copy; anything else is its TypeError."""
    rest: tuple = ()
    if args:
        first = args[0]
        if isinstance(first, Tensor):
            device, dtype, rest = first.device, first.dtype, args[1:]
        elif _is_dtype(first):
            dtype, rest = first, args[1:]
        else:
            device, rest = first, args[1:]
            if rest and (rest[0] is None or _is_dtype(rest[0])):
                dtype, rest = (rest[0] if rest[0] is not None else dtype), rest[1:]
    if len(rest) > 2 or not all(isinstance(flag, bool) for flag in rest):
        raise TypeError(f"to() received an invalid combination of arguments - got {args}\n  fix: one of "
                        f"to(device, dtype, non_blocking), to(dtype, non_blocking), to(tensor, non_blocking)")
    return device, dtype


class ModuleInitOrderError(_C.GlassgradError, AttributeError):
    """A parameter, buffer or layer assigned before Module.__init__ ran: PyTorch raises an
    AttributeError ("cannot assign parameters before Module.__init__() call"); this is both."""


class Module:
    """Base class for layers and models: subclass it, create layers in __init__, write forward."""

    # PyTorch's flag: None until a backward hook is registered, then (set on the instance) whether
    # it is a full one (nn/legacy_backward_hooks.py)
    _is_full_backward_hook: Optional[bool] = None
    # PyTorch's class attributes: call_super_init (whether Module.__init__ passes extra arguments
    # on to super().__init__; glassgrad's takes none, so False), dump_patches (a legacy flag of
    # whole-module pickling, False) and T_destination (state_dict's destination type variable)
    call_super_init: bool = False
    dump_patches: bool = False
    # PyTorch's state_dict format version of the class (saved in state_dict()._metadata; BatchNorm's is 2)
    _version: int = 1
    T_destination = TypeVar("T_destination", bound=Dict[str, Any])

    def __init__(self):
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_scope", "")

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _attribute_reads(cls)
        _call_slot(cls)

    def _check_init(self, what: str = "parameters"):
        if "_parameters" not in self.__dict__:
            raise ModuleInitOrderError(f"cannot assign {what} before Module.__init__() call: "
                                       f"{type(self).__name__}.__init__ must call super().__init__() before "
                                       f"assigning layers or parameters\n  fix: add super().__init__() as the first "
                                       f"line")

    def __setattr__(self, name, value):
        if isinstance(value, Buffer):
            self._set_buffer(name, value)
            return
        if isinstance(value, (Parameter, Module)) or name in self.__dict__.get("_buffers", {}):
            self._check_init("parameters" if isinstance(value, Parameter) else "module"
                             if isinstance(value, Module) else "buffer")
        d = self.__dict__
        if _REGISTRATION_HOOKS:  # global registration hooks may replace the value (nn/registration_hooks.py)
            value = _registration_hooked(self, name, value)
        if name in d.get("_parameters", {}) and value is not None and not isinstance(value, Parameter):
            raise TypeError(f"cannot assign '{type(value).__name__}' as parameter '{name}' (glassgrad.nn.Parameter "
                            f"or None expected)\n  fix: {type(self).__name__}.{name} = nn.Parameter(value), or "
                            f"copy values in with `with torch.no_grad(): module.{name}.copy_(value)`")
        for table in ("_parameters", "_buffers", "_modules"):
            if value is None and name in d.get(table, {}):
                d[table][name] = None  # PyTorch keeps the name declared, with no tensor or layer
                _bump_structure_version()
                return
        if (value is not None and (name in d.get("_buffers", ()) or name in d.get("_modules", ()))
                and not isinstance(value, (Parameter, Module))):
            _refuse_non_entry(self, name, value)
        # A replacement keeps its place in its table (PyTorch's order: a model's children() after
        # `model.conv1 = nn.Conv2d(...)` still start with conv1); other tables drop the name.
        target = ("_parameters" if isinstance(value, Parameter) else "_modules" if isinstance(value, Module)
                  else "_buffers" if isinstance(value, Tensor) else None)
        for table in ("_parameters", "_buffers", "_modules"):
            if table in d and name in d[table]:
                if d[table][name] is not value:
                    _bump_structure_version()  # a layer, parameter or buffer replaced: compiled steps re-trace
                if table != target:
                    del d[table][name]
        if isinstance(value, (Parameter, Module)) and name in d:
            del d[name]  # a plain attribute (`self.bias = None` first) would hide the registered one
        if isinstance(value, Parameter):
            d["_parameters"][name] = value
            value._h.name = self._path_of(name)
        elif isinstance(value, Module):
            d["_modules"][name] = value
            value._name_tree(self._path_of(name))
        elif name in d.get("_buffers", {}) and isinstance(value, Tensor):
            d["_buffers"][name] = value
            value._h.name = self._path_of(name)
        else:
            object.__setattr__(self, name, value)

    # ---- names: every layer and tensor is named by its path in the module tree as soon as it is
    # assigned ("layer2.0.conv1", "layer2.0.conv1.weight"), whatever the call style later
    # (model(x), model.forward(x), model.layer2(x)): error messages, hooks, printed plans and
    # check_nan_gradients use these names.
    def _path_of(self, name: str) -> str:
        scope_ = self.__dict__.get("_scope", "")
        return f"{scope_}.{name}" if scope_ else name

    def _name_tree(self, path: str) -> None:
        for sub, m in self.named_modules(prefix=path, remove_duplicate=False):
            object.__setattr__(m, "_scope", sub)
            for table in (m._parameters, m._buffers):
                for tname, t in table.items():
                    if t is not None:
                        t._h.name = f"{sub}.{tname}" if sub else tname

    def __getattr__(self, name):
        # Every self.weight and self.conv1 of every forward comes here: the three tables are
        # read without a loop. (Before __init__ made them, none is there.) While a class's
        # __getattr__ is this one, the extension's attribute slot does the same lookups first
        # (_attribute_reads): a change here is a change there.
        d = self.__dict__
        params = d.get("_parameters")
        if params is not None:
            if name in params:
                return params[name]
            buffers, modules = d.get("_buffers", {}), d.get("_modules", {})
            if name in buffers:
                return buffers[name]
            if name in modules:
                return modules[name]
        else:
            for table in ("_buffers", "_modules"):
                if table in d and name in d[table]:
                    return d[table][name]
        if name in _LAZY_TABLES and params is not None:
            return _lazy_table(self, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for table in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(table, {}):
                del self.__dict__[table][name]
                return
        object.__delattr__(self, name)

    def __deepcopy__(self, memo) -> "Module":
        """copy.deepcopy: the same structure with new parameters and buffers holding copies of the
        values (shared tensors stay shared within the copy), as TransformerEncoder's layer clones
        need."""
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            if key == "_buffers":
                value = OrderedDict((n, None if b is None else copy.deepcopy(b, memo)
                                     if getattr(b, "cls_to_become", None) is not None  # a lazy layer's
                                     else _copied_buffer(b, memo))
                                    for n, b in value.items())
            else:
                value = copy.deepcopy(value, memo)
            object.__setattr__(new, key, value)
        return new

    def register_buffer(self, name: str, tensor, persistent: bool = True) -> None:
        """A tensor that is not trained (e.g. BatchNorm's running statistics), updated in place by
        the plans that write it; the tensor itself, as PyTorch keeps it (views and tensors
        requiring gradients too: _made_module_state); a NumPy array becomes a tensor of its
        values. persistent=False keeps
        it out of state_dict(). tensor=None declares the name without a tensor (as PyTorch allows)."""
        self._check_init("buffer")
        _check_new_name(self, "buffer", name, "_buffers")
        if tensor is not None and not isinstance(tensor, (Tensor, np.ndarray, np.generic)):  # NumPy: glassgrad's own
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' (torch Tensor or None "
                            f"required)\n  fix: {type(self).__name__}.register_buffer('{name}', torch.tensor(value))")
        if tensor is None:  # the name is declared in _buffers, as PyTorch's: a tensor assigned later is the buffer
            self.__dict__.pop(name, None)
            self._buffers[name] = None
            non_persistent = self.__dict__.setdefault("_non_persistent", set())
            (non_persistent.discard if persistent else non_persistent.add)(name)
            return
        tensor = _reg.run(_reg.BUFFER, self, name, tensor)
        if _made_module_state(tensor):
            # PyTorch's buffer is the tensor itself (m.b is t; a write to t is a write to the
            # buffer): t is made a module-state leaf over its own memory, the object kept
            rebind_all([(tensor, _C.lazy_leaf(tensor._raw(), "state", False, self._path_of(name)))])
            self._buffers[name] = tensor
        elif isinstance(tensor, Tensor):
            # a view (writes through it and its base are seen by both), a tensor requiring
            # gradients or a Parameter: the object itself, unchanged, as PyTorch keeps it
            self._buffers[name] = tensor
        else:
            self._buffers[name] = _state_leaf(np.asarray(tensor), _device.default_device(), self._path_of(name))
        if not persistent:
            self.__dict__.setdefault("_non_persistent", set()).add(name)
        else:  # re-registering a name makes it persistent again, as PyTorch's
            self.__dict__.get("_non_persistent", set()).discard(name)

    def _set_buffer(self, name: str, value: Buffer) -> None:
        """`module.name = nn.Buffer(t, persistent=...)`: name becomes a buffer, whatever it was."""
        self._check_init("buffer")
        d = self.__dict__
        for table, what in (("_parameters", "as parameter '{}' (glassgrad.nn.Parameter or None expected)"),
                            ("_modules", "as child module '{}' (glassgrad.nn.Module or None expected)")):
            if name in d[table]:  # PyTorch's rule: a buffer never silently replaces these
                raise TypeError(f"cannot assign '{type(value).__name__}' " + what.format(name) +
                                f"\n  fix: del module.{name} first, then assign the Buffer")
        d.pop(name, None)
        if name in d["_buffers"]:
            _bump_structure_version()
        self.register_buffer(name, value, value.persistent)
        if value.persistent:
            d.get("_non_persistent", set()).discard(name)

    def register_parameter(self, name: str, param: Optional[Parameter]) -> None:
        """Adds a parameter (or None: the name is declared, with no tensor)."""
        self._check_init()
        _check_new_name(self, "parameter", name, "_parameters")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' as parameter '{name}' "
                            f"(glassgrad.nn.Parameter or None required)\n  fix: {type(self).__name__}."
                            f"register_parameter('{name}', nn.Parameter(value))")
        if param is None:
            self.__dict__.pop(name, None)
            self._parameters[name] = None
            return
        setattr(self, name, param)

    def add_module(self, name: str, module: Optional["Module"]) -> None:
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass (add_module '{name}' of "
                            f"{type(self).__name__})\n  fix: pass an nn.Module, e.g. nn.Identity(), or None")
        self._check_init("module")
        _check_new_name(self, "module", name, "_modules")  # PyTorch's name rules, as for buffers
        if module is None:  # a Module's hooks run in __setattr__
            module = _reg.run(_reg.MODULE, self, name, module)
        if module is None:  # the name is kept in _modules, as PyTorch's (printed "(name): None")
            self.__dict__.pop(name, None)
            self._modules[name] = None
            _bump_structure_version()
            return
        setattr(self, name, module)

    register_module = add_module

    def get_submodule(self, target: str) -> "Module":
        """The module at a dotted path ("layer1.0.conv1"); "" is the module itself."""
        m = self
        for part in target.split(".") if target else []:
            # PyTorch's lookup is getattr: a property returning a submodule is followed too
            child = m._modules.get(part)
            if child is None:
                if not hasattr(m, part):
                    raise AttributeError(f"{m._get_name()} has no attribute `{part}` (looking up submodule "
                                         f"'{target}')")
                child = getattr(m, part)
                if not isinstance(child, Module):
                    raise AttributeError(f"`{part}` is not an nn.Module (looking up submodule '{target}')")
            m = child
        return m

    def set_submodule(self, target: str, module: "Module", strict: bool = False) -> None:
        """Puts `module` at a dotted path ("layer1.0.conv1"), as Module.set_submodule; with
        strict=True the path's last name must already be a submodule."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!\n  fix: set_submodule('name', m)")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}\n  fix: pass an nn.Module")
        path, _, name = target.rpartition(".")
        owner = self.get_submodule(path)
        if strict and name not in owner._modules:
            raise AttributeError(f"{type(owner).__name__} has no attribute `{name}` (set_submodule('{target}', "
                                 f"strict=True))\n  fix: strict=False adds it")
        if name in owner._modules or not hasattr(owner, name):
            setattr(owner, name, module)
        else:
            raise AttributeError(f"`{name}` is not an nn.Module (set_submodule('{target}'))\n  fix: another name")

    def _get_entry(self, target: str, table: str, what: str):
        path, _, name = target.rpartition(".")
        owner = self.get_submodule(path)
        # A buffer declared as None (register_buffer(name, None)) is returned as None, as
        # PyTorch's get_buffer does; a parameter must be a Parameter
        if name not in getattr(owner, table) or (getattr(owner, table)[name] is None and table == "_parameters"):
            kind = "parameter" if table == "_parameters" else "buffer"
            if not hasattr(owner, name):
                raise AttributeError(f"{type(owner).__name__} has no attribute `{name}` (looking up {kind} "
                                     f"'{target}')\n  fix: one of {[k for k, _ in self._named_entries('', table, True, True)]}")
            raise AttributeError(f"`{name}` is not {what} (looking up '{target}' in {type(owner).__name__})")
        return getattr(owner, table)[name]

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at a dotted path ("layer1.0.conv1.weight"), as Module.get_parameter."""
        return self._get_entry(target, "_parameters", "an nn.Parameter")

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at a dotted path ("bn1.running_mean"), as Module.get_buffer."""
        return self._get_entry(target, "_buffers", "a buffer")

    # ---- traversal ----
    def named_modules(self, memo: Optional[set] = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[Tuple[str, "Module"]]:
        """(dotted path, module) of self and every submodule, depth first (Module.named_modules);
        a module reachable by two paths comes once, under the first, unless remove_duplicate is
        False."""
        if remove_duplicate:
            memo = set() if memo is None else memo
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(memo, f"{prefix}.{name}" if prefix else name, remove_duplicate)

    def modules(self, remove_duplicate: bool = True) -> Iterator["Module"]:
        for _, m in self.named_modules(remove_duplicate=remove_duplicate):
            yield m

    def named_children(self) -> Iterator[Tuple[str, "Module"]]:
        """(name, module) of the direct submodules, each module once (Module.named_children)."""
        seen = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def children(self) -> Iterator["Module"]:
        return (m for _, m in self.named_children())

    def apply(self, fn) -> "Module":
        """Calls fn(m) on every submodule (children first) and on self, as PyTorch does, e.g. to
        initialize weights: model.apply(init_weights)."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def _named_entries(self, prefix: str, table: str, recurse: bool, remove_duplicate: bool):
        """(dotted path, entry) of the `table` (_parameters or _buffers) of self (and, with
        recurse, of every submodule); None entries are skipped, and with remove_duplicate a
        tensor reachable by two names (tied weights, a shared layer) comes once, under the first,
        as in PyTorch."""
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        seen = set()
        for mname, m in modules:
            for name, entry in getattr(m, table).items():
                if entry is None or (remove_duplicate and id(entry) in seen):
                    continue
                seen.add(id(entry))
                yield (f"{mname}.{name}" if mname else name), entry

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[Tuple[str, Parameter]]:
        return self._named_entries(prefix, "_parameters", recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        return (p for _, p in self.named_parameters(recurse=recurse))

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[Tuple[str, Tensor]]:
        return self._named_entries(prefix, "_buffers", recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        return (b for _, b in self.named_buffers(recurse=recurse))

    # ---- modes ----
    def train(self, mode: bool = True) -> "Module":
        if not isinstance(mode, bool):
            raise ValueError(f"training mode is expected to be boolean, got {mode!r}\n  fix: "
                             f"{type(self).__name__}.train(True) or .train(False) (or .eval())")
        for m in self.modules():
            object.__setattr__(m, "training", bool(mode))
        return self

    def eval(self) -> "Module":
        return self.train(False)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clears the parameters' gradients (Module.zero_grad): None, or zeros written in place
        with set_to_none=False."""
        if set_to_none:  # p.grad = None for every parameter, in one call into the runtime
            _C.clear_grads([p._h for p in self.parameters()])
            return
        for p in self.parameters():
            grad = p.grad
            if grad is not None:  # PyTorch's: a gradient with a history is detached first
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                grad.zero_()

    # ---- calling ----
    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"Module [{type(self).__name__}] is missing the required \"forward\" function\n"
                                  f"  fix: define forward(self, ...) in {type(self).__name__}")

    def compile(self, *args, **kwargs) -> None:
        """Module.compile (torch.compile in place): accepted, and the module keeps running as it
        is: its calls already reuse compiled plans from the plan cache (docs/porting.md, on
        torch.compile); glassgrad.compile(model) records and replays whole calls."""

    def __dir__(self):
        d = self.__dict__
        return sorted(set(super().__dir__()) | set(d.get("_parameters", ())) | set(d.get("_buffers", ()))
                      | set(d.get("_modules", ())))

    def _dir_without_positions(self):
        """dir() of a list-like container (Sequential, ModuleList, ParameterList): PyTorch leaves
        out the positional entries "0", "1", ..., which are reached by indexing."""
        return [name for name in Module.__dir__(self) if not name.isdigit()]

    def __call__(self, *args, **kwargs):
        # Layers were named by their paths when assigned (_name_tree); a model called at the top
        # records its own ops under its class name. Every layer call of every step runs this, so
        # the scope push and pop (_trace.scope's, with layer_name) are written out here. The
        # extension's call slot (_call_slot) runs the plain path below itself when no recording,
        # renaming or hook is due: a change here is a change there.
        local = _trace_local
        if _RECORDINGS[0] and local.recording is not None:  # glassgrad.compile records a step
            note_module_call(self)
        d = self.__dict__
        try:  # kept on the module: a table keyed by (class, path) cost a tuple and its hash a call
            names = d["_call_names"]
            if names[0] is not type(self) or names[1] is not d["_scope"]:
                names = _call_names(self)
        except KeyError:
            names = _call_names(self)
        scopes, _, layers = local.stacks
        scopes.append(names[2])
        layers.append(names[3])
        try:
            # The hook tables are made by the first registration: a module with none of its own
            # and no global table has no hook to run; otherwise forward_hooks.has_hooks decides
            # (a table whose hooks were all removed is empty).
            if ((_PRE in d or _POST in d or _BW_FULL in d or _BW_PRE in d or _HOOK_GLOBALS)
                    and _hooks.has_hooks(self)):
                return _hooks.call_with_hooks(self, self.forward, args, kwargs)
            if kwargs:
                return self.forward(*args, **kwargs)
            return self.forward(*args)
        finally:
            scopes.pop()
            layers.pop()

    def register_forward_pre_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False):
        """hook(module, args) runs before forward and may return new args (with_kwargs=True:
        hook(module, args, kwargs) -> None or (args, kwargs)); returns a RemovableHandle."""
        return _hooks.register(self, _hooks.PRE, hook, prepend, with_kwargs)

    def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False):
        """hook(module, args, output) runs after forward and may return a new output
        (with_kwargs=True: hook(module, args, kwargs, output)); returns a RemovableHandle."""
        return _hooks.register(self, _hooks.POST, hook, prepend, with_kwargs, always_call)

    def register_full_backward_hook(self, hook, prepend: bool = False):
        """hook(module, grad_input, grad_output) runs once the gradients of the module's positional
        tensor inputs are known and may return a new grad_input; returns a RemovableHandle
        (glassgrad/nn/backward_hooks.py)."""
        from . import backward_hooks as _bw
        from . import legacy_backward_hooks as _legacy
        _legacy.mark(self, full=True)
        return _bw.register(self, _bw.FULL, hook, prepend)

    def register_backward_hook(self, hook):
        """The deprecated backward hook (PyTorch's too): hook(module, grad_input, grad_output) on
        the node that made the module's output, grad_input that node's input gradients, and may
        return new ones (glassgrad/nn/legacy_backward_hooks.py). A module takes either these or
        full backward hooks, not both."""
        from . import legacy_backward_hooks as _legacy
        _legacy.mark(self, full=False)
        return _hooks.register(self, _legacy.FULL, hook, False)

    def register_full_backward_pre_hook(self, hook, prepend: bool = False):
        """hook(module, grad_output) runs once the gradients of the module's outputs are known and
        may return a new grad_output; returns a RemovableHandle."""
        from . import backward_hooks as _bw
        return _bw.register(self, _bw.PRE, hook, prepend)

    # ---- state ----
    def _named_state(self, prefix: str = "") -> Iterator[Tuple[str, Union[Tensor, "_ExtraState"]]]:
        """What state_dict() holds, in PyTorch's order: module by module (depth first), each
        module's parameters, then its persistent buffers."""
        for mname, m in self.named_modules(prefix=prefix, remove_duplicate=False):
            skip = m.__dict__.get("_non_persistent", ())
            for table in (m._parameters, m._buffers):
                for name, t in table.items():
                    if name not in skip and t is not None:
                        yield (f"{mname}.{name}" if mname else name), t
            if type(m).get_extra_state is not Module.get_extra_state:  # after the buffers, as PyTorch's
                yield (f"{mname}._extra_state" if mname else "_extra_state"), _ExtraState(m)

    def get_extra_state(self):
        """Override it (with set_extra_state) to keep any picklable object in state_dict() under
        "<path>._extra_state", as PyTorch's Module.get_extra_state."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called.\n  fix: "
                           "override get_extra_state() and set_extra_state() together in your Module subclass")

    def set_extra_state(self, state) -> None:
        """Receives what get_extra_state() returned, from load_state_dict()."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called.\n  fix: "
                           "override set_extra_state() when you override get_extra_state()")

    def state_dict(self, *args, destination=None, prefix: str = "",
                   keep_vars: bool = False) -> "OrderedDict[str, Tensor]":
        """Parameters and persistent buffers under PyTorch's names and in its order
        ("conv1.weight", "conv1.bias", "bn1.weight", "bn1.bias", "bn1.running_mean",
        "bn1.running_var", "bn1.num_batches_tracked", ...), as PyTorch's: each entry a detached
        tensor sharing memory with its parameter or buffer (sd["w"].copy_(x) writes the model, and
        the entries change as training updates the model: copy.deepcopy(model.state_dict()) keeps
        a snapshot), in its dtype and on its device. keep_vars=True gives the Parameters and
        buffers themselves; `destination` (a dict) is filled and returned. A new dict carries
        PyTorch's `_metadata`: {module path: {"version": its class's _version}}, which
        load_state_dict reads (BatchNorm's version 2 requires num_batches_tracked).
        (destination, prefix, keep_vars) given by position still work, with PyTorch's
        FutureWarning."""
        from . import state_dict_hooks as _sd
        if args:
            destination, prefix, keep_vars = _positional_state_dict_args(args, destination, prefix, keep_vars)
        if destination is None:
            destination = OrderedDict()
            setattr(destination, "_metadata", OrderedDict())  # PyTorch's attribute on its OrderedDict
        local_metadata = {"version": type(self)._version}
        meta = getattr(destination, "_metadata", None)
        if meta is not None:
            meta[prefix[:-1]] = local_metadata
        _sd.before_save(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, child in self._modules.items():  # each child's own state_dict, as PyTorch's walk
            if child is not None:
                child.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return _sd.after_save(self, destination, prefix, local_metadata)

    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        """Puts this module's own parameters, persistent buffers and extra state in destination
        (its children are not this method's); override it to save another form."""
        skip = self.__dict__.get("_non_persistent", ())
        for table in (self._parameters, self._buffers):
            for name, t in table.items():
                if name not in skip and t is not None:
                    # A lazy layer's tensors before its first forward are listed as themselves, as in
                    # PyTorch (docs/lazy.md): they have no values yet.
                    destination[prefix + name] = t if keep_vars or getattr(t, "cls_to_become", None) else t.detach()
        if type(self).get_extra_state is not Module.get_extra_state:  # after the buffers, as PyTorch's
            destination[prefix + "_extra_state"] = self.get_extra_state()

    def load_state_dict(self, state_dict: Dict[str, Union[Tensor, np.ndarray]], strict: bool = True, assign: bool = False):
        """Copies the entries (tensors, NumPy arrays, or anything np.asarray reads: CPU torch
        tensors too) into the parameters and buffers of the same names; shapes must match, dtypes are converted to
        the model's. Returns (missing_keys, unexpected_keys), as PyTorch does; strict=True raises
        when either is not empty. assign=True puts the entries themselves in place instead of copying
        into the existing tensors (a buffer is its entry, a Parameter wraps its entry's memory:
        _assign_entries), in the entries' dtypes. Load hooks
        (register_load_state_dict_pre_hook / _post_hook) run as PyTorch runs them
        (glassgrad/nn/state_dict_hooks.py)."""
        # the argument is named as PyTorch names it: scripts pass load_state_dict(state_dict=sd)
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.\n  fix: pass what "
                            f"model.state_dict() returned (or glassgrad.load(path) of it)")
        return _sdl.load(self, state_dict, strict, assign)

    def _load_from_state_dict(self, state_dict, prefix: str, local_metadata, strict: bool, missing_keys: list,
                              unexpected_keys: list, error_msgs: list) -> None:
        """Loads this module's own entries (`prefix + name`) from state_dict, after its load
        pre-hooks, adding to PyTorch's missing_keys / unexpected_keys / error_msgs; override it to
        read another checkpoint form (call super() for the rest). nn/state_dict_load.py."""
        _sdl.load_own(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)

    def register_state_dict_pre_hook(self, hook):
        """hook(module, prefix, keep_vars) before state_dict() gathers the entries."""
        from . import state_dict_hooks as _sd
        return _sd.register(self, _sd.SAVE_PRE, hook)

    def register_state_dict_post_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata) after; it may edit the dict in place."""
        from . import state_dict_hooks as _sd
        return _sd.register(self, _sd.SAVE_POST, hook)

    def _register_state_dict_hook(self, hook):
        """PyTorch's private form of register_state_dict_post_hook: the hook may return a dict,
        which state_dict() goes on with instead."""
        from . import state_dict_hooks as _sd
        return _sd.register(self, _sd.SAVE_POST, hook, public=False)

    def _register_load_state_dict_pre_hook(self, hook, with_module: bool = False):
        """PyTorch's private form of register_load_state_dict_pre_hook: hook(state_dict, prefix,
        local_metadata, strict, missing_keys, unexpected_keys, error_msgs), with the module first
        when with_module=True."""
        from . import state_dict_hooks as _sd
        return _sd.register(self, _sd.LOAD_PRE, hook if with_module else _sd.without_module(hook))

    def register_load_state_dict_pre_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs) before load_state_dict matches the names; it may edit the (copied) dict."""
        from . import state_dict_hooks as _sd
        return _sd.register(self, _sd.LOAD_PRE, hook)

    def register_load_state_dict_post_hook(self, hook):
        """hook(module, incompatible_keys) after loading; it may clear entries of its lists."""
        from . import state_dict_hooks as _sd
        return _sd.register(self, _sd.LOAD_POST, hook)

    def to(self, *args, **kwargs) -> "Module":
        """Moves every parameter and buffer to a device and/or converts the floating ones to a
        floating dtype (in place; returns self): to(device), to(dtype), to(device, dtype),
        to(device=, dtype=) as PyTorch's Module.to. memory_format= is checked and accepted; parameters
        and buffers stay row-major here (the planner picks kernels' layouts: docs/porting.md,
        "Memory formats"), with the same values."""
        device, dtype = kwargs.pop("device", None), kwargs.pop("dtype", None)
        kwargs.pop("non_blocking", None)
        kwargs.pop("copy", None)
        from .._memory_formats import checked
        checked(kwargs.pop("memory_format", None), "to")
        if kwargs:
            raise TypeError(f"to() received an invalid combination of arguments: unexpected keyword(s) "
                            f"{sorted(kwargs)}\n  fix: model.to(device=, dtype=, non_blocking=, memory_format=)")
        device, dtype = _to_arguments(args, device, dtype)
        if dtype is not None:
            if not _dtypes.to_dtype(dtype).is_floating_point:
                raise InvalidArgumentTypeError(f"nn.Module.to only accepts floating point dtypes, but got desired "
                                                  f"dtype={dtype}\n  fix: model.to(glassgrad.float32) or .half()")
        if _applied.overrides_apply(self):  # a model's own _apply converts its own tensors along
            target = {} if device is None else {"device": device}
            return self._apply(lambda t: t.to(**target, **({"dtype": dtype} if dtype is not None
                                                            and t.dtype.is_floating_point else {})))
        if dtype is not None:
            self.astype(dtype)
        if device is None:
            return self
        d = _device.normalize(device)
        _applied.install(self, [(t, _leaf_for(t, t._raw().to(d)))
                                for t in list(self.parameters()) + list(self.buffers()) if t.device != d])
        return self

    def astype(self, dtype) -> "Module":
        """Converts every floating parameter and buffer to `dtype` (in place; returns self), and
        the parameters' gradients with them, as PyTorch's _apply does. model.double() is what
        float64 gradient checks use."""
        name = _dtypes.plain(_dtypes.to_dtype(dtype))
        if _applied.overrides_apply(self):  # a model's own _apply converts its own tensors along
            return self._apply(lambda t: t.to(name) if t.dtype.is_floating_point else t)
        moved = [t for t in list(self.parameters()) + list(self.buffers())
                 if t.dtype != name and t.dtype.is_floating_point]
        grads = [(t, t.grad.to(name)) for t in moved if isinstance(t, Parameter) and t.grad is not None]
        _applied.install(self, [(t, _leaf_for(t, raw_from_numpy(t._values(), t.device, t.name, name)))
                                for t in moved])
        for t, grad in grads:
            t.grad = grad
        return self

    def type(self, dst_type) -> "Module":
        """Module.type: every parameter, buffer and gradient as Tensor.type(dst_type) makes it
        (a dtype, torch.FloatTensor, torch.cuda.DoubleTensor or such a name; _module_type.py)."""
        if _applied.overrides_apply(self):  # a model's own _apply converts its own tensors along
            return self._apply(lambda t: t.type(dst_type))
        from ._module_type import type_all
        type_all(self, dst_type)
        return self

    def _apply(self, fn, recurse: bool = True) -> "Module":
        """PyTorch's Module._apply: fn applied to every parameter, buffer and gradient (children
        first), each keeping its object; override it to convert tensors of your own along
        (nn/_module_apply.py)."""
        return _applied.apply_fn(self, fn, recurse)

    def double(self) -> "Module":
        return self.astype("float64")

    def float(self) -> "Module":
        return self.astype("float32")

    def half(self) -> "Module":
        """Floating parameters and buffers as float16 (Module.half): a storage type, computed in
        float32 (docs/dtypes.md)."""
        return self.astype("float16")

    def bfloat16(self) -> "Module":
        """Floating parameters and buffers as bfloat16 (Module.bfloat16)."""
        return self.astype("bfloat16")

    def cuda(self, device=None) -> "Module":
        """Every parameter and buffer on a GPU: device an index, 'cuda:<i>' or None for GPU 0
        (Module.cuda). Another device type is refused, as PyTorch's Tensor.cuda refuses it, when
        there is a tensor to move."""
        if next(self.parameters(), None) is None and next(self.buffers(), None) is None:
            return self
        return self.to(_device.cuda_target(device))

    def to_empty(self, *, device=None, recurse: bool = True) -> "Module":
        """Module.to_empty: parameters and buffers on `device` with unspecified values (here: their
        values, moved)."""
        return self.to(device) if device is not None else self

    def xpu(self, device=None) -> "Module":
        """Module.xpu: every parameter and buffer on an Intel GPU, which glassgrad has no backend
        for: the DeviceError names the devices it runs on."""
        return self.to(_accelerator_device("xpu", device))

    def ipu(self, device=None) -> "Module":
        """Module.ipu: as xpu, for Graphcore IPUs (no backend here: DeviceError)."""
        return self.to(_accelerator_device("ipu", device))

    def mtia(self, device=None) -> "Module":
        """Module.mtia: as xpu, for Meta's MTIA (no backend here: DeviceError)."""
        return self.to(_accelerator_device("mtia", device))

    def cpu(self) -> "Module":
        return self.to("cpu")

    def share_memory(self) -> "Module":
        """Moves every CPU parameter and buffer into shared memory (Module.share_memory), so
        processes started afterwards train this very model (Tensor.share_memory_)."""
        for t in list(self.parameters()) + list(self.buffers()):
            t.share_memory_()
        return self

    def extra_repr(self) -> str:
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        # PyTorch's layout: a one-line extra_repr without children stays on the first line;
        # otherwise the extra_repr lines, then one "(name): child" per child, indented by two.
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): " + repr(m).replace("\n", "\n  ") for name, m in self._modules.items()]
        if len(extra_lines) == 1 and not child_lines:
            return f"{self._get_name()}({extra_lines[0]})"
        lines = extra_lines + child_lines
        return f"{self._get_name()}(" + ("\n  " + "\n  ".join(lines) + "\n" if lines else "") + ")"


def _accelerator_device(kind: str, device) -> str:
    """'kind:<i>' for Module.xpu(device) and its kin: device an index, a device string or None (0)."""
    if device is None:
        return f"{kind}:0"
    return f"{kind}:{device}" if isinstance(device, int) else str(device)


def _attribute_reads(cls) -> None:
    """Every Module class finds its layers, parameters and buffers without first building and
    dropping an AttributeError (python-bindings/src/bind_attributes.cpp); the semantics of
    __getattr__, __getattribute__, properties and __dict__ are CPython's. An extension built
    before this existed leaves the classes as they are."""
    install = getattr(_C, "module_attribute_reads", None)
    if install is not None:
        install(cls, Module.__dict__["__getattr__"])


_attribute_reads(Module)


def _call_slot(cls) -> None:
    """A call of a Module class whose __call__ is Module.__call__ runs forward without that
    method's frame when its plain path is due (python-bindings/src/bind_module_call.cpp): no
    recording open, the call names current, no hook table of its own or global one; every other
    call runs Module.__call__. An extension built before this existed leaves the classes as
    they are."""
    install = getattr(_C, "module_call_slot", None)
    if install is not None:
        install(cls, Module.__dict__["__call__"], _RECORDINGS, _HOOK_GLOBALS, _trace_local,
                (_PRE, _POST, _BW_FULL, _BW_PRE))


_call_slot(Module)
