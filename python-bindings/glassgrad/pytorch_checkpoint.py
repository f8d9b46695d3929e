"""Reading and writing PyTorch's checkpoint format (torch.save's zip format, PyTorch 1.6 and
later) without importing torch. glassgrad.save writes it (write_torch_zip, below) and
glassgrad.load reads it. Reading: glassgrad.load_pytorch(path) returns the saved object with
every tensor as a glassgrad Tensor of its saved dtype, as torch.load does, so

    model.load_state_dict(glassgrad.load_pytorch("resnet.pt"))
    model.load_state_dict(glassgrad.load_pytorch("checkpoint.pt")["model"])

load a model trained in PyTorch. The file is a zip archive: <name>/data.pkl pickles the object,
and each tensor's storage is a raw little-endian file <name>/data/<key>. The pickle is read by an
unpickler that allows only what a checkpoint of tensors needs (OrderedDict, PyTorch's tensor and
parameter rebuild functions, its storage types, torch.Size, torch.device and the dtypes) and the
classes _checkpoint_objects.find_global allows (the user's allowlist; glassgrad's layers with
weights_only=False); any other class or function in the file is refused, so loading never runs
code from it. Tensors are placed by map_location (_checkpoint_objects.restore_device). NumPy
arrays glassgrad.save wrote are tensor records too (torch.load reads them as tensors); the record
NUMPY_RECORD lists their storages, and glassgrad.load gives them back as NumPy arrays.
"""
from __future__ import annotations

import _compat_pickle
import contextlib
import io
import os
import pickle
import secrets
import struct
import zipfile
from collections import Counter, OrderedDict
from typing import Any, Dict, Optional, Tuple

import numpy as np

from . import _C
from . import _checkpoint_objects as _objects
from ._storage_views import StorageBases, covers
from ._tensor import BFLOAT16_BITS

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


def _layout(storage, storage_offset, size, stride) -> Tuple[int, Tuple[int, ...], Tuple[int, ...]]:
    """(storage_offset, size, stride) of a tensor record as ints, checked to lie inside the
    storage: as_strided reads wherever size and stride point, so a tensor that does not (a damaged
    or hostile file) is refused before any element is read."""
    size, stride, storage_offset = tuple(int(s) for s in size), tuple(int(s) for s in stride), int(storage_offset)
    array = storage[0]
    if len(size) != len(stride) or storage_offset < 0 or min(size + stride, default=0) < 0:
        raise ValueError(f"a tensor of size {list(size)}, stride {list(stride)} at offset {storage_offset} is not a "
                         f"valid view")
    last = storage_offset + sum((n - 1) * st for n, st in zip(size, stride))
    if 0 not in size and last >= len(array):
        raise ValueError(f"a tensor of size {list(size)}, stride {list(stride)} at offset {storage_offset} reaches "
                         f"element {last} of a storage of {len(array)} elements")
    return storage_offset, size, stride


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                       metadata=None):
    storage_offset, size, stride = _layout(storage, storage_offset, size, stride)
    array, name = storage[0], storage[1]
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


def _size(*args):
    return tuple(args[0]) if len(args) == 1 else tuple(args)


def _device(*args):
    from ._device import device
    return device(*args)


# PyTorch's weights-only allowlist has Counter too: MultiStepLR's state_dict keeps its milestones in one.
_ALLOWED = {
    ("collections", "OrderedDict"): OrderedDict,
    ("collections", "Counter"): Counter,
    ("torch", "device"): _device,
}


