"""torch.nn.utils.parametrize: a parameter or buffer computed by modules from stored tensors.

    register_parametrization(module, "weight", Symmetric())
    module.weight                      # Symmetric()(module.parametrizations.weight.original)
    module.weight = value              # stored through the parametrizations' right_inverse
    remove_parametrizations(module, "weight")

As PyTorch does it: the module's class becomes a subclass "Parametrized<Class>" with a property
per parametrized name; module.parametrizations (a ModuleDict) holds one ParametrizationList per
name, whose stored tensor is "original" (the module's former Parameter object itself, so
optimizers built before keep training it) or "original0", "original1", ... when the first
parametrization's right_inverse returns several tensors; state_dict keys are
"parametrizations.weight.original". cached() computes each parametrized tensor once per block.
"""
from __future__ import annotations

import contextlib
from typing import Dict, Optional, Tuple

import numpy as np

from ..._runtime import no_grad
from ..._tensor import Tensor
from ..container import ModuleDict, ModuleList
from ..module import Module, Parameter, assign_data

__all__ = ["register_parametrization", "remove_parametrizations", "is_parametrized", "cached",
           "type_before_parametrizations", "ParametrizationList", "transfer_parametrizations_and_params"]

_cache_enabled = 0
_cache: Dict[Tuple[int, str], Tensor] = {}


@contextlib.contextmanager
def cached():
    """Inside the block each parametrized tensor is computed once, on first access, and reused."""
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


