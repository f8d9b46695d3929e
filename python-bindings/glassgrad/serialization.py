"""glassgrad.save / glassgrad.load: checkpoints of model and optimizer state.

    glassgrad.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": 1000},
                   "checkpoint.gg")
    ckpt = glassgrad.load("checkpoint.gg")
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])

What can be saved: a tree of dicts (str or int keys), lists and tuples whose leaves are glassgrad
Tensors, NumPy arrays, NumPy scalars and plain Python values (int, float, str, bool, None).
load() returns the same tree, as torch.load does: every tensor a Tensor of its saved dtype
(bfloat16 included) on the device it was saved on, or where map_location puts it; every NumPy
array (and NumPy scalar) a NumPy array. A tensor the tree holds more than once is written once
in the torch format and loads as one tensor, as torch.load gives it (the other formats store it
once per place). Views of one memory ({'a': t, 'b': t[1:]}) are written in the torch format as
one storage and each tensor's offset and strides over it, and load as views of one memory again,
as torch.load gives them (_storage_views.py); the other formats store each tensor's own values.
Anything else, a whole model above all (torch.save(model, f)), is
pickled as torch.save pickles it (_checkpoint_objects.py; its views of one memory, too, as views
of one storage), and load() gives it back with glassgrad
Tensors and Parameters, under PyTorch's weights_only rules: its classes must be allowlisted
(serialization.safe_globals) or the load asked for with weights_only=False.

The file (format=None chooses the first that fits): "torch", PyTorch's own zip format
(torch.load(path, weights_only=True) reads it; pytorch_checkpoint.py writes it without torch),
for every tree whose arrays have a dtype PyTorch stores; else "safetensors" when that package is
installed, else "npz", glassgrad's earlier formats: the arrays in a safetensors file or a NumPy
.npz archive, the tree's shape and plain values as JSON beside them (safetensors metadata
"glassgrad", or the npz member "__glassgrad__"), each array under its path in the tree joined by
"/" ("model/conv1.weight"). load() recognizes the format from the file's first bytes, not from its
name, and reads all three: files of earlier glassgrad versions, and torch.save's files; a
safetensors or npz file written by another program comes back as a flat {name: array} dict.
Nothing is ever unpickled by Python's unpickler: a torch file's pickle is read by one that
accepts only containers, numbers, strings and tensors (pytorch_checkpoint.py).

Any key round-trips: arrays are stored under names the writer chooses (a key that a file format
cannot hold as a member name gets a numbered one), and the tree maps them back.

Crash safety: save() writes into a temporary file in the checkpoint's directory, flushes it to
disk (fsync), then renames it over the target with os.replace, which is atomic on POSIX and
Windows. A crash or an error while writing leaves the previous checkpoint untouched and no
half-written file under the checkpoint's name; the temporary file is removed on errors, and the
temporaries a killed save left (".<name>.<pid>-<random>.tmp", their process gone) are removed by
the next save or load of that checkpoint.

Integrity: every array's bytes carry a CRC-32, checked on load (the torch format's zip records
carry the zip's own, the other formats' metadata holds one per array). Every failure
to load (a missing, damaged, truncated, foreign or hostile file) raises a CheckpointError (a
GlassgradError) naming the file and what is wrong; a missing file's is also a FileNotFoundError.
"""
from __future__ import annotations

import collections
import contextlib
import io
import json
import os
import pickle
import secrets
import time
import zipfile
import zlib
from typing import Any, Callable, Dict, Optional, Tuple, Union

import numpy as np

from . import _C
from ._checkpoint_objects import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals
from ._storage_views import link_views
from .pytorch_legacy_checkpoint import is_legacy, load_legacy_bytes
from .pytorch_checkpoint import (OBJECTS_RECORD, NotTorchSavable, SavedTensor, is_torch_zip, load_pytorch_bytes,
                                 pickle_objects, torch_pickle, write_torch_records, write_torch_zip)

