"""torch.nn.utils.init: skip_init, a module built without its parameters' initialization.

PyTorch builds the module on the meta device and then to_empty(device=...), so the values are
unspecified (torch.empty's). glassgrad has no meta device: the module is built on the final
device directly, which PyTorch's contract allows (any values are valid for "uninitialized");
the checks and errors are PyTorch's."""
from __future__ import annotations

import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """module_cls(*args, **kwargs) with parameters and buffers of unspecified values, on
    kwargs['device'] (default 'cpu'). The class must accept a `device` argument."""
    from ..module import Module
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    kwargs["device"] = kwargs.pop("device", "cpu")
    return module_cls(*args, **kwargs)