class _Unpickler(pickle.Unpickler):
    """Tensors come back as glassgrad Tensors on the device map_location says (Parameters as
    Parameters), except the storages `numpy_keys` names: NumPy arrays glassgrad.save wrote."""

    def __init__(self, file, archive: Optional[zipfile.ZipFile], prefix: str, path: str, big_endian: bool,
                 numpy_keys: frozenset = frozenset(), weights_only: bool = True, map_location=None):
        super().__init__(file)
        self.archive, self.prefix, self.path, self.big_endian = archive, prefix, path, big_endian
        self.storages: Dict[str, np.ndarray] = {}
        self.numpy_keys, self.weights_only, self.map_location = numpy_keys, weights_only, map_location
        self.bases = StorageBases()  # the tensors over each storage key (views of one storage)
        self.keys: Dict[int, str] = {}  # id(tensor record's tensor): its storage key

    def find_class(self, module: str, name: str):
        # Protocol 2 writes Python 2's names (__builtin__.set, copy_reg._reconstructor).
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return self._tensor
        if (module, name) in (("torch._utils", "_rebuild_parameter"), ("torch._utils", "_rebuild_parameter_with_state")):
            return self._parameter
        if (module, name) == ("torch._tensor", "_rebuild_from_type_v2"):
            return _objects.rebuild_from_type
        if (module, name) == ("torch", "Tensor"):
            from ._tensor import Tensor
            return Tensor
        if (module, name) == ("torch", "Size"):
            from ._size import Size
            return lambda *args: Size(_size(*args))
        if (module, name) in _ALLOWED:
            return _ALLOWED[(module, name)]
        if module == "torch" and name in _STORAGE_DTYPES:
            return _StorageType(name)
        if module == "torch" and _objects.torch_dtype(name) is not None:
            return _objects.torch_dtype(name)
        return _objects.find_global(module, name, self.weights_only, self.path)

    def _parameter(self, data, *args):
        """A saved Parameter (_objects.parameter_of) over its storage record: when data is the
        tensor that later records of that storage are views of, the Parameter becomes it; when
        data is such a view, the Parameter shares data's memory (_storage_views.py)."""
        key = self.keys.get(id(data))
        if key is not None and self.bases.base(key) is not data:
            return _objects.parameter_of(data, *args, share=True)
        out = _objects.parameter_of(data, *args)
        if key is not None:
            self.bases.keep(key, out)
        return out

    def _tensor(self, storage, *args):
        out = self._tensor_record(storage, *args)
        self.keys[id(out)] = storage[3]
        return out

    def _tensor_record(self, storage, *args):
        """A tensor record: its own tensor when it is the first over its storage and covers it
        (every tensor of a state_dict), else a view of the tensor over its storage
        (_storage_views.py)."""
        key = storage[3]
        if key in self.numpy_keys:
            return _rebuild_tensor_v2(storage, *args)
        requires_grad = bool(args[3]) if len(args) > 3 else False
        offset, size, stride = _layout(storage, *args[:3])
        base = self.bases.base(key)
        if base is None and (0 in size or covers(len(storage[0]), offset, size, stride)):
            out = self._loaded(_rebuild_tensor_v2(storage, *args), storage, requires_grad)
            if 0 not in size:
                self.bases.keep(key, out)
            return out
        if base is None:  # the whole storage, which this and later tensors are views of
            base = self._loaded(_rebuild_tensor_v2(storage, 0, (len(storage[0]),), (1,)), storage, False)
            self.bases.keep(key, base)
        return StorageBases.view(base, size, stride, offset, requires_grad)

    def _loaded(self, values: np.ndarray, storage, requires_grad: bool):
        return _objects.tensor_of(values, storage[2], self.map_location, requires_grad,
                                  dtype="bfloat16" if storage[1] == "BFloat16Storage" else None)

    def persistent_load(self, pid: Tuple[Any, ...]):
        if not isinstance(pid, tuple) or not pid or pid[0] != "storage":
            raise _C.GlassgradError(f"{self.path}: unknown persistent record {pid!r} in the checkpoint")
        storage_type, key = pid[1], str(pid[2])
        if not isinstance(storage_type, _StorageType):
            raise _C.GlassgradError(f"{self.path}: storage {key} has an unknown type {storage_type!r}")
        if key not in self.storages:
            if self.archive is None:  # a legacy file's storages are all read before its object
                raise _C.GlassgradError(f"{self.path}: the checkpoint has no bytes for storage {key}")
            raw = self.archive.read(f"{self.prefix}data/{key}")
            dtype = storage_type.dtype.newbyteorder(">") if self.big_endian else storage_type.dtype
            self.storages[key] = np.frombuffer(raw, dtype=dtype).astype(storage_type.dtype)
        return self.storages[key], storage_type.name, str(pid[3]), key


