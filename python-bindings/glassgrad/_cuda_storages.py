"""torch.cuda.FloatStorage and the other legacy typed storage classes: FloatStorage(n) (n zeros),
FloatStorage([1, 2]) (those values) or FloatStorage() make a TypedStorage of a new CUDA tensor of
that dtype, and isinstance(tensor.storage(), FloatStorage) is True for a CUDA float32 tensor's,
as PyTorch's. Without a usable GPU the classes exist and making one raises DeviceError (a
RuntimeError, as PyTorch's) with the reason (docs/porting.md, "Storage")."""
from __future__ import annotations

from . import cuda as _cuda
from ._dtypes import to_dtype
from .storage import TypedStorage, storage_of


class _LegacyStorageType(type):
    """isinstance by dtype and device type: a tensor's storage is a FloatStorage when it holds
    float32 elements on that kind of device."""

    def __instancecheck__(cls, obj) -> bool:
        return (isinstance(obj, TypedStorage) and obj.dtype == cls.dtype  # type: ignore[attr-defined]
                and obj.device.type == "cuda")


def _legacy(name: str, dtype: str):
    def __new__(cls, *args, device=None):
        from ._tensor import tensor
        from ._factories import zeros
        index = _cuda.current_device() if device is None else _cuda._index(device)
        _cuda.device_info(index)  # DeviceError with the reason when that GPU cannot be used
        if len(args) > 1:
            raise TypeError(f"{name}(): takes a size or a sequence of values, got {len(args)} arguments\n  fix: "
                            f"{name}(3) or {name}([1, 2, 3])")
        where = f"cuda:{index}"
        first = args[0] if args else 0
        made = zeros(first, dtype=cls.dtype, device=where) if isinstance(first, int) else \
            tensor(list(first), dtype=cls.dtype, device=where)
        return storage_of(made)
    doc = f"torch.cuda.{name}: a TypedStorage of {dtype} elements on the GPU."
    return _LegacyStorageType(name, (), {"__new__": __new__, "dtype": to_dtype(dtype), "__doc__": doc,
                                         "__module__": "glassgrad.cuda"})


_DTYPES = {"FloatStorage": "float32", "DoubleStorage": "float64", "HalfStorage": "float16",
           "BFloat16Storage": "bfloat16", "LongStorage": "int64", "IntStorage": "int32", "ShortStorage": "int16",
           "CharStorage": "int8", "ByteStorage": "uint8", "BoolStorage": "bool"}
STORAGES = {name: _legacy(name, dtype) for name, dtype in _DTYPES.items()}
