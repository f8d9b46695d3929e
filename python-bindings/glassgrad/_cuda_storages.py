"""torch.FloatStorage, torch.cuda.FloatStorage and the other legacy typed storage classes:
FloatStorage(n) (n zeros), FloatStorage([1, 2]) (those values) or FloatStorage() make a
TypedStorage of a new tensor of that dtype, on the CPU or (torch.cuda's) the GPU;
FloatStorage.from_buffer(buffer, byte_order) reads a buffer's bytes as its elements (a copy); and
isinstance(tensor.storage(), FloatStorage) is True for a float32 tensor's on that kind of device,
as PyTorch's. Without a usable GPU the CUDA classes exist and making one raises DeviceError (a
RuntimeError, as PyTorch's) with the reason (docs/porting.md, "Storage")."""
from __future__ import annotations

from typing import Dict, Literal

import numpy as np

from . import cuda as _cuda
from ._dtypes import to_dtype
from .storage import TypedStorage, storage_of


class _LegacyStorageType(type):
    """isinstance by dtype and device type: a tensor's storage is a FloatStorage when it holds
    float32 elements on that kind of device."""

    def __instancecheck__(cls, obj) -> bool:
        return (isinstance(obj, TypedStorage) and obj.dtype == cls.dtype  # type: ignore[attr-defined]
                and obj.device.type == cls.device_type)  # type: ignore[attr-defined]


# the byte orders from_buffer takes, as NumPy's prefixes
_BYTE_ORDERS: Dict[str, Literal["=", "<", ">"]] = {"native": "=", "little": "<", "big": ">"}


def _from_buffer(cls, buffer, byte_order=None, count: int = -1, offset: int = 0):
    """PyTorch's <Type>Storage.from_buffer: the buffer's bytes (after `offset`; `count` elements,
    all when -1) read as the storage's dtype in `byte_order` ('native', 'little' or 'big'; needed
    unless the elements are single bytes), as a new CPU storage (a copy)."""
    name = cls.__name__
    dtype = cls.dtype
    if byte_order is None and dtype.itemsize > 1:
        raise RuntimeError(f"function missing required argument 'byte_order' (pos 2)\n  {name}.from_buffer: "
                           f"{dtype} elements are {dtype.itemsize} bytes\n  fix: {name}.from_buffer(buffer, 'little')")
    if byte_order is not None and byte_order not in _BYTE_ORDERS:
        raise ValueError(f"invalid byte_order {byte_order!r} (expected 'big', 'little', or 'native')\n  "
                         f"fix: {name}.from_buffer(buffer, 'little')")
    data = memoryview(buffer).cast("B")[offset:]
    if count < 0:
        if len(data) % dtype.itemsize:
            raise ValueError(f"buffer size ({len(data)}) must be a multiple of element size ({dtype.itemsize})")
        count = len(data) // dtype.itemsize
    bf16 = dtype == "bfloat16"  # read as its 16-bit patterns, the high halves of float32s
    np_dtype = np.dtype("uint16" if bf16 else str(dtype).split(".")[-1]).newbyteorder(_BYTE_ORDERS[byte_order or "native"])
    values = np.frombuffer(data, dtype=np_dtype, count=count).astype(np_dtype.newbyteorder("="))
    if bf16:
        values = (values.astype(np.uint32) << 16).view(np.float32)
    from ._tensor import tensor
    return storage_of(tensor(values, dtype=dtype, device="cpu"))


def _legacy(name: str, dtype: str, device_type: str):
    def __new__(cls, *args, device=None):
        from ._tensor import tensor
        from ._factories import zeros
        if device_type == "cuda":
            index = _cuda.current_device() if device is None else _cuda._index(device)
            _cuda.device_info(index)  # DeviceError with the reason when that GPU cannot be used
            where = f"cuda:{index}"
        else:
            where = "cpu" if device is None else device
        if len(args) > 1:
            raise TypeError(f"{name}(): takes a size or a sequence of values, got {len(args)} arguments\n  fix: "
                            f"{name}(3) or {name}([1, 2, 3])")
        first = args[0] if args else 0
        made = zeros(first, dtype=cls.dtype, device=where) if isinstance(first, int) else \
            tensor(list(first), dtype=cls.dtype, device=where)
        return storage_of(made)
    prefix = "torch.cuda" if device_type == "cuda" else "torch"
    doc = f"{prefix}.{name}: a TypedStorage of {dtype} elements on the {'GPU' if device_type == 'cuda' else 'CPU'}."
    return _LegacyStorageType(name, (), {"__new__": __new__, "dtype": to_dtype(dtype), "device_type": device_type,
                                         "from_buffer": classmethod(_from_buffer), "__doc__": doc,
                                         "__module__": "glassgrad.cuda" if device_type == "cuda" else "glassgrad"})


_DTYPES = {"FloatStorage": "float32", "DoubleStorage": "float64", "HalfStorage": "float16",
           "BFloat16Storage": "bfloat16", "LongStorage": "int64", "IntStorage": "int32", "ShortStorage": "int16",
           "CharStorage": "int8", "ByteStorage": "uint8", "BoolStorage": "bool"}
STORAGES = {name: _legacy(name, dtype, "cuda") for name, dtype in _DTYPES.items()}
CPU_STORAGES = {name: _legacy(name, dtype, "cpu") for name, dtype in _DTYPES.items()}