def load_pytorch(path) -> Any:
    """Reads a torch.save file (zip format, or the format before PyTorch 1.6:
    pytorch_legacy_checkpoint) and returns the saved object, tensors as glassgrad
    Tensors of their saved dtypes (float32, float64, float16, bfloat16, int64, ...) on the devices
    they were saved on, as torch.load(path) does. Every failure
    (missing, not a zip, damaged or truncated archive or pickle, a storage too short for its
    tensor, hostile nesting) is a glassgrad.CheckpointError naming the file."""
    path = os.fspath(path)
    if not zipfile.is_zipfile(path):
        from .serialization import CheckpointError
        from .pytorch_legacy_checkpoint import is_legacy, load_legacy_bytes
        if os.path.isfile(path):
            with open(path, "rb") as f:
                raw = f.read()
            if is_legacy(raw):
                return load_legacy_bytes(raw, path)
        if not os.path.exists(path):
            raise CheckpointError(f"{path}: no such file\n  fix: check the path (the current directory is "
                                  f"{os.getcwd()})")
        raise CheckpointError(
            f"{path}: not a PyTorch zip checkpoint\n"
            f"  cause: a file from torch.save(..., _use_new_zipfile_serialization=False) or PyTorch < 1.6, or not "
            f"a checkpoint\n  fix: in PyTorch, torch.save(torch.load(old_path), new_path) rewrites it as a zip file")
    with open(path, "rb") as f:
        return load_pytorch_bytes(f.read(), path)


def is_torch_zip(archive: zipfile.ZipFile) -> bool:
    """Whether a zip archive is a torch.save file (it has a <name>/data.pkl record)."""
    return any(n.endswith("data.pkl") for n in archive.namelist())


def load_pytorch_bytes(raw: bytes, path: str, weights_only: bool = True, map_location=None) -> Any:
    """load_pytorch of a file's bytes (`path` names it in errors; weights_only and map_location as
    torch.load's, for files of whole objects)."""
    with reading_checkpoint(path, "save it again with torch.save(obj, path) (zip format, PyTorch 1.6 or later)"):
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            return _load(archive, path, weights_only, map_location)


@contextlib.contextmanager
def reading_checkpoint(path: str, fix: str):
    """Every failure of reading a PyTorch checkpoint inside the block as a glassgrad.CheckpointError
    naming the file (a refused global as WeightsOnlyLoadError); `fix` ends a damaged file's message."""
    from ._checkpoint_objects import WeightsOnlyRefusal
    from .serialization import CheckpointError, WeightsOnlyLoadError
    try:
        yield
    except CheckpointError:
        raise
    except WeightsOnlyRefusal as e:
        raise WeightsOnlyLoadError(str(e)) from None
    except _C.GlassgradError as e:
        raise CheckpointError(str(e)) from None
    except RecursionError:
        raise CheckpointError(f"{path}: the checkpoint's pickle nests too deeply to be a state dict "
                              f"(damaged or hostile file)") from None
    except (OSError, EOFError, MemoryError, zipfile.BadZipFile, zipfile.LargeZipFile, pickle.UnpicklingError,
            KeyError, IndexError, TypeError, ValueError, AttributeError, UnicodeDecodeError) as e:
        raise CheckpointError(f"{path}: the PyTorch checkpoint is damaged or not one glassgrad can read "
                              f"({type(e).__name__}: {e})\n  fix: {fix}") from None