__all__ = ["save", "load", "CheckpointError", "WeightsOnlyLoadError", "CheckpointNotFoundError", "SaveDirectoryNotFoundError", "add_safe_globals", "clear_safe_globals",
           "get_safe_globals", "safe_globals", "default_format"]

PathLike = Union[str, "os.PathLike[str]"]
_META_KEY = "glassgrad"             # safetensors metadata entry
_NPZ_META = "__glassgrad__"          # npz member holding the JSON
_FORMAT_TAG = "glassgrad-checkpoint"
_VERSION = 1
_MAX_DEPTH = 100                     # nesting of the saved tree (deeper: refused on save and load)


class CheckpointError(_C.GlassgradError, RuntimeError):
    """A checkpoint could not be read (damaged, truncated, foreign or hostile) or written; also a
    RuntimeError, what torch.load raises for a file or map_location it cannot serve, so a ported
    script's `except RuntimeError` catches it (docs/save-and-resume.md)."""

    __module__ = "glassgrad"


class WeightsOnlyLoadError(CheckpointError, pickle.UnpicklingError):
    """load(f) with weights_only=True (the default) met a class or function not allowlisted; a
    pickle.UnpicklingError, as torch.load raises ('Weights only load failed. ...'), which scripts
    catch to retry with weights_only=False."""

    __module__ = "glassgrad"


class CheckpointNotFoundError(CheckpointError, FileNotFoundError):
    """The checkpoint file (or the directory to save it in) does not exist."""

    __module__ = "glassgrad"


class SaveDirectoryNotFoundError(CheckpointNotFoundError, RuntimeError):
    """The directory to save a checkpoint in does not exist; also a RuntimeError, as torch.save
    raises one ("Parent directory ... does not exist.") and scripts catch it."""

    __module__ = "glassgrad"


class CheckpointIOError(CheckpointError, OSError):
    """The operating system refused to read the checkpoint (a directory, no permission, ...)."""

    __module__ = "glassgrad"


class MissingDependencyError(CheckpointError, ImportError):
    """Reading or writing this format needs a package that is not installed."""

    __module__ = "glassgrad"


def _have_safetensors() -> bool:
    try:
        import safetensors.numpy  # noqa: F401
    except ImportError:
        return False
    return True


def default_format() -> str:
    """"safetensors" when the safetensors package is installed, else "npz"."""
    return "safetensors" if _have_safetensors() else "npz"


# ---- the tree <-> (JSON, arrays) --------------------------------------------------------------
def _is_tensor(x) -> bool:
    from ._tensor import Tensor
    return isinstance(x, Tensor)


# the types a plain tree keeps as they are; an instance of a subclass of these (a Parameter, a
# Size, a dtype, a device, a namedtuple, a defaultdict) would lose its type in the tree
_PLAIN_TYPES = (dict, collections.OrderedDict, list, tuple, str, int, float, bool, type(None))


def _holds_typed(obj) -> bool:
    """Whether obj or a value in it has a type the plain tree loses: save pickles such an object
    whole (the 'objects' format), so that load gives back a Parameter, a glassgrad.Size, a
    glassgrad.dtype or a device, as torch.load does after torch.save."""
    from ._tensor import Tensor
    stack, seen = [obj], set()
    while stack:
        x = stack.pop()
        if id(x) in seen or isinstance(x, (np.ndarray, np.generic)):
            continue
        seen.add(id(x))
        if isinstance(x, Tensor):
            if type(x) is not Tensor or x.__dict__:  # a subclass, or attributes set on the tensor
                return True
        elif type(x) not in _PLAIN_TYPES:
            return isinstance(x, _PLAIN_TYPES)  # anything else: _plain names it
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
    return False


