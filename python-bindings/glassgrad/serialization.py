"""glassgrad.save / glassgrad.load: checkpoints of model and optimizer state.

    glassgrad.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": 1000},
                   "checkpoint.gg")
    ckpt = glassgrad.load("checkpoint.gg")
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])

What can be saved: a tree of dicts (str or int keys), lists and tuples whose leaves are NumPy
arrays, glassgrad Tensors, NumPy scalars and plain Python values (int, float, str, bool, None).
load() returns the same tree, with every array and tensor as a NumPy array (load_state_dict and
glassgrad.tensor take those).

The file: the arrays go into a safetensors file when the `safetensors` package is installed,
otherwise into a NumPy .npz archive (format="safetensors" or "npz" chooses). The tree's shape
and the plain values are stored as JSON next to them (safetensors metadata "glassgrad", or the
npz member "__glassgrad__"). Each array is stored under its path in the tree joined by "/", e.g.
"model/conv1.weight" or "optimizer/state/0/exp_avg", so other tools can read the arrays too.
load() recognizes the format from the file's first bytes, not from its name; a safetensors or
npz file written by another program comes back as a flat {name: array} dict. Nothing is ever
unpickled.

Crash safety: save() writes into a temporary file in the checkpoint's directory, flushes it to
disk (fsync), then renames it over the target with os.replace, which is atomic on POSIX and
Windows. A crash or an error while writing leaves the previous checkpoint untouched and no
half-written file under the checkpoint's name; the temporary file is removed on errors.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
import zipfile
from typing import Any, Callable, Dict, Optional, Tuple, Union

import numpy as np

from . import _C

PathLike = Union[str, "os.PathLike[str]"]
_META_KEY = "glassgrad"             # safetensors metadata entry
_NPZ_META = "__glassgrad__"          # npz member holding the JSON
_FORMAT_TAG = "glassgrad-checkpoint"
_VERSION = 1


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


def _encode(obj, path: Tuple, arrays: Dict[str, np.ndarray]):
    where = "the object" if not path else "entry " + "/".join(str(p) for p in path)
    if _is_tensor(obj):
        obj = obj.numpy()
    if isinstance(obj, (np.ndarray, np.generic)):
        arr = np.array(obj, order="C")  # a C-ordered copy; keeps 0-d arrays 0-d (ascontiguousarray would not)
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"glassgrad.save: {where} is a NumPy array of dtype {arr.dtype}; checkpoints hold "
                            f"numbers and booleans\n  fix: convert it to a numeric dtype or to a str")
        name = "/".join(str(p) for p in path) or "array"
        base, n = name, 1
        while name in arrays or name == _NPZ_META:
            name, n = f"{base}#{n}", n + 1
        arrays[name] = arr
        return {"t": "array", "k": name}
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return {"t": "value", "v": obj}
    if isinstance(obj, dict):
        items = []
        for k, v in obj.items():
            if isinstance(k, bool) or not isinstance(k, (str, int)):
                raise TypeError(f"glassgrad.save: {where} has a key {k!r} of type {type(k).__name__}; "
                                f"dict keys must be str or int\n  fix: use str(key)")
            items.append([k, _encode(v, path + (k,), arrays)])
        return {"t": "dict", "items": items}
    if isinstance(obj, (list, tuple)):
        return {"t": "list" if isinstance(obj, list) else "tuple",
                "items": [_encode(v, path + (i,), arrays) for i, v in enumerate(obj)]}
    _refuse(obj, where)


def _decode(node, arrays: Dict[str, np.ndarray], path: str):
    t = node.get("t")
    if t == "array":
        if node["k"] not in arrays:
            raise _C.GlassgradError(f"{path}: the checkpoint names an array '{node['k']}' that the file does not "
                                    f"hold\n  cause: a damaged file, or one edited by another program")
        return arrays[node["k"]]
    if t == "value":
        return node["v"]
    if t == "dict":
        return {k: _decode(v, arrays, path) for k, v in node["items"]}
    if t in ("list", "tuple"):
        items = [_decode(v, arrays, path) for v in node["items"]]
        return items if t == "list" else tuple(items)
    raise _C.GlassgradError(f"{path}: unknown entry type {t!r} in the checkpoint's metadata")


# ---- writing --------------------------------------------------------------------------------
def _write_safetensors(f, arrays: Dict[str, np.ndarray], meta: str) -> None:
    from safetensors.numpy import save as st_save
    f.write(st_save(arrays, metadata={_META_KEY: meta}))


def _write_npz(f, arrays: Dict[str, np.ndarray], meta: str) -> None:
    np.savez(f, **{_NPZ_META: np.array(meta)}, **arrays)


def _atomic_write(path: str, write: Callable[[io.BufferedWriter], None]) -> None:
    """write(f) into a temporary file next to `path`, fsync it, then os.replace it onto `path`."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise FileNotFoundError(f"glassgrad.save: the directory {directory} does not exist\n"
                                f"  fix: os.makedirs({directory!r}, exist_ok=True) before saving")
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give the file the usual permissions
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