def _load(archive: zipfile.ZipFile, path: str, weights_only: bool = True, map_location=None) -> Any:
    pickles = [n for n in archive.namelist() if n.endswith("data.pkl")]
    if len(pickles) != 1:
        raise _C.GlassgradError(f"{path}: expected one data.pkl in the archive, found {len(pickles)}")
    prefix = pickles[0][:-len("data.pkl")]
    order = f"{prefix}byteorder"
    big = order in archive.namelist() and archive.read(order).strip() == b"big"
    names = archive.namelist()
    objects = f"{prefix}{_objects.MARKER}" in names
    numpy_keys = frozenset(archive.read(f"{prefix}{NUMPY_RECORD}").decode().split()
                           if f"{prefix}{NUMPY_RECORD}" in names else ())
    data = archive.read(pickles[0])  # read whole: the zip's CRC-32 of the record is checked
    obj = _Unpickler(io.BytesIO(data), archive, prefix, path, big, numpy_keys, weights_only, map_location).load()
    return _objects.finish(obj) if objects else obj


# ---- writing: torch.save's zip format -----------------------------------------------------------
# The records torch.save writes (PyTorch 2.x), each record's data starting at a multiple of 64
# bytes (the alignment torch.load(mmap=True) needs), stored uncompressed with the zip CRC-32:
#   <name>/data.pkl                 the object, pickle protocol 2
#   <name>/.format_version          b"1"
#   <name>/.storage_alignment       b"64"
#   <name>/byteorder                b"little"
#   <name>/data/<key>               each tensor's bytes, little-endian, row-major
#   <name>/version                  b"3\n"
#   <name>/.data/serialization_id   40 decimal digits
# The pickle holds only what torch.load(weights_only=True) accepts: dicts, OrderedDicts, lists,
# tuples, str, int, float, bool, None, and tensors as torch._utils._rebuild_tensor_v2(storage,
# storage_offset, size, stride, requires_grad, OrderedDict()) with the storage a persistent id
# ("storage", torch.<Type>Storage, key, "cpu", numel).

_STORAGE_OF = {np.dtype(np.float32): "FloatStorage", np.dtype(np.float64): "DoubleStorage",
               np.dtype(np.float16): "HalfStorage", np.dtype(np.int64): "LongStorage",
               np.dtype(np.int32): "IntStorage", np.dtype(np.int16): "ShortStorage", np.dtype(np.int8): "CharStorage",
               np.dtype(np.uint8): "ByteStorage", np.dtype(np.bool_): "BoolStorage",
               BFLOAT16_BITS: "BFloat16Storage"}
_ALIGN = 64


NUMPY_RECORD = ".data/glassgrad_numpy"  # the storage keys of NumPy arrays, one a line


class SavedTensor:
    """A tensor of a tree being saved: its elements as stored_array gives them, and its device
    (written as the storage's location, which torch.load's map_location reads); `source` the
    tensor, and `view` (StorageSpan, storage_offset, strides) when it shares its buffer with
    another tensor of the tree, which the torch format writes as views of one storage
    (_storage_views.link_views)."""

    __slots__ = ("array", "location", "source", "view")

    def __init__(self, array: np.ndarray, location: str, source=None):
        self.array, self.location, self.source, self.view = array, location, source, None


class NotTorchSavable(Exception):
    """The object holds something torch's zip format cannot (a dtype PyTorch has no storage for)."""