def _refuse(obj, where: str):
    from .nn.module import Module
    from .optim.optimizer import Optimizer
    what = type(obj).__name__
    if isinstance(obj, Module):
        raise TypeError(f"glassgrad.save: {where} is a model ({what}); glassgrad saves its state, not the object\n"
                        f"  fix: glassgrad.save({{'model': model.state_dict()}}, path), and later "
                        f"model.load_state_dict(glassgrad.load(path)['model'])")
    if isinstance(obj, Optimizer):
        raise TypeError(f"glassgrad.save: {where} is an optimizer ({what}); save its state_dict()\n"
                        f"  fix: glassgrad.save({{'optimizer': optimizer.state_dict()}}, path)")
    raise TypeError(f"glassgrad.save: {where} is a {what}, which a checkpoint cannot hold\n"
                    f"  a checkpoint holds dicts, lists, tuples, NumPy arrays, glassgrad Tensors, int, float, "
                    f"str, bool and None\n  fix: convert it, e.g. np.asarray(x) or str(x)")


def _storable(name: str) -> bool:
    """Whether both formats can hold `name` as a member name unchanged (zip drops what follows a
    NUL, reads a backslash as a separator on Windows and a trailing "/" as a directory)."""
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:  # lone surrogates
        return False
    return 0 < size <= 4096 and "\0" not in name and "\\" not in name and not name.endswith("/")


def _member_name(path: Tuple, arrays: Dict[str, np.ndarray]) -> str:
    """The name an array is stored under: its path in the tree joined by "/" (readable by other
    tools), made unique; a path no format can hold as a name gets a numbered one. The tree maps
    names back, so any key round-trips."""
    name = "/".join(str(p) for p in path) or "array"
    if not _storable(name):
        name = f"#{len(arrays)}"
    base, n = name, 1
    while name in arrays or name == _NPZ_META:
        name, n = f"{base}#{n}", n + 1
    return name


def _plain(obj, path: Tuple = (), seen: Optional[Dict[int, SavedTensor]] = None):
    """`obj` with every tensor a SavedTensor, every NumPy scalar a NumPy array, every dict a dict
    (OrderedDicts stay OrderedDicts) and every list and tuple a list and tuple, after checking
    that it holds only what a checkpoint can: TypeError naming the entry otherwise. A tensor
    that occurs more than once becomes one SavedTensor (`seen`, by the tensor's id: the tree is
    alive while it is saved), which the torch format writes once and refers to again, so load()
    gives one tensor back, as torch.load does."""
    seen = {} if seen is None else seen
    where = "the object" if not path else "entry " + "/".join(str(p) for p in path)
    if len(path) > _MAX_DEPTH:
        raise TypeError(f"glassgrad.save: {where} is nested more than {_MAX_DEPTH} levels deep (a tree that "
                        f"contains itself?)\n  fix: save a flatter structure")
    from ._tensor import BFLOAT16_BITS, stored_array
    if _is_tensor(obj):
        if id(obj) not in seen:
            seen[id(obj)] = SavedTensor(np.array(stored_array(obj), order="C"), str(obj.device), obj)
        return seen[id(obj)]
    if isinstance(obj, (np.ndarray, np.generic)):
        arr = np.array(obj, order="C")  # a C-ordered copy; keeps 0-d arrays 0-d (ascontiguousarray would not)
        if arr.dtype.kind not in "biuf" and arr.dtype != BFLOAT16_BITS:
            raise TypeError(f"glassgrad.save: {where} is a NumPy array of dtype {arr.dtype}; checkpoints hold "
                            f"numbers and booleans\n  fix: convert it to a numeric dtype or to a str")
        return arr
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, dict):
        out = collections.OrderedDict() if isinstance(obj, collections.OrderedDict) else {}
        for k, v in obj.items():
            if isinstance(k, bool) or not isinstance(k, (str, int)):
                raise TypeError(f"glassgrad.save: {where} has a key {k!r} of type {type(k).__name__}; "
                                f"dict keys must be str or int\n  fix: use str(key)")
            out[k] = _plain(v, path + (k,), seen)
        return out
    if isinstance(obj, (list, tuple)):
        items = [_plain(v, path + (i,), seen) for i, v in enumerate(obj)]
        return items if isinstance(obj, list) else tuple(items)
    _refuse(obj, where)


