"""Lazy layers (PyTorch's nn.LazyLinear, LazyConv*d, LazyConvTranspose*d, LazyBatchNorm*d,
LazyInstanceNorm*d): the input size (in_features / in_channels / num_features) is read from the
first input. Until then the shape-dependent parameters and buffers are UninitializedParameter /
UninitializedBuffer objects; the first forward (or load_state_dict) builds the plain layer's
values with its own initialization, fills those same objects (a reference kept by the caller stays
valid) and turns the module into the plain class (cls_to_become: LazyLinear -> Linear).

Invariant: a materialized module is indistinguishable from the plain class built with the inferred
size, except that its parameter objects are the ones created by the lazy constructor; device and
dtype are those of the uninitialized tensors, so model.to() / model.double() before the first
forward are kept (docs/lazy.md)."""
from __future__ import annotations

import contextlib
import functools
import threading
import weakref
from typing import Callable, Optional

import numpy as np

from .. import _C, _device, _dtypes
from .._tensor import _UNINITIALIZED, Tensor, _forget_uninitialized, raw_from_numpy
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .conv import Conv1d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .layers import Conv2d, Linear
from .module import Module, Parameter, _leaf_for, _new_data, _state_leaf, rebind_all


def _no_shape(t):
    # PyTorch's RuntimeError; a ShapeError is a ValueError too, which every PyTorch function given
    # the tensor raises (its __torch_function__), so a glassgrad function that reads the shape first
    # raises what PyTorch's does
    raise _C.ShapeError(f"Can't access the shape of an uninitialized parameter or buffer ({t.name or 'unnamed'}): "
                       f"a lazy layer learns its sizes at its first forward\n"
                       f"  fix: call the model once on a batch of the real shape before reading shapes")


# The Tensor methods PyTorch lets an uninitialized tensor call (its _allowed_methods): conversions,
# size() and the type queries. Every other public method and operator raises PyTorch's ValueError
# (UninitializedTensorMixin.__getattribute__ and the operators below); properties (dtype, device,
# requires_grad, grad, data, T) stay readable, as PyTorch's.
_ALLOWED = frozenset({"size", "copy_", "is_complex", "is_floating_point", "half", "float", "double", "char",
                      "short", "int", "long", "cuda", "cpu", "to", "get_device"})
_OPERATORS = ("__add__", "__radd__", "__iadd__", "__sub__", "__rsub__", "__isub__", "__mul__", "__rmul__",
              "__imul__", "__truediv__", "__rtruediv__", "__itruediv__", "__floordiv__", "__rfloordiv__", "__mod__",
              "__rmod__", "__pow__", "__rpow__", "__matmul__", "__rmatmul__", "__neg__", "__pos__", "__abs__",
              "__invert__", "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__lshift__",
              "__rshift__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__getitem__",
              "__setitem__", "__len__", "__iter__", "__reversed__", "__contains__", "__bool__", "__float__",
              "__int__", "__index__", "__complex__", "__format__", "__array__", "__dlpack__")


def _used(t, what: str, where: str = "") -> ValueError:
    return ValueError(
        f"Attempted to use an uninitialized parameter in {where or 'Tensor.' + what}. This error happens when you "
        f"are using a "
        f"`LazyModule` or explicitly manipulating `nn.parameter.{type(t).__name__}` objects: a lazy layer's "
        f"parameters and buffers have no size and no values until its first forward\n"
        f"  fix: call the model once on a batch of the real shape (model(x)) before using its parameters")


def refuse_in_op(t, op: str) -> None:
    """PyTorch's ValueError for an uninitialized t given to an op (torch.add(w, 1), F.relu(w)),
    unless one of its allowed methods (a conversion) runs."""
    if not _permitted.depth:
        raise _used(t, op, f"the op {op}")


def _waits(t) -> None:
    """Lists t among the uninitialized tensors every op refuses (_tensor._UNINITIALIZED)."""
    _UNINITIALIZED[id(t)] = weakref.ref(t, _forget_uninitialized(id(t)))


