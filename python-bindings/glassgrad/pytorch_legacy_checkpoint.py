"""Reading torch.save's format before PyTorch 1.6 (and torch.save(..., _use_new_zipfile_serialization
=False) since), which torch.load still reads: five pickles one after another, then the storages'
bytes. Checkpoints of that age ship with course repositories (udacity/deep-reinforcement-learning's
checkpoint.pth files) and are loaded with a plain torch.load(path).

The layout (torch/serialization.py, _legacy_save):
    pickle 1   the magic number 0x1950a86a20f9469cfc6c
    pickle 2   the protocol version, 1001
    pickle 3   {'protocol_version', 'little_endian', 'type_sizes'}
    pickle 4   the object; each storage a persistent id ('storage', torch.<Type>Storage, key,
               location, numel, view) with view None or (view_key, offset, size) into the key's
               storage
    pickle 5   the storage keys, in the order their bytes follow
    then, for each key: its element count (int64) and its elements, in the file's byte order.

The object is read with pytorch_checkpoint's unpickler (the same allowlist as the zip format, so
no code runs from the file); a first pass over pickle 4 with every global a stand-in learns each
storage's type, which the byte records need and only pickle 4 says.
"""
from __future__ import annotations

import io
import pickle
import struct
from typing import Any, Dict, Tuple

import numpy as np

from . import _C
from .pytorch_checkpoint import _StorageType, _STORAGE_DTYPES, _Unpickler, reading_checkpoint

MAGIC = 0x1950A86A20F9469CFC6C
PROTOCOL = 1001


class _Header(pickle.Unpickler):
    """The header pickles hold numbers, strings and dicts only."""

    def find_class(self, module: str, name: str):
        raise pickle.UnpicklingError(f"a global {module}.{name} in the header of a legacy checkpoint")


def is_legacy(raw: bytes) -> bool:
    """Whether the bytes start with the legacy format's magic number pickle."""
    try:
        return _Header(io.BytesIO(raw[:64])).load() == MAGIC
    except Exception:  # any other file: not this format
        return False


class _Stand:
    """Whatever pickle 4 builds in the first pass (only its storage records are kept)."""

    def __init__(self, *args, **kwargs):
        pass

    def __setstate__(self, state):
        pass

    def __setitem__(self, key, value):
        pass

    def append(self, value):
        pass

    def extend(self, values):
        pass


class _StorageTypes(pickle.Unpickler):
    """First pass over pickle 4: {storage key: _StorageType}, nothing else built."""

    def __init__(self, file):
        super().__init__(file)
        self.types: Dict[str, _StorageType] = {}

    def find_class(self, module: str, name: str):
        return _StorageType(name) if module == "torch" and name in _STORAGE_DTYPES else _Stand

    def persistent_load(self, pid: Tuple[Any, ...]):
        if isinstance(pid, tuple) and len(pid) >= 3 and pid[0] == "storage" and isinstance(pid[1], _StorageType):
            self.types[str(pid[2])] = pid[1]
        return _Stand()


class _LegacyUnpickler(_Unpickler):
    """pytorch_checkpoint's unpickler over storages already read; a view record is a slice of its
    root storage."""

    def __init__(self, file, storages: Dict[str, np.ndarray], **kwargs):
        super().__init__(file, None, "", **kwargs)
        self.storages = storages

    def persistent_load(self, pid: Tuple[Any, ...]):
        array, name, location, key = super().persistent_load(pid[:4])
        view = pid[5] if len(pid) > 5 else None
        if view is None:
            return array, name, location, key
        view_key, offset, size = str(view[0]), int(view[1]), int(view[2])
        if offset < 0 or offset + size > len(array):
            raise ValueError(f"storage view {view_key} of {size} elements at {offset} lies outside storage {key} "
                             f"of {len(array)}")
        return array[offset:offset + size], name, location, view_key


def _storages(f, keys, types: Dict[str, _StorageType], big_endian: bool, path: str) -> Dict[str, np.ndarray]:
    out = {}
    for key in keys:
        key = str(key)
        if key not in types:
            raise _C.GlassgradError(f"{path}: the storage {key} has no record in the checkpoint's object")
        dtype = types[key].dtype
        head = f.read(8)
        if len(head) < 8:
            raise _C.GlassgradError(f"{path}: the legacy checkpoint ends before storage {key} (truncated file)")
        (count,) = struct.unpack(">q" if big_endian else "<q", head)
        data = f.read(count * dtype.itemsize) if count >= 0 else b""
        if count < 0 or len(data) < count * dtype.itemsize:
            raise _C.GlassgradError(f"{path}: storage {key} of the legacy checkpoint is truncated ({count} elements "
                                    f"of {dtype} announced)")
        out[key] = np.frombuffer(data, dtype.newbyteorder(">") if big_endian else dtype).astype(dtype)
    return out


def _load(raw: bytes, path: str, weights_only: bool, map_location) -> Any:
    f = io.BytesIO(raw)
    if _Header(f).load() != MAGIC:
        raise _C.GlassgradError(f"{path}: not a legacy PyTorch checkpoint (no magic number)")
    version = _Header(f).load()
    if version != PROTOCOL:
        raise _C.GlassgradError(f"{path}: legacy checkpoint protocol {version!r}; PyTorch wrote {PROTOCOL}")
    info = _Header(f).load()
    big = not (info.get("little_endian", True) if isinstance(info, dict) else True)
    start = f.tell()
    scan = _StorageTypes(f)
    scan.load()
    storages = _storages(f, _Header(f).load(), scan.types, big, path)
    f.seek(start)
    return _LegacyUnpickler(f, storages, path=path, big_endian=big, weights_only=weights_only,
                            map_location=map_location).load()


def load_legacy_bytes(raw: bytes, path: str, weights_only: bool = True, map_location=None) -> Any:
    """The object a legacy torch.save file holds, tensors as glassgrad Tensors (as torch.load
    gives them); every failure a glassgrad.CheckpointError naming the file."""
    with reading_checkpoint(path, "save it again with torch.save(torch.load(path), path) in PyTorch (zip format)"):
        return _load(raw, path, weights_only, map_location)