class _TorchPickler:
    """Protocol-2 pickle of a tree of plain values and arrays, the opcodes written out one by one
    (no torch needed, and nothing but the allowed globals can reach the file)."""

    def __init__(self, max_depth: int):
        self.out = bytearray(b"\x80\x02")  # PROTO 2
        self.storages: list = []  # (key, contiguous little-endian array)
        self.numpy_keys: list = []  # the keys of the storages of NumPy arrays (NUMPY_RECORD)
        self.max_depth = max_depth
        self.memo: Dict[int, int] = {}  # id(SavedTensor) -> its pickle memo slot (one tensor saved twice)
        self.keys: Dict[int, str] = {}  # id(StorageSpan) -> its storage key (views of one storage)

    def _global(self, module: str, name: str) -> None:
        self.out += b"c" + module.encode() + b"\n" + name.encode() + b"\n"

    def _str(self, s: str) -> None:
        b = s.encode("utf-8", "surrogatepass")
        self.out += b"X" + len(b).to_bytes(4, "little") + b

    def _int(self, v: int) -> None:
        if 0 <= v < 256:
            self.out += b"K" + bytes([v])
        elif 0 <= v < 65536:
            self.out += b"M" + v.to_bytes(2, "little")
        elif -2 ** 31 <= v < 2 ** 31:
            self.out += b"J" + v.to_bytes(4, "little", signed=True)
        else:
            data = pickle.encode_long(v)
            if len(data) < 256:
                self.out += b"\x8a" + bytes([len(data)]) + data  # LONG1
            else:
                self.out += b"\x8b" + len(data).to_bytes(4, "little") + data  # LONG4

    def _tuple(self, items, depth: int) -> None:
        if not items:
            self.out += b")"
            return
        self.out += b"("
        for v in items:
            self.save(v, depth + 1)
        self.out += b"t"

    def _tensor(self, arr: np.ndarray, location: str, view=None, requires_grad: bool = False) -> None:
        """A tensor record: arr's elements as its own storage, or with `view` (StorageSpan,
        storage_offset, strides) arr's shape over that span, whose storage is written once for
        all the tensors on it; requires_grad as the tensor's (torch.load gives it back)."""
        storage = _STORAGE_OF.get(arr.dtype.newbyteorder("="))
        if storage is None:
            raise NotTorchSavable(f"an array of dtype {arr.dtype}")
        shape = tuple(int(d) for d in arr.shape)
        offset, strides = (0, _contiguous_strides(shape)) if view is None else view[1:]
        stored = arr if view is None else view[0].array
        key = self.keys.get(id(stored))
        if key is None:
            data = np.array(stored, dtype=stored.dtype.newbyteorder("<"), order="C")  # 0-d stays 0-d
            key = str(len(self.storages))
            self.storages.append((key, data))
            if view is not None:
                self.keys[id(stored)] = key
        numel = int(np.size(stored))
        self._global("torch._utils", "_rebuild_tensor_v2")
        self.out += b"("  # the arguments
        self.out += b"("  # the persistent id of the storage
        self._str("storage")
        self._global("torch", storage)
        self._str(key)
        self._str(location)
        self._int(numel)
        self.out += b"tQ"  # TUPLE, BINPERSID
        self._int(offset)
        self._tuple(shape, 0)
        self._tuple(strides, 0)
        self.out += b"\x88" if requires_grad else b"\x89"  # NEWTRUE / NEWFALSE
        self._global("collections", "OrderedDict")
        self.out += b")R"  # OrderedDict(): no backward hooks
        self.out += b"tR"

    def save(self, obj, depth: int = 0) -> None:
        if depth > self.max_depth:
            raise NotTorchSavable(f"nesting deeper than {self.max_depth} levels")
        if obj is None:
            self.out += b"N"
        elif obj is True:
            self.out += b"\x88"
        elif obj is False:
            self.out += b"\x89"
        elif isinstance(obj, int) and not isinstance(obj, bool):
            self._int(int(obj))
        elif isinstance(obj, float):
            self.out += b"G" + struct.pack(">d", obj)
        elif isinstance(obj, str):
            self._str(obj)
        elif isinstance(obj, SavedTensor):
            slot = self.memo.get(id(obj))
            if slot is not None:  # the same tensor again: a reference to the first (BINGET / LONG_BINGET)
                self.out += b"h" + bytes([slot]) if slot < 256 else b"j" + slot.to_bytes(4, "little")
                return
            self._tensor(obj.array, obj.location, obj.view, obj.source is not None and obj.source.requires_grad)
            slot = self.memo[id(obj)] = len(self.memo)
            self.out += b"q" + bytes([slot]) if slot < 256 else b"r" + slot.to_bytes(4, "little")  # BINPUT
        elif isinstance(obj, np.ndarray):
            self.numpy_keys.append(str(len(self.storages)))
            self._tensor(obj, "cpu")
        elif isinstance(obj, OrderedDict):
            self._global("collections", "OrderedDict")
            self.out += b")R"
            self._items(obj, depth)
        elif isinstance(obj, dict):
            self.out += b"}"
            self._items(obj, depth)
        elif isinstance(obj, list):
            self.out += b"]"
            if obj:
                self.out += b"("
                for v in obj:
                    self.save(v, depth + 1)
                self.out += b"e"  # APPENDS
        elif isinstance(obj, tuple):
            self._tuple(obj, depth)
        else:
            raise NotTorchSavable(f"a {type(obj).__name__}")

    def _items(self, d: dict, depth: int) -> None:
        if not d:
            return
        self.out += b"("
        for k, v in d.items():
            self.save(k, depth + 1)
            self.save(v, depth + 1)
        self.out += b"u"  # SETITEMS