def _encode(obj, path: Tuple, arrays: Dict[str, np.ndarray]):
    """The JSON tree of a _plain tree for the safetensors and npz formats; its arrays go into
    `arrays` under their member names. A tensor's node records its device, and "bfloat16" for a
    bfloat16 tensor, whose values are stored widened to float32 (exactly: these formats have no
    bfloat16 that NumPy reads)."""
    if isinstance(obj, (np.ndarray, SavedTensor)):
        from ._tensor import BFLOAT16_BITS
        arr = obj.array if isinstance(obj, SavedTensor) else obj
        name = _member_name(path, arrays)
        bf16 = arr.dtype == BFLOAT16_BITS
        arrays[name] = (arr.view("<u2").astype(np.uint32) << 16).view(np.float32) if bf16 else arr
        if isinstance(obj, np.ndarray):
            return {"t": "array", "k": name}
        return {"t": "tensor", "k": name, "device": obj.location, **({"dtype": "bfloat16"} if bf16 else {})}
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return {"t": "value", "v": obj}
    if isinstance(obj, dict):
        return {"t": "dict", "items": [[k, _encode(v, path + (k,), arrays)] for k, v in obj.items()]}
    return {"t": "list" if isinstance(obj, list) else "tuple",
            "items": [_encode(v, path + (i,), arrays) for i, v in enumerate(obj)]}


class _Damaged(Exception):
    """Internal: what is wrong with a file's metadata, turned into a CheckpointError by load()."""


def _decode(node, arrays: Dict[str, np.ndarray], where: str = "", depth: int = 0, map_location=None):
    """The tree _encode made, checked node by node: a damaged or hostile file raises _Damaged
    naming the entry, never an AttributeError, KeyError, TypeError or RecursionError. Tensors
    are placed by map_location (as torch.load's)."""
    at = f" at {where}" if where else " at the top"
    if depth > _MAX_DEPTH:
        raise _Damaged(f"the tree is nested more than {_MAX_DEPTH} levels deep{at}")
    if not isinstance(node, dict):
        raise _Damaged(f"an entry{at} is a {type(node).__name__}, not an object")
    t = node.get("t")
    if t in ("array", "tensor"):
        k = node.get("k")
        if not isinstance(k, str):
            raise _Damaged(f"the {t} entry{at} has no name")
        if k not in arrays:
            raise _Damaged(f"the checkpoint names an array '{k}'{at} that the file does not hold")
        if t == "array":
            return arrays[k]
        device, dtype = node.get("device", "cpu"), node.get("dtype")
        if not isinstance(device, str) or dtype not in (None, "bfloat16"):
            raise _Damaged(f"the tensor entry{at} has a device {device!r} or dtype {dtype!r} glassgrad does not know")
        from ._checkpoint_objects import tensor_of
        return tensor_of(arrays[k], device, map_location, dtype=dtype)
    if t == "value":
        v = node.get("v")
        if v is not None and not isinstance(v, (bool, int, float, str)):
            raise _Damaged(f"the value{at} is a {type(v).__name__}")
        return v
    items = node.get("items")
    if t not in ("dict", "list", "tuple"):
        raise _Damaged(f"unknown entry type {t!r}{at}")
    if not isinstance(items, list):
        raise _Damaged(f"the {t}{at} has no list of items")
    if t == "dict":
        out = {}
        for item in items:
            if not (isinstance(item, list) and len(item) == 2):
                raise _Damaged(f"a dict item{at} is not a [key, value] pair")
            k, v = item
            if isinstance(k, bool) or not isinstance(k, (str, int)):
                raise _Damaged(f"a dict key{at} is a {type(k).__name__}, not a str or int")
            out[k] = _decode(v, arrays, f"{where}/{k}" if where else str(k), depth + 1, map_location)
        return out
    values = [_decode(v, arrays, f"{where}/{i}" if where else str(i), depth + 1, map_location)
              for i, v in enumerate(items)]
    return values if t == "list" else tuple(values)


def _crc32(arr: np.ndarray) -> int:
    return zlib.crc32(np.ascontiguousarray(arr).view(np.uint8).reshape(-1)) if arr.size else 0


