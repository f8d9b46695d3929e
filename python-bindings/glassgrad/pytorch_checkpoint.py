"""Reading a PyTorch checkpoint file (torch.save's zip format, PyTorch 1.6 and later) without
importing torch: glassgrad.load_pytorch(path) returns the saved object with every tensor as a
NumPy array, so

    model.load_state_dict(glassgrad.load_pytorch("resnet.pt"))
    model.load_state_dict(glassgrad.load_pytorch("checkpoint.pt")["model"])

load a model trained in PyTorch. The file is a zip archive: <name>/data.pkl pickles the object,
and each tensor's storage is a raw little-endian file <name>/data/<key>. The pickle is read by an
unpickler that allows only what a checkpoint of tensors needs (OrderedDict, PyTorch's tensor and
parameter rebuild functions, its storage types, torch.Size); any other class or function in the
file is refused, so loading never runs code from it.
"""
from __future__ import annotations

import os
import pickle
import zipfile
from collections import OrderedDict
from typing import Any, Dict, Tuple

import numpy as np

from . import _C

# PyTorch storage type -> NumPy dtype of its raw bytes (bfloat16 is read as uint16 and widened).
_STORAGE_DTYPES = {
    "FloatStorage": np.float32, "DoubleStorage": np.float64, "HalfStorage": np.float16,
    "BFloat16Storage": np.uint16, "LongStorage": np.int64, "IntStorage": np.int32, "ShortStorage": np.int16,
    "CharStorage": np.int8, "ByteStorage": np.uint8, "BoolStorage": np.bool_,
}


class _StorageType:
    def __init__(self, name: str):
        self.name = name
        self.dtype = np.dtype(_STORAGE_DTYPES[name])


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                       metadata=None):
    size, stride, storage_offset = tuple(int(s) for s in size), tuple(int(s) for s in stride), int(storage_offset)
    array, name = storage
    # as_strided reads wherever size and stride point: a tensor that does not lie inside its
    # storage (a damaged or hostile file) is refused before any element is read.
    if len(size) != len(stride) or storage_offset < 0 or min(size + stride, default=0) < 0:
        raise ValueError(f"a tensor of size {list(size)}, stride {list(stride)} at offset {storage_offset} is not a "
                         f"valid view")
    last = storage_offset + sum((n - 1) * st for n, st in zip(size, stride))
    if 0 not in size and last >= len(array):
        raise ValueError(f"a tensor of size {list(size)}, stride {list(stride)} at offset {storage_offset} reaches "
                         f"element {last} of a storage of {len(array)} elements")
    if not size:
        out = np.array(array[storage_offset])
    elif 0 in size:
        out = np.zeros(size, array.dtype)
    else:
        base = array[storage_offset:]
        out = np.lib.stride_tricks.as_strided(base, size, tuple(s * array.itemsize for s in stride)).copy()
    if name == "BFloat16Storage":  # the high 16 bits of a float32
        out = (out.astype(np.uint32) << 16).view(np.float32)
    return out


def _rebuild_parameter(data, requires_grad=False, backward_hooks=None):
    return data


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state=None):
    return data


def _size(*args):
    return tuple(args[0]) if len(args) == 1 else tuple(args)


_ALLOWED = {
    ("collections", "OrderedDict"): OrderedDict,
    ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
    ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
    ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter_with_state,
    ("torch", "Size"): _size,
}


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, archive: zipfile.ZipFile, prefix: str, path: str, big_endian: bool):
        super().__init__(file)
        self.archive, self.prefix, self.path, self.big_endian = archive, prefix, path, big_endian
        self.storages: Dict[str, np.ndarray] = {}

    def find_class(self, module: str, name: str):
        if (module, name) in _ALLOWED:
            return _ALLOWED[(module, name)]
        if module == "torch" and name in _STORAGE_DTYPES:
            return _StorageType(name)
        raise _C.GlassgradError(
            f"{self.path}: the checkpoint holds a {module}.{name}, which glassgrad.load_pytorch does not read "
            f"(it reads tensors, dicts, lists and numbers only, and never runs code from a file)\n"
            f"  fix: in PyTorch, save the state_dict alone: torch.save(model.state_dict(), path)")

    def persistent_load(self, pid: Tuple[Any, ...]):
        if not isinstance(pid, tuple) or not pid or pid[0] != "storage":
            raise _C.GlassgradError(f"{self.path}: unknown persistent record {pid!r} in the checkpoint")
        storage_type, key = pid[1], str(pid[2])
        if not isinstance(storage_type, _StorageType):
            raise _C.GlassgradError(f"{self.path}: storage {key} has an unknown type {storage_type!r}")
        if key not in self.storages:
            raw = self.archive.read(f"{self.prefix}data/{key}")
            dtype = storage_type.dtype.newbyteorder(">") if self.big_endian else storage_type.dtype
            self.storages[key] = np.frombuffer(raw, dtype=dtype).astype(storage_type.dtype)
        return self.storages[key], storage_type.name


def load_pytorch(path) -> Any:
    """Reads a torch.save file (zip format) and returns the saved object, tensors as NumPy arrays
    (float32, float64, float16, int64, ... as saved; bfloat16 widened to float32). Every failure
    (missing, not a zip, damaged or truncated archive or pickle, a storage too short for its
    tensor, hostile nesting) is a glassgrad.CheckpointError naming the file."""
    from .serialization import CheckpointError
    path = os.fspath(path)
    try:
        return _load(path)
    except CheckpointError:
        raise
    except _C.GlassgradError as e:
        raise CheckpointError(str(e)) from None
    except FileNotFoundError:
        raise CheckpointError(f"{path}: no such file\n  fix: check the path (the current directory is "
                              f"{os.getcwd()})") from None
    except RecursionError:
        raise CheckpointError(f"{path}: the checkpoint's pickle nests too deeply to be a state dict "
                              f"(damaged or hostile file)") from None
    except (OSError, EOFError, MemoryError, zipfile.BadZipFile, zipfile.LargeZipFile, pickle.UnpicklingError,
            KeyError, IndexError, TypeError, ValueError, AttributeError, UnicodeDecodeError) as e:
        raise CheckpointError(f"{path}: the PyTorch checkpoint is damaged or not one glassgrad can read "
                              f"({type(e).__name__}: {e})\n  fix: save it again with torch.save(obj, path) "
                              f"(zip format, PyTorch 1.6 or later)") from None


def _load(path: str) -> Any:
    if not zipfile.is_zipfile(path):
        if not os.path.exists(path):
            raise FileNotFoundError(path)
        raise _C.GlassgradError(
            f"{path}: not a PyTorch zip checkpoint\n"
            f"  cause: a file from torch.save(..., _use_new_zipfile_serialization=False) or PyTorch < 1.6, or not "
            f"a checkpoint\n  fix: in PyTorch, torch.save(torch.load(old_path), new_path) rewrites it as a zip file")
    with zipfile.ZipFile(path) as archive:
        pickles = [n for n in archive.namelist() if n.endswith("data.pkl")]
        if len(pickles) != 1:
            raise _C.GlassgradError(f"{path}: expected one data.pkl in the archive, found {len(pickles)}")
        prefix = pickles[0][:-len("data.pkl")]
        order = f"{prefix}byteorder"
        big = order in archive.namelist() and archive.read(order).strip() == b"big"
        with archive.open(pickles[0]) as f:
            return _Unpickler(f, archive, prefix, path, big).load()