def _contiguous_strides(shape):
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= max(int(d), 1)
    return tuple(reversed(strides))


def torch_pickle(tree, max_depth: int = 100):
    """(data.pkl bytes, [(key, array)], [keys of NumPy arrays]) of a tree whose leaves are plain
    values, SavedTensors and NumPy arrays. Raises NotTorchSavable naming what the format cannot
    hold."""
    p = _TorchPickler(max_depth)
    p.save(tree)
    p.out += b"."  # STOP
    return bytes(p.out), p.storages, p.numpy_keys


def _aligned_member(z: zipfile.ZipFile, f, name: str, data) -> None:
    """Writes one stored member whose data starts at a multiple of _ALIGN bytes in the file (an
    extra field of padding in its local header, as torch.save pads)."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    size = memoryview(data).nbytes
    info.file_size = info.compress_size = size
    info.CRC = 0
    zip64 = size * 1.05 > zipfile.ZIP64_LIMIT  # as ZipFile.open decides it
    offset = f.tell()
    header = len(info.FileHeader(zip64))
    pad = (-(offset + header + 4)) % _ALIGN
    info.extra = b"FB" + pad.to_bytes(2, "little") + b"Z" * pad
    with z.open(info, "w", force_zip64=zip64) as member:
        member.write(data)


def write_torch_zip(f, tree, archive: str = "archive", max_depth: int = 100) -> None:
    """Writes `tree` (plain containers and values, SavedTensors and NumPy arrays) to the binary
    file f in torch.save's zip format (see above)."""
    pkl, storages, numpy_keys = torch_pickle(tree, max_depth)
    write_torch_records(f, pkl, storages, archive, {NUMPY_RECORD: "\n".join(numpy_keys).encode()} if numpy_keys else None)


def pickle_objects(obj):
    """(data.pkl, storages) of any picklable object (a whole model): its tensors as PyTorch's
    tensor records (_checkpoint_objects.py). write_torch_records(..., OBJECTS_RECORD) writes them."""
    return _objects.pickle_objects(obj, _STORAGE_OF)


OBJECTS_RECORD = {_objects.MARKER: b"1"}  # the record that marks a file of whole objects


def write_torch_records(f, pkl: bytes, storages, archive: str, extra=None) -> None:
    """The zip records of torch.save's format around a pickle and its storages (and `extra`
    {name: bytes} records)."""
    with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as z:
        _aligned_member(z, f, f"{archive}/data.pkl", pkl)
        _aligned_member(z, f, f"{archive}/.format_version", b"1")
        _aligned_member(z, f, f"{archive}/.storage_alignment", b"64")
        _aligned_member(z, f, f"{archive}/byteorder", b"little")
        for key, arr in storages:
            _aligned_member(z, f, f"{archive}/data/{key}", arr.reshape(-1).view(np.uint8) if arr.size else b"")
        _aligned_member(z, f, f"{archive}/version", b"3\n")
        for name, data in (extra or {}).items():
            _aligned_member(z, f, f"{archive}/{name}", data)
        _aligned_member(z, f, f"{archive}/.data/serialization_id",
                        "".join(str(secrets.randbelow(10)) for _ in range(40)).encode())
