"""The IDX file format of MNIST and Fashion-MNIST, plain or gzip-compressed.

Layout (all integers big-endian):

    bytes 0-1   0x00 0x00
    byte  2     element type: 0x08 uint8, 0x09 int8, 0x0B int16, 0x0C int32, 0x0D float32, 0x0E float64
    byte  3     number of dimensions d (>= 1)
    4 * d       the sizes, one uint32 each, outermost first
    rest        prod(sizes) elements, row-major, big-endian

So train-images-idx3-ubyte starts with 00 00 08 03 (magic 2051) and train-labels-idx1-ubyte
with 00 00 08 01 (magic 2049). A file is read as gzip when it starts with gzip's magic bytes
(1f 8b), whatever its name.
"""
from __future__ import annotations

import gzip
import math
import os
import struct
import zlib
from typing import Union

import numpy as np

from .errors import DataFormatError

PathLike = Union[str, "os.PathLike[str]"]


class SplitsAsDatasets:
    """train_set and test_set of a NamedTuple of x_train, y_train, x_test, y_test: the same
    arrays as TensorDatasets of glassgrad.utils.data, for its DataLoader."""

    __slots__ = ()

    @property
    def train_set(self):
        from ..utils.data import TensorDataset
        return TensorDataset(self.x_train, self.y_train)

    @property
    def test_set(self):
        from ..utils.data import TensorDataset
        return TensorDataset(self.x_test, self.y_test)

# IDX type code -> big-endian NumPy dtype.
IDX_DTYPES = {
    0x08: np.dtype(">u1"),
    0x09: np.dtype(">i1"),
    0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"),
    0x0D: np.dtype(">f4"),
    0x0E: np.dtype(">f8"),
}
_CODE_OF = {np.dtype(v).newbyteorder("=").str[1:]: k for k, v in IDX_DTYPES.items()}
_GZIP_MAGIC = b"\x1f\x8b"


def _read_bytes(path: str) -> bytes:
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] != _GZIP_MAGIC:
        return raw
    try:
        return gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as e:
        raise DataFormatError(
            f"{path}: the file starts like gzip but cannot be decompressed ({e})\n"
            f"  cause: the file is truncated or damaged (an interrupted copy or download)\n"
            f"  fix: get the file again, or check it with: gzip -t {path}") from None


def read_idx(path: PathLike) -> np.ndarray:
    """Reads an IDX file (plain or .gz) into a NumPy array in native byte order.

    Raises DataFormatError naming the file when the magic number, the type code, the number
    of dimensions or the file size is wrong, and FileNotFoundError when it does not exist."""
    path = os.fspath(path)
    data = _read_bytes(path)
    if len(data) < 4:
        raise DataFormatError(f"{path}: {len(data)} bytes is too short for an IDX file "
                              f"(the header alone is at least 8 bytes)\n"
                              f"  cause: an empty or truncated file")
    zero, code, ndim = data[:2], data[2], data[3]
    magic = int.from_bytes(data[:4], "big")
    if zero != b"\x00\x00" or code not in IDX_DTYPES:
        raise DataFormatError(
            f"{path}: not an IDX file: magic number 0x{magic:08X} (bytes {data[:4].hex(' ')})\n"
            f"  expected: 00 00 <type> <ndim>, e.g. 00 00 08 03 (2051) for images, "
            f"00 00 08 01 (2049) for labels\n"
            f"  cause: a different file under this name, or an HTML error page saved by a failed download")
    if ndim == 0:
        raise DataFormatError(f"{path}: IDX header declares 0 dimensions (magic 0x{magic:08X})")
    header = 4 + 4 * ndim
    if len(data) < header:
        raise DataFormatError(f"{path}: truncated header: {ndim} dimensions need {header} bytes, "
                              f"the file has {len(data)}")
    shape = struct.unpack(f">{ndim}I", data[4:header])
    dtype = IDX_DTYPES[code]
    want = math.prod(shape) * dtype.itemsize  # Python ints: a hostile header cannot wrap it
    have = len(data) - header
    if have != want:
        what = "truncated" if have < want else "has extra bytes at the end"
        raise DataFormatError(
            f"{path}: IDX data {what}: the header says shape {list(shape)} of {dtype.newbyteorder('=').name} "
            f"({want} bytes), the file holds {have} bytes after its {header}-byte header\n"
            f"  cause: an interrupted copy or download, or a damaged file\n"
            f"  fix: get the file again")
    arr = np.frombuffer(data, dtype=dtype, offset=header).reshape(shape)
    return arr.astype(dtype.newbyteorder("="), copy=True)


def write_idx(path: PathLike, array: np.ndarray, compress: bool = None) -> None:
    """Writes `array` as an IDX file; gzip-compressed when `compress` is true (default: when
    the path ends in .gz). Supported dtypes: uint8, int8, int16, int32, float32, float64."""
    path = os.fspath(path)
    a = np.asarray(array)
    key = a.dtype.newbyteorder("=").str[1:]
    if key not in _CODE_OF:
        raise DataFormatError(f"{path}: IDX cannot store dtype {a.dtype}; "
                              f"use one of uint8, int8, int16, int32, float32, float64")
    if a.ndim < 1 or a.ndim > 255:
        raise DataFormatError(f"{path}: IDX stores 1 to 255 dimensions, got a {a.ndim}-d array")
    code = _CODE_OF[key]
    payload = (bytes([0, 0, code, a.ndim]) + struct.pack(f">{a.ndim}I", *a.shape)
               + np.ascontiguousarray(a, dtype=IDX_DTYPES[code]).tobytes())
    if compress is None:
        compress = path.endswith(".gz")
    if compress:
        payload = gzip.compress(payload)
    with open(path, "wb") as f:
        f.write(payload)
