"""DataParallel and data_parallel with torch.nn.parallel's signatures, on one device.

PyTorch's DataParallel splits each batch over several GPUs in one process. glassgrad trains on
several GPUs with DistributedDataParallel instead (one process a GPU, gradients all-reduced inside
the step's plan), so DataParallel runs the module on a single device: asked for several devices it
raises with the fix; left to choose (device_ids=None) on a machine with several GPUs it uses the
first and says so once."""
from __future__ import annotations

import warnings
from typing import Any, Optional, Sequence

from ... import _C, _device
from ..._tensor import Tensor
from ..module import Module

_FIX = ("  fix: train on several GPUs with one process a GPU:\n"
        "    python -m glassgrad.distributed.run --nproc-per-node <gpus> train.py\n"
        "  and in train.py: glassgrad.distributed.init_process_group(); "
        "model = glassgrad.nn.parallel.DistributedDataParallel(model)\n"
        "  (see docs/distributed.md), or pass device_ids=[0] to run on one GPU")

_warned_several = False


def _device_index(d) -> int:
    if isinstance(d, int) and not isinstance(d, bool):
        return d
    dev = _device.device(d)
    if dev.type != "cuda":
        raise _C.DeviceError(f"DataParallel: device_ids name GPUs, got {d!r}\n  fix: device_ids=[0]")
    return 0 if dev.index is None else dev.index


def _devices(device_ids: Optional[Sequence], what: str) -> list:
    """The GPU indices to run on: [] without a usable GPU (the module runs where it is)."""
    global _warned_several
    if not _device.cuda_available():
        return []
    if device_ids is None:
        count = int(_C.cuda_device_count())
        if count > 1 and not _warned_several:
            _warned_several = True
            warnings.warn(f"{what} runs the module on cuda:0 only, not on all {count} GPUs\n{_FIX}", stacklevel=3)
        return [0]
    ids = [_device_index(d) for d in device_ids]
    if len(set(ids)) > 1:
        raise _C.UnsupportedError(f"{what}: device_ids={list(device_ids)} asks for {len(set(ids))} GPUs in one process, "
                                  f"which glassgrad does not do\n{_FIX}")
    return ids[:1]


class DataParallel(Module):
    """torch.nn.DataParallel(module, device_ids=None, output_device=None, dim=0) on one device.

    forward(*inputs, **kwargs) is module(*inputs, **kwargs); `.module` is the wrapped module, and
    state_dict() names its entries "module.<name>", as PyTorch's DataParallel does."""

    def __init__(self, module: Module, device_ids: Optional[Sequence] = None, output_device=None, dim: int = 0):
        super().__init__()
        self.module = module
        self.device_ids = _devices(device_ids, "DataParallel")
        self.output_device = (None if not self.device_ids else
                              _device_index(output_device) if output_device is not None else self.device_ids[0])
        self.dim = int(dim)
        if self.device_ids:
            # As PyTorch's DataParallel with one device: the module moves to it here, and forward
            # checks it is still there and moves the inputs to it.
            self.module.to(f"cuda:{self.device_ids[0]}")

    def _check_module_device(self) -> None:
        want = f"cuda:{self.device_ids[0]}"
        for name, t in list(self.module.named_parameters()) + list(self.module.named_buffers()):
            if t is not None and str(t.device) != want:
                raise _C.DeviceError(f"DataParallel: module must have its parameters and buffers on device {want} "
                                     f"(device_ids[0]) but found {name} on device: {t.device}\n"
                                     f"  fix: model = model.to('{want}') before wrapping it")

    def forward(self, *inputs: Any, **kwargs: Any):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        self._check_module_device()
        want = f"cuda:{self.device_ids[0]}"
        return self.module(*_to_device(inputs, want), **_to_device(kwargs, want))


def _to_device(obj: Any, device: str) -> Any:
    """Tensors anywhere in nested tuples, lists and dicts moved to `device` (PyTorch's scatter onto
    one device); other values as they are."""
    if isinstance(obj, Tensor):
        return obj if str(obj.device) == device else obj.to(device)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_to_device(v, device) for v in obj))
    if isinstance(obj, (tuple, list)):
        return type(obj)(_to_device(v, device) for v in obj)
    if isinstance(obj, dict):
        return {k: _to_device(v, device) for k, v in obj.items()}
    return obj


def data_parallel(module: Module, inputs: Any, device_ids: Optional[Sequence] = None, output_device=None,
                  dim: int = 0, module_kwargs: Optional[dict] = None):
    """torch.nn.parallel.data_parallel: module(*inputs, **module_kwargs) on one device (see
    DataParallel)."""
    _devices(device_ids, "data_parallel")
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    return module(*inputs, **(module_kwargs or {}))