def stays_uninitialized(converted, kind: type) -> None:
    """A conversion of an uninitialized tensor (model.double() before the first forward) made the
    same kind, refused by ops as it."""
    converted.__class__ = kind
    _waits(converted)


def _methods() -> frozenset:
    """Tensor's public methods that an uninitialized tensor refuses (made once, at first use); the
    mixin's own (materialize, share_memory_, size) are its answers."""
    global _REFUSED
    if _REFUSED is None:
        _REFUSED = frozenset(n for n, v in vars(Tensor).items() if not n.startswith("_") and callable(v)
                             and not isinstance(v, (type, property))) - _ALLOWED - set(vars(UninitializedTensorMixin))
    return _REFUSED


_REFUSED: Optional[frozenset] = None


class _Permitted(threading.local):
    depth = 0  # > 0 while an allowed method or property of an uninitialized tensor runs


_permitted = _Permitted()


@contextlib.contextmanager
def _permitting():
    _permitted.depth += 1
    try:
        yield
    finally:
        _permitted.depth -= 1


def _allowed_call(method, kind: type):
    @functools.wraps(method)
    def call(*args, **kwargs):
        with _permitting():
            out = method(*args, **kwargs)
        # PyTorch's conversions of an UninitializedBuffer (a Tensor subclass) keep its class, so
        # model.double() before the first forward leaves the buffers to be initialized; a
        # parameter's return a plain tensor (Parameter's subclass conversion is off)
        if kind is UninitializedBuffer and type(out) is Tensor:
            stays_uninitialized(out, UninitializedBuffer)
        return out
    return call


class UninitializedTensorMixin:
    """What PyTorch's nn.parameter.UninitializedTensorMixin gives both uninitialized kinds: no
    shape yet, no shared memory yet, and materialize(shape), which fills the tensor with zeros of
    `shape` (on `device`, default its own) and makes it its plain class (cls_to_become). Its
    methods but the conversions and its operators raise PyTorch's ValueError ('Attempted to use
    an uninitialized parameter in ...'); once materialized its class is the plain one, which
    refuses nothing."""

    __slots__ = ()

    def __getattribute__(self, name: str):
        if name[0] == "_" or _permitted.depth:  # glassgrad's own attributes; inside an allowed method
            return super().__getattribute__(name)
        if name in _methods():
            raise _used(self, name)
        with _permitting():  # a property (T, data) or an allowed method, which may use the others
            value = super().__getattribute__(name)
        return _allowed_call(value, type(self)) if name in _ALLOWED else value

    def __hash__(self) -> int:  # defining __eq__ (below) would otherwise leave it unhashable
        return Tensor.__hash__(self)  # type: ignore[call-arg]  # mypy reads object's, Tensor's takes self

    def size(self, dim: Optional[int] = None):
        """The placeholder's size, torch.Size([0]) as PyTorch's (its shape raises)."""
        shape = Tensor.__dict__["shape"].fget(self)
        return shape if dim is None else shape[dim]

    def materialize(self, shape, device=None, dtype=None) -> None:
        _materialize(self, np.zeros(tuple(shape), np.float64), device)

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize "
                           "the parameters before calling `module.share_memory()`.")

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    shape = property(_no_shape, doc="No shape yet: a RuntimeError, as PyTorch's.")


def _refusing(name: str):
    def refuse(self, *args, **kwargs):
        if _permitted.depth:
            return getattr(Tensor, name)(self, *args, **kwargs)
        raise _used(self, name)
    refuse.__name__ = name
    return refuse