def save(obj: Any, path: PathLike, format: Optional[str] = None) -> None:  # noqa: A002
    """Saves a tree of arrays, tensors and plain values to `path`, atomically (see the module doc).

    format: "safetensors", "npz", or None for default_format()."""
    fmt = default_format() if format is None else str(format).lower()
    if fmt not in ("safetensors", "npz"):
        raise ValueError(f"glassgrad.save: format must be 'safetensors' or 'npz', got {format!r}")
    if fmt == "safetensors" and not _have_safetensors():
        raise ImportError("glassgrad.save: format='safetensors' needs the safetensors package\n"
                          "  fix: python3 -m pip install safetensors, or pass format='npz'")
    arrays: Dict[str, np.ndarray] = {}
    tree = _encode(obj, (), arrays)
    meta = json.dumps({"format": _FORMAT_TAG, "version": _VERSION, "tree": tree})
    writer = _write_safetensors if fmt == "safetensors" else _write_npz
    _atomic_write(os.fspath(path), lambda f: writer(f, arrays, meta))


# ---- reading --------------------------------------------------------------------------------
def _read_safetensors(path: str, raw: bytes) -> Tuple[Dict[str, np.ndarray], Optional[str]]:
    n = int.from_bytes(raw[:8], "little")
    try:
        header = json.loads(raw[8:8 + n])
    except ValueError as e:
        raise _C.GlassgradError(f"{path}: the safetensors header is not valid JSON ({e})\n"
                                f"  cause: a truncated or damaged file") from None
    meta = (header.get("__metadata__") or {}).get(_META_KEY)
    try:
        from safetensors.numpy import load as st_load
    except ImportError:
        raise ImportError(f"glassgrad.load: {path} is a safetensors file and the safetensors package is not "
                          f"installed\n  fix: python3 -m pip install safetensors") from None
    try:
        arrays = st_load(raw)
    except Exception as e:  # safetensors raises its own error type for damaged files
        raise _C.GlassgradError(f"{path}: cannot read the safetensors data ({e})\n"
                                f"  cause: a truncated or damaged file") from None
    return dict(arrays), meta


def _read_npz(path: str, raw: bytes) -> Tuple[Dict[str, np.ndarray], Optional[str]]:
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as e:
        raise _C.GlassgradError(f"{path}: cannot read it as an .npz archive ({e})\n"
                                f"  cause: a truncated or damaged file") from None
    meta = arrays.pop(_NPZ_META, None)
    return arrays, (None if meta is None else str(meta[()]))


def _looks_like_safetensors(raw: bytes) -> bool:
    if len(raw) < 10:
        return False
    n = int.from_bytes(raw[:8], "little")
    return 0 < n <= len(raw) - 8 and raw[8:9] == b"{"


def load(path: PathLike) -> Any:
    """Reads a checkpoint written by save() (either format) and returns its tree, arrays as NumPy
    arrays. A safetensors or npz file from elsewhere comes back as a flat {name: array} dict."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:4] == b"PK\x03\x04":
        arrays, meta = _read_npz(path, raw)
    elif _looks_like_safetensors(raw):
        arrays, meta = _read_safetensors(path, raw)
    else:
        raise _C.GlassgradError(f"{path}: not a glassgrad checkpoint (first bytes {raw[:8].hex(' ')})\n"
                                f"  expected: a safetensors file or an .npz (zip) archive, as glassgrad.save writes\n"
                                f"  cause: an empty, truncated or foreign file (torch.save's pickles are not read)")
    if meta is None:
        return arrays
    try:
        doc = json.loads(meta)
    except ValueError as e:
        raise _C.GlassgradError(f"{path}: the checkpoint's metadata is not valid JSON ({e})") from None
    if doc.get("format") != _FORMAT_TAG or "tree" not in doc:
        raise _C.GlassgradError(f"{path}: unexpected metadata (format {doc.get('format')!r})")
    if int(doc.get("version", 0)) > _VERSION:
        raise _C.GlassgradError(f"{path}: written by a newer glassgrad (checkpoint version {doc['version']}, this "
                                f"one reads up to {_VERSION})\n  fix: upgrade glassgrad")
    return _decode(doc["tree"], arrays, path)