# ---- writing --------------------------------------------------------------------------------
def _write_safetensors(f, arrays: Dict[str, np.ndarray], meta: str) -> None:
    from safetensors.numpy import save as st_save
    f.write(st_save(arrays, metadata={_META_KEY: meta}))


def _write_npz(f, arrays: Dict[str, np.ndarray], meta: str) -> None:
    """An .npz archive (what np.load reads), written member by member: np.savez takes the names
    as keyword arguments, so an array named "file" or "allow_pickle" broke the save."""
    with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as z:
        for name, arr in [(_NPZ_META, np.array(meta))] + list(arrays.items()):
            with z.open(name + ".npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asarray(arr), allow_pickle=False)


def _pid_alive(pid: int) -> bool:
    if os.name != "posix":
        return True  # no safe probe: only age decides (below)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. PermissionError: another user's live process
        return True
    return True


_STALE_AGE = 3600.0  # seconds: a temporary this old is stale whoever made it


def _remove_stale_temporaries(path: str) -> None:
    """Removes the temporaries a killed save of `path` left: ".<name>.<pid>-<random>.tmp" whose
    process is gone (or that are older than an hour; also the older ".<name>.<random>.tmp")."""
    directory, base = os.path.split(os.path.abspath(path))
    prefix = "." + base + "."
    try:
        names = os.listdir(directory)
    except OSError:
        return
    now = time.time()
    for name in names:
        if not (name.startswith(prefix) and name.endswith(".tmp")):
            continue
        middle = name[len(prefix):-len(".tmp")]
        pid_text, _, rest = middle.partition("-")
        full = os.path.join(directory, name)
        try:
            st = os.lstat(full)
            if not os.path.isfile(full) or os.path.islink(full):
                continue
            mine = pid_text.isdigit() and rest and int(pid_text) == os.getpid()
            dead = pid_text.isdigit() and rest and not mine and not _pid_alive(int(pid_text))
            if dead or (not mine and now - st.st_mtime > _STALE_AGE):
                os.unlink(full)
        except OSError:
            continue  # gone meanwhile, or not ours to remove


def _atomic_write(path: str, write: Callable[[io.BufferedWriter], None]) -> None:
    """write(f) into a temporary file next to `path`, fsync it, then os.replace it onto `path`."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        given = os.path.dirname(os.fspath(path)) or directory
        raise SaveDirectoryNotFoundError(f"Parent directory {given} does not exist.\n"
                                         f"  glassgrad.save: the directory {directory} does not exist\n"
                                         f"  fix: os.makedirs({directory!r}, exist_ok=True) before saving")
    _remove_stale_temporaries(path)
    # The writer's pid in the name: the next save or load can tell a killed save's leftover
    # from a save running now in another process.
    tmp = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # created 0600 while written; give the file the usual permissions
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    # Make the rename itself durable (POSIX: the directory entry lives in the directory's data).
    with contextlib.suppress(OSError, AttributeError):
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


_FORMATS = ("torch", "safetensors", "npz")


def _writer(tree, fmt: str, archive: str) -> Callable[[Any], None]:
    if fmt == "torch":
        return lambda f: write_torch_zip(f, tree, archive, _MAX_DEPTH)
    arrays: Dict[str, np.ndarray] = {}
    encoded = _encode(tree, (), arrays)
    meta = json.dumps({"format": _FORMAT_TAG, "version": _VERSION, "tree": encoded,
                       "crc32": {name: _crc32(arr) for name, arr in arrays.items()}})
    write = _write_safetensors if fmt == "safetensors" else _write_npz
    return lambda f: write(f, arrays, meta)


def save(obj: Any, f, format: Optional[str] = None, **torch_save_args) -> None:
    """Saves a tree of arrays, tensors and plain values to `f` (a path: atomically, see the module
    doc; or a binary file object), as torch.save(obj, f) does.

    format: "torch" (PyTorch's zip format), "safetensors", "npz", or None: "torch" when every
    array's dtype is one PyTorch stores, else default_format(). torch.save's pickle_module and
    pickle_protocol arguments are accepted and change nothing (nothing is pickled by Python)."""
    unknown = set(torch_save_args) - {"pickle_module", "pickle_protocol", "_use_new_zipfile_serialization",
                                      "_disable_byteorder_record"}
    if unknown:
        raise TypeError(f"glassgrad.save() got an unexpected keyword argument '{sorted(unknown)[0]}'")
    fmt = None if format is None else str(format).lower()
    if fmt is not None and fmt not in _FORMATS:
        raise ValueError(f"glassgrad.save: format must be 'torch', 'safetensors' or 'npz', got {format!r}")
    if fmt == "safetensors" and not _have_safetensors():
        raise MissingDependencyError("glassgrad.save: format='safetensors' needs the safetensors package\n"
                                     "  fix: python3 -m pip install safetensors, or pass format='npz'")
    try:
        if fmt in (None, "torch") and _holds_typed(obj):
            raise TypeError("kept whole")
        seen: Dict[int, SavedTensor] = {}
        tree = _plain(obj, seen=seen)
        link_views(seen.values())  # views of one buffer: one storage in the torch format
    except TypeError:
        if fmt not in (None, "torch"):
            raise
        tree, fmt = None, "objects"  # a whole model, a set, a tuple key: pickled, as torch.save does
    is_path = isinstance(f, (str, bytes, os.PathLike))
    archive = os.path.splitext(os.path.basename(os.fsdecode(f)))[0] if is_path else "archive"
    archive = archive if archive and archive.isascii() and "/" not in archive else "archive"
    if fmt == "objects":
        pkl, storages = pickle_objects(obj)  # before any byte is written: a failure leaves f untouched
        write = lambda f: write_torch_records(f, pkl, storages, archive, OBJECTS_RECORD)  # noqa: E731
    elif fmt in (None, "torch"):
        try:
            torch_pickle(tree, _MAX_DEPTH)  # fits the torch format?
            fmt = "torch"
        except NotTorchSavable as e:
            if fmt == "torch":
                raise TypeError(f"glassgrad.save: format='torch' cannot hold {e}: PyTorch has no storage for it\n"
                                f"  fix: convert it (e.g. .astype(np.int64)), or pass format='npz'") from None
            fmt = default_format()
    if fmt != "objects":
        write = _writer(tree, fmt, archive)
    if is_path:
        _atomic_write(os.fsdecode(f), write)
    elif callable(getattr(f, "seekable", None)) and f.seekable() and f.tell() == 0:
        write(f)
    else:  # a stream: the zip writer wants to seek, so the file is made in memory first
        buf = io.BytesIO()
        write(buf)
        f.write(buf.getvalue())


# ---- reading --------------------------------------------------------------------------------
def _json(text, what: str):
    try:
        return json.loads(text)
    except RecursionError:
        raise _Damaged(f"the {what} is nested too deeply to be a checkpoint's") from None
    except (ValueError, TypeError) as e:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise _Damaged(f"the {what} is not valid JSON ({e})") from None


def _read_safetensors(path: str, raw: bytes) -> Tuple[Dict[str, np.ndarray], Optional[str]]:
    n = int.from_bytes(raw[:8], "little")
    header = _json(raw[8:8 + n], "safetensors header")
    if not isinstance(header, dict):
        raise _Damaged("the safetensors header is not a JSON object")
    metadata = header.get("__metadata__") or {}
    if not isinstance(metadata, dict):
        raise _Damaged("the safetensors metadata is not a JSON object")
    meta = metadata.get(_META_KEY)
    if meta is not None and not isinstance(meta, str):
        raise _Damaged(f"the safetensors metadata entry '{_META_KEY}' is not a string")
    try:
        from safetensors.numpy import load as st_load
    except ImportError:
        raise MissingDependencyError(f"glassgrad.load: {path} is a safetensors file and the safetensors package is "
                                     f"not installed\n  fix: python3 -m pip install safetensors") from None
    try:
        arrays = st_load(raw)
    except Exception as e:  # safetensors raises its own error types for damaged files
        raise _Damaged(f"cannot read the safetensors data ({e})\n  cause: a truncated or damaged file") from None
    return dict(arrays), meta


def _read_npy(member, info: zipfile.ZipInfo) -> np.ndarray:
    """One .npy member. The header's shape and dtype must account for exactly the member's bytes
    before anything is allocated: a hostile header cannot make glassgrad allocate more than the
    file holds, and object dtypes (pickles) are refused."""
    version = np.lib.format.read_magic(member)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(member)
    elif version == (2, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(member)
    else:
        raise _Damaged(f"the member '{info.filename}' is .npy format version {version}, which glassgrad does not read")
    if dtype.hasobject:
        raise _Damaged(f"the member '{info.filename}' holds Python objects ({dtype}); checkpoints hold numbers "
                       f"(nothing is unpickled)")
    count = 1
    for d in shape:
        count *= int(d)
    want = count * dtype.itemsize
    have = info.file_size - member.tell()
    if want != have:
        raise _Damaged(f"the member '{info.filename}' declares {list(shape)} {dtype} ({want} bytes) but holds "
                       f"{have} bytes")
    data = member.read(want)
    if len(data) != want:
        raise _Damaged(f"the member '{info.filename}' is truncated")
    arr = np.frombuffer(data, dtype=dtype, count=count)
    return arr.reshape(shape, order="F" if fortran else "C").copy(order="K")


def _read_npz(path: str, raw: bytes) -> Tuple[Dict[str, np.ndarray], Optional[str]]:
    """Each member "<name>.npy" of the archive as arrays[<name>] (never unpickled): read member by
    member, so names are exact (np.load's lookup mixes "a" and "a.npy")."""
    arrays = {}
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as z:
            for info in z.infolist():
                if info.is_dir():
                    continue
                name = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
                with z.open(info) as member:
                    arrays[name] = _read_npy(member, info)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError, MemoryError,
            NotImplementedError, KeyError, RuntimeError) as e:
        raise _Damaged(f"cannot read it as an .npz archive ({type(e).__name__}: {e})\n"
                       f"  cause: a truncated or damaged file") from None
    meta = arrays.pop(_NPZ_META, None)
    if meta is not None and (meta.dtype.kind != "U" or meta.shape != ()):
        raise _Damaged(f"the member '{_NPZ_META}' does not hold the checkpoint's metadata")
    return arrays, (None if meta is None else str(meta[()]))


def _looks_like_safetensors(raw: bytes) -> bool:
    if len(raw) < 10:
        return False
    n = int.from_bytes(raw[:8], "little")
    return 0 < n <= len(raw) - 8 and raw[8:9] == b"{"


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError as e:
        # torch.load's open() message first, and its errno (scripts test e.errno); a filename or
        # strerror set here would make OSError's str() drop the rest of the message
        missing = CheckpointNotFoundError(f"[Errno 2] No such file or directory: {path!r}\n"
                                          f"  glassgrad.load: {path} does not exist\n"
                                          f"  fix: check the path (the working directory is {os.getcwd()})")
        missing.errno = e.errno
        raise missing from None
    except OSError as e:
        raise CheckpointIOError(f"glassgrad.load: cannot read {path}: {e.strerror or e}") from None


def _is_torch_file(raw: bytes) -> bool:
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as z:
            return is_torch_zip(z)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError):
        return False


def _tree(path: str, raw: bytes, weights_only: bool = True, map_location=None) -> Any:
    if raw[:4] == b"PK\x03\x04" and _is_torch_file(raw):
        return load_pytorch_bytes(raw, path, weights_only, map_location)
    if is_legacy(raw):
        return load_legacy_bytes(raw, path, weights_only, map_location)
    if raw[:4] == b"PK\x03\x04":
        arrays, meta = _read_npz(path, raw)
    elif _looks_like_safetensors(raw):
        arrays, meta = _read_safetensors(path, raw)
    else:
        bare = raw[:2] in (b"\x80\x02", b"\x80\x04", b"\x80\x05")
        raise _Damaged(f"not a glassgrad checkpoint (first bytes {raw[:8].hex(' ') or 'none: the file is empty'})\n"
                       f"  expected: a torch.save file (zip, or the format before PyTorch 1.6), a safetensors file "
                       f"or an .npz (zip) archive\n"
                       + ("  cause: a bare pickle (pickle.dump's, not torch.save's), which runs code when read and "
                          "is not read here\n  fix: save the object with torch.save(obj, path)" if bare else
                          "  cause: an empty, truncated or foreign file"))
    if meta is None:
        return arrays
    doc = _json(meta, "checkpoint's metadata")
    if not isinstance(doc, dict):
        raise _Damaged("the checkpoint's metadata is not a JSON object")
    if doc.get("format") != _FORMAT_TAG or "tree" not in doc:
        raise _Damaged(f"unexpected metadata (format {doc.get('format')!r})")
    version = doc.get("version", 0)
    if isinstance(version, bool) or not isinstance(version, int):
        raise _Damaged(f"the checkpoint version {version!r} is not a number")
    if version > _VERSION:
        raise CheckpointError(f"{path}: written by a newer glassgrad (checkpoint version {version}, this one reads "
                              f"up to {_VERSION})\n  fix: upgrade glassgrad")
    checksums = doc.get("crc32", {})
    if not isinstance(checksums, dict):
        raise _Damaged("the checksums are not a JSON object")
    for name, want in checksums.items():
        if name not in arrays:
            raise _Damaged(f"the checkpoint names an array '{name}' that the file does not hold")
        if _crc32(arrays[name]) != want:
            raise _Damaged(f"the array '{name}' {list(arrays[name].shape)} {arrays[name].dtype} does not match its "
                           f"checksum: its bytes were changed after saving\n  cause: a damaged disk or copy, or a "
                           f"file edited by another program")
    return _decode(doc["tree"], arrays, map_location=map_location)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args) -> Any:
    """Reads a checkpoint (a path or a binary file object) written by save() in any format, by an
    earlier glassgrad, or by torch.save (its zip format), and returns its tree as torch.load
    does: tensors as glassgrad Tensors of their saved dtypes, placed by map_location (None: where
    they were saved; a device or string; a {saved: new} dict; a function of (storage, location)),
    Parameters as Parameters, and the NumPy arrays save() was given as NumPy arrays. A
    safetensors or npz file from elsewhere comes back as a flat {name: array} dict.

    A file of whole objects (save(model, f)) comes back with glassgrad Tensors and Parameters
    placed the same way. Its classes
    follow torch.load's rules: weights_only=True (the default, None) constructs only those
    allowlisted with serialization.safe_globals / add_safe_globals; weights_only=False also
    glassgrad's layers, optimizers and schedulers and subclasses of them already imported (a
    model class of the running script). No other code is ever run from a file. Any failure raises
    a CheckpointError (a GlassgradError) naming the file and what is wrong."""
    if isinstance(f, (str, bytes, os.PathLike)):
        path = os.fsdecode(f)
        _remove_stale_temporaries(path)
        raw = _read(path)
    elif callable(getattr(f, "read", None)):
        if mmap:  # PyTorch maps a file by its path only
            raise ValueError("f must be a file path in order to use the mmap argument\n  glassgrad.load: got a "
                             f"{type(f).__name__}\n  fix: glassgrad.load(path, mmap=True), or drop mmap=True")
        path = str(getattr(f, "name", "<file object>"))
        raw = f.read()
        if not isinstance(raw, (bytes, bytearray)):
            raise CheckpointError(f"glassgrad.load: {path} is open in text mode\n  fix: open(path, 'rb')")
        raw = bytes(raw)
    else:
        raise TypeError(f"glassgrad.load: expected a path or a binary file object, got {type(f).__name__}")
    if weights_only is not None and not isinstance(weights_only, bool):
        raise TypeError(f"glassgrad.load: weights_only must be True, False or None, got {weights_only!r}")
    try:
        return _tree(path, raw, weights_only is not False, map_location)
    except _Damaged as e:
        raise CheckpointError(f"{path}: {e}") from None