for _name in _OPERATORS:
    if hasattr(Tensor, _name):
        setattr(UninitializedTensorMixin, _name, _refusing(_name))


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter whose shape is not known yet (PyTorch's nn.UninitializedParameter): empty until
    materialize(shape) gives it values; it then becomes a plain Parameter."""

    __slots__ = ()
    cls_to_become = Parameter

    def __init__(self, requires_grad: bool = True, device=None, dtype=None):
        super().__init__(np.zeros((0,), np.float32), requires_grad, device=device)
        _empty_of(self, dtype)
        _waits(self)

    def __deepcopy__(self, memo) -> "UninitializedParameter":
        if id(self) not in memo:
            memo[id(self)] = UninitializedParameter(self.requires_grad, self.device, self.dtype)
        return memo[id(self)]


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (PyTorch's nn.UninitializedBuffer)."""

    __slots__ = ()
    cls_to_become = Tensor

    def __init__(self, requires_grad: bool = False, device=None, dtype=None, persistent: bool = True):
        # persistent: PyTorch reads it when the buffer is set as a module attribute (nn.Buffer);
        # a lazy layer's buffers are persistent.
        self._h = _state_leaf(np.zeros((0,), np.float32), _device.normalize(device), "")._h
        _empty_of(self, dtype)
        _waits(self)

    def __deepcopy__(self, memo) -> "UninitializedBuffer":
        if id(self) not in memo:
            memo[id(self)] = UninitializedBuffer(device=self.device, dtype=self.dtype)
        return memo[id(self)]


def _empty_of(t, dtype) -> None:
    if dtype is not None and _dtypes.plain(_dtypes.to_dtype(dtype)) != _dtypes.plain(t.dtype):
        rebind_all([(t, _leaf_for(t, raw_from_numpy(np.zeros((0,), np.float32), t.device, t.name,
                                                    _dtypes.plain(_dtypes.to_dtype(dtype)))))])


def _relabelled(error: Exception, plain: str, lazy: str) -> Exception:
    """error, its call label the lazy layer's ('LazyConv2d(4, 3)') instead of the plain template's
    ('Conv2d(1, 4, 3)': a lazy constructor builds the plain layer with a stand-in input size to
    check its other arguments)."""
    text = str(error)
    for head, tail in ((plain + ", ", lazy), (plain + ")", lazy + ")")):
        if head in text:
            text = text.replace(head, tail, 1)
            break
    try:
        return type(error)(text)
    except TypeError:  # an error type built otherwise: as it was
        return error


def is_lazy(t) -> bool:
    """nn.parameter.is_lazy: whether t is an UninitializedParameter or UninitializedBuffer."""
    return isinstance(t, UninitializedTensorMixin)


def _materialize(t, values: np.ndarray, device: Optional[str] = None) -> None:
    rebind_all([(t, _new_data(t, values, device))])
    _becomes_plain(t)


def _becomes_plain(t) -> None:
    """t, filled with values, its plain class (cls_to_become), which every op takes."""
    t.__class__ = type(t).cls_to_become
    _UNINITIALIZED.pop(id(t), None)


class LazyModuleMixin(Module):
    """What every lazy layer shares (PyTorch's nn.modules.lazy.LazyModuleMixin)."""

    cls_to_become: type[Module] = Module
    _in_name = "in_features"
    _unbatched_dim = -1  # the rank of an unbatched input, whose size is dim 0 (-1: none)

    def _lazy_setup(self, args, kwargs) -> None:
        object.__setattr__(self, "_lazy_args", (args, kwargs))
        size = self._template_in(kwargs)
        try:
            template = self._plain(size)
        except _C.GlassgradError as e:  # the arguments' refusal, named after the lazy layer the script built
            raise _relabelled(e, f"{self.cls_to_become.__name__}({size}", type(self).__name__ + "(") from None
        # Parameters and floating buffers depend on the input size; integer buffers
        # (num_batches_tracked) do not and are kept as the plain layer makes them.
        for name, p in template._parameters.items():
            self._parameters[name] = None if p is None else UninitializedParameter(p.requires_grad, p.device, p.dtype)
        for name, b in template._buffers.items():
            self._buffers[name] = (None if b is None else UninitializedBuffer(device=b.device, dtype=b.dtype)
                                   if b.dtype.is_floating_point else b)
        for key, value in template.__dict__.items():
            if key not in ("_parameters", "_buffers", "_modules", "_scope", "training"):
                object.__setattr__(self, key, value)
        object.__setattr__(self, self._in_name, 0)
        self._name_tree(self._scope)

    def _template_in(self, kwargs) -> int:
        return int(kwargs.get("groups", 1))

    def _plain(self, size: int):
        args, kwargs = self._lazy_args
        build: Callable[..., Module] = self.cls_to_become  # each plain class takes its size first
        return build(size, *args, **kwargs)

    def reset_parameters(self) -> None:
        """The plain class's reset_parameters once the sizes are known; before, nothing (PyTorch's
        lazy layers skip it until their first forward initializes them)."""
        if not self.has_uninitialized_params():
            super().reset_parameters()  # type: ignore[misc]  # the plain class, next in the MRO, has it

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter or buffer of this layer is still uninitialized."""
        return any(is_lazy(t) for t in list(self._parameters.values()) + list(self._buffers.values()))

    def initialize_parameters(self, *args, **kwargs) -> None:
        """PyTorch's initialize_parameters(input): the parameters for the forward's input (each
        layer's signature is PyTorch's: (input) for LazyLinear and the norms, (input, *args,
        **kwargs) for the convolutions); an int input is the input size itself."""
        input = args[0] if args else kwargs["input"]
        self._initialize(input if isinstance(input, int) else self._infer_size(input))

    def _initialize(self, size: int) -> None:
        """Builds the plain layer for input size `size` (its own initialization), gives its values
        to the uninitialized tensors and turns this module into the plain class; nothing once
        initialized (as PyTorch's)."""
        if not self.has_uninitialized_params():
            return
        if size < 1:
            raise _C.ShapeError(f"{type(self).__name__}: cannot infer {self._in_name} from an input whose "
                                f"size along dim 1 is {size}\n  fix: call it with a non-empty input")
        plain = self._plain(size)
        pairs, become = [], []
        for table in ("_parameters", "_buffers"):
            mine = self.__dict__[table]
            for name, t in plain.__dict__[table].items():
                own = mine.get(name)
                if is_lazy(own):
                    pairs.append((own, _new_data(own, t._values(), own.device)))
                    become.append(own)
                else:
                    mine[name] = t if own is None else own
        rebind_all(pairs)
        for t in become:
            _becomes_plain(t)
        for key, value in plain.__dict__.items():
            if key not in ("_parameters", "_buffers", "_modules", "_scope", "training", "_lazy_args"):
                object.__setattr__(self, key, value)
        self.__dict__.pop("_lazy_args", None)
        object.__setattr__(self, "__class__", self.cls_to_become)
        self._name_tree(self._scope)

    def _infer_size(self, x: Tensor) -> int:
        if not isinstance(x, Tensor):
            raise TypeError(f"{type(self).__name__}: expected a Tensor input, got {type(x).__name__}")
        if x.dim() < 1:
            raise _C.ShapeError(f"{type(self).__name__}: a 0-d input has no feature dim\n  fix: pass [N, C, ...]")
        return int(x.shape[-1] if self._in_name == "in_features" else
                   (x.shape[0] if x.dim() == self._unbatched_dim else x.shape[1]))

    def forward(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self._initialize(self._infer_size(input))
        return self.forward(input, *args, **kwargs)

    def _size_from_state(self, shape, name: str = "weight") -> int:
        return int(shape[0])

    def _lazy_load(self, prefix: str, state) -> None:
        """load_state_dict into an uninitialized layer: the sizes come from the entries."""
        if not self.has_uninitialized_params():
            return
        for name, t in list(self._parameters.items()) + list(self._buffers.items()):
            if is_lazy(t) and prefix + name in state and not is_lazy(state[prefix + name]):
                self._initialize(self._size_from_state(np.shape(state[prefix + name]), name))
                return

    def extra_repr(self) -> str:
        return self.cls_to_become.extra_repr(self)


class LazyLinear(LazyModuleMixin, Linear):
    """nn.LazyLinear(out_features, bias=True, device=None, dtype=None): a Linear whose
    in_features is the last dim of the first input."""

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None):
        Module.__init__(self)
        self._lazy_setup((out_features, bias, device, dtype), {})

    def _template_in(self, kwargs) -> int:
        return 1

    def _size_from_state(self, shape, name="weight") -> int:
        return int(shape[1]) if name == "weight" else 1

    def initialize_parameters(self, input) -> None:  # PyTorch's signature for LazyLinear
        LazyModuleMixin.initialize_parameters(self, input)


def _conv_init(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
               padding_mode="zeros", device=None, dtype=None):
    Module.__init__(self)
    self._lazy_setup((out_channels, kernel_size, stride, padding), dict(
        dilation=dilation, groups=groups, bias=bias, padding_mode=padding_mode, device=device, dtype=dtype))


def _conv_transpose_init(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                         bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
    Module.__init__(self)
    self._lazy_setup((out_channels, kernel_size, stride, padding), dict(
        output_padding=output_padding, groups=groups, bias=bias, dilation=dilation, padding_mode=padding_mode,
        device=device, dtype=dtype))


def _lazy_conv(plain: type, dims: int, transpose: bool) -> type:
    def _size_from_state(self, shape, name="weight") -> int:
        groups = int(self._lazy_args[1].get("groups", 1))
        if name != "weight":
            return groups
        return int(shape[0]) if transpose else int(shape[1]) * groups

    def initialize_parameters(self, input, *args, **kwargs) -> None:  # PyTorch's signature for the convolutions
        LazyModuleMixin.initialize_parameters(self, input)

    prefix = "LazyConvTranspose" if transpose else "LazyConv"
    return type(f"{prefix}{dims}d", (LazyModuleMixin, plain), {
        "__init__": _conv_transpose_init if transpose else _conv_init, "_size_from_state": _size_from_state,
        "initialize_parameters": initialize_parameters,
        "cls_to_become": plain,
        "_in_name": "in_channels", "_unbatched_dim": dims + 1,
        "__doc__": f"nn.{prefix}{dims}d: a {plain.__name__} whose in_channels is dim 1 of the first input "
                   f"(dim 0 of an unbatched one).", "__module__": __name__})


def _lazy_norm(plain: type, dims: int, batch: bool) -> type:
    # PyTorch's lazy norms all default to affine=True, track_running_stats=True (InstanceNorm's
    # plain class defaults to False for both).
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *,
                 bias=True):
        Module.__init__(self)
        self._lazy_setup((eps, momentum, affine, track_running_stats, device, dtype), {"bias": bias})

    def _template_in(self, kwargs) -> int:
        return 1

    def initialize_parameters(self, input) -> None:  # PyTorch's signature for the norms
        LazyModuleMixin.initialize_parameters(self, input)

    name = ("LazyBatchNorm" if batch else "LazyInstanceNorm") + f"{dims}d"
    return type(name, (LazyModuleMixin, plain), {
        "__init__": __init__, "_template_in": _template_in, "cls_to_become": plain,
        "initialize_parameters": initialize_parameters,
        "_in_name": "num_features", "_unbatched_dim": -1 if batch else dims + 1,
        "__doc__": f"nn.{name}: a {plain.__name__} whose num_features is dim 1 of the first input.",
        "__module__": __name__})


LazyConv1d = _lazy_conv(Conv1d, 1, False)
LazyConv2d = _lazy_conv(Conv2d, 2, False)
LazyConv3d = _lazy_conv(Conv3d, 3, False)
LazyConvTranspose1d = _lazy_conv(ConvTranspose1d, 1, True)
LazyConvTranspose2d = _lazy_conv(ConvTranspose2d, 2, True)
LazyConvTranspose3d = _lazy_conv(ConvTranspose3d, 3, True)
LazyBatchNorm1d = _lazy_norm(BatchNorm1d, 1, True)
LazyBatchNorm2d = _lazy_norm(BatchNorm2d, 2, True)
LazyBatchNorm3d = _lazy_norm(BatchNorm3d, 3, True)
LazyInstanceNorm1d = _lazy_norm(InstanceNorm1d, 1, False)
LazyInstanceNorm2d = _lazy_norm(InstanceNorm2d, 2, False)
LazyInstanceNorm3d = _lazy_norm(InstanceNorm3d, 3, False)