def _set_values(t: Tensor, value: Tensor) -> None:
    """t takes value's values (and shape), keeping the Python object (PyTorch's set_)."""
    assign_data(t, np.asarray(value.numpy(force=True)))


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order to the stored original(s)."""

    def __init__(self, modules, original: Tensor, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = tuple(original.shape), original.dtype
        with no_grad():
            new = original
            for module in reversed(list(self)):  # type: ignore[call-overload]
                if hasattr(module, "right_inverse"):
                    new = module.right_inverse(new)
        if isinstance(new, Tensor):
            self.is_tensor, self.ntensors = True, 1
            if new is not original:
                with no_grad():
                    _set_values(original, new)
            self._register_original("original", original)
        else:
            if not isinstance(new, (tuple, list)) or not all(isinstance(t, Tensor) for t in new):
                raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                                 f"Got {type(new).__name__}")
            self.is_tensor, self.ntensors = False, len(new)
            for i, t in enumerate(new):
                stored = Parameter(t.numpy(force=True), requires_grad=original.requires_grad, device=t.device) \
                    if isinstance(original, Parameter) else t.detach()
                self._register_original(f"original{i}", stored)
        if not self.unsafe:
            z = self()
            if not isinstance(z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(z).__name__}.")
            if z.dtype != original_dtype:
                raise ValueError(f"Registering a parametrization may not change the dtype of the tensor, unless "
                                 f"`unsafe` flag is enabled.\nunparametrized dtype: {original_dtype}\n"
                                 f"parametrized dtype: {z.dtype}")
            if tuple(z.shape) != original_shape:
                raise ValueError(f"Registering a parametrization may not change the shape of the tensor, unless "
                                 f"`unsafe` flag is enabled.\nunparametrized shape: {list(original_shape)}\n"
                                 f"parametrized shape: {list(z.shape)}")

    def _register_original(self, name: str, t: Tensor) -> None:
        if isinstance(t, Parameter):
            self.register_parameter(name, t)
        else:
            self.register_buffer(name, t)

    def right_inverse(self, value: Tensor) -> None:
        """Stores value: runs the right_inverse of every parametrization, last first, and writes
        the result into the original(s) (what `module.weight = value` does)."""
        with no_grad():
            for module in reversed(list(self)):  # type: ignore[call-overload]
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                _set_values(self.original, value)
            else:
                if not isinstance(value, (tuple, list)) or len(value) != self.ntensors:
                    raise ValueError(f"'right_inverse' must return a sequence of {self.ntensors} tensors. "
                                     f"Got {type(value).__name__}")
                for i, t in enumerate(value):
                    _set_values(getattr(self, f"original{i}"), t)

    def forward(self):
        items = list(self)  # type: ignore[call-overload]
        if self.is_tensor:
            x = items[0](self.original)
        else:
            x = items[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in items[1:]:
            x = module(x)
        return x


def _inject_new_class(module: Module) -> None:
    cls = module.__class__
    param_cls = type(f"Parametrized{cls.__name__}", (cls,), {})
    object.__setattr__(module, "__class__", param_cls)


def _inject_property(module: Module, tensor_name: str) -> None:
    def get_parametrized(self) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if _cache_enabled:
            key = (id(self), tensor_name)
            if key not in _cache:
                _cache[key] = parametrization()
            return _cache[key]
        return parametrization()

    def set_original(self, value) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def is_parametrized(module: Module, tensor_name: Optional[str] = None) -> bool:
    """Whether the module has a parametrization (on tensor_name, when given)."""
    parametrizations = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(parametrizations, ModuleDict):
        return False
    return len(parametrizations) > 0 if tensor_name is None else tensor_name in parametrizations


def type_before_parametrizations(module: Module) -> type:
    """The module's class before any parametrization was registered."""
    return module.__class__.__bases__[0] if is_parametrized(module) else type(module)


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:
    """Makes module.<tensor_name> the result of parametrization(original) (added after the ones
    already there, if any). Unless unsafe, the result must keep the tensor's shape and dtype.
    Returns the module."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if not isinstance(x, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(x).__name__}.")
            if x.dtype != y.dtype or tuple(x.shape) != tuple(y.shape):
                raise ValueError(f"Registering a parametrization may not change the shape or dtype of the tensor, "
                                 f"unless the `unsafe` flag is enabled.\nunparametrized: {y.dtype} {list(y.shape)}\n"
                                 f"parametrized: {x.dtype} {list(x.shape)}")
            if hasattr(parametrization, "right_inverse"):
                z = parametrization.right_inverse(x)
                if not isinstance(z, Tensor) or z.dtype != y.dtype or tuple(z.shape) != tuple(y.shape):
                    raise ValueError("The tensor returned by parametrization.right_inverse must have the same shape "
                                     "and dtype as the tensor it parametrizes")
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        plist = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = plist
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with "
                         f"name '{tensor_name}'\n  fix: one of {list(module._parameters) + list(module._buffers)}")
    return module


def remove_parametrizations(module: Module, tensor_name: str, leave_parametrized: bool = True) -> Module:
    """Removes the parametrizations on tensor_name: with leave_parametrized the tensor keeps its
    current (parametrized) value, else its stored original; a single original keeps its Python
    object. Returns the module (its class back once nothing is parametrized)."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
                _set_values(original, t)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized "
                             "in terms of a sequence of tensors.")
        with no_grad():
            t = getattr(module, tensor_name)
        original = Parameter(t.numpy(force=True), requires_grad=plist.original0.requires_grad, device=t.device) \
            if isinstance(plist.original0, Parameter) else t.detach()
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    if isinstance(original, Parameter):
        module.register_parameter(tensor_name, original)
    else:
        module.register_buffer(tensor_name, original)
    if not is_parametrized(module):
        del module._modules["parametrizations"]
        object.__setattr__(module, "__class__", module.__class__.__bases__[0])
    return module


def transfer_parametrizations_and_params(from_module: Module, to_module: Module,
                                         tensor_name: Optional[str] = None) -> Module:
    """PyTorch's transfer: for tensor_name (default every parametrized name of from_module),
    to_module gets a Parameter of that name if it has none (from_module's current value), the same
    parametrization objects registered on it, and from_module's stored originals ("original", or
    "original0", "original1", ...) as its own, so both modules then train the same tensors.
    Returns to_module."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            with no_grad():
                value = getattr(from_module, name)
            setattr(to_module, name, Parameter(value.numpy(force=True), device=value.device))
        for parametrization in from_module.parametrizations[name]:
            register_parametrization(to_module, name, parametrization)
        source, target = from_module.parametrizations[name], to_module.parametrizations[name]
        if hasattr(source, "original"):
            target.original = source.original
            continue
        i = 0
        while hasattr(source, f"original{i}"):
            setattr(target, f"original{i}", getattr(source, f"original{i}"))
            i += 1
    return to_module
