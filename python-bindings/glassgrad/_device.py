"""The default device: the GPU when one is usable (the seed: tensors "automatically go to GPU
memory"), else the CPU. GLASSGRAD_DEVICE or set_default_device() override it."""
from __future__ import annotations

import os
from typing import Optional

from . import _C

_default: Optional[str] = None


def cuda_available() -> bool:
    try:
        return bool(_C.cuda_is_available())
    except Exception:  # pragma: no cover - a broken driver must never break import
        return False


def normalize(device) -> str:
    """'cpu', 'cuda', 'cuda:1', 'gpu' -> canonical 'cpu' / 'cuda:<i>'."""
    if device is None:
        return default_device()
    d = str(device).strip().lower()
    if d == "cpu":
        return "cpu"
    if d in ("cuda", "gpu"):
        return "cuda:0"
    if d.startswith("cuda:") and d[5:].isdigit():
        return d
    raise _C.DeviceError(f"unknown device '{device}'\n  devices are written 'cpu', 'cuda' or 'cuda:<index>'\n"
                         f"  fix: device='cpu' or device='cuda'")


def default_device() -> str:
    global _default
    if _default is None:
        env = os.environ.get("GLASSGRAD_DEVICE")
        if env:
            _default = normalize(env)
        else:
            _default = "cuda:0" if cuda_available() else "cpu"
    return _default


def set_default_device(device) -> None:
    """Where new tensors and parameters go: 'cpu' or 'cuda'."""
    global _default
    d = normalize(device)
    if d.startswith("cuda") and not cuda_available():
        raise _C.DeviceError("set_default_device('cuda'): no usable GPU\n"
                             f"  cause: {_C.cuda_why_unavailable()}\n  fix: set_default_device('cpu')")
    _default = d


class device(str):  # noqa: N801  (torch.device's spelling)
    """A device, PyTorch's torch.device: device('cuda'), device('cuda', 1), device('cuda:1'),
    device(type='cpu'). A str ('cpu', 'cuda:1'), so it goes wherever glassgrad takes a device; .type
    is 'cpu' or 'cuda', .index the GPU's number (None for a bare 'cuda' or the CPU)."""

    __slots__ = ()

    def __new__(cls, type=None, index=None):  # noqa: A002  (torch's parameter names)
        if isinstance(type, device) and index is None:
            return type
        if type is None:
            raise _C.DeviceError("device() needs a type\n  fix: glassgrad.device('cuda') or glassgrad.device('cpu')")
        text = str(type).strip().lower()
        if index is not None:
            if ":" in text:
                raise _C.DeviceError(f"device({type!r}, {index}): the type already names an index\n"
                                     f"  fix: glassgrad.device({text.split(':')[0]!r}, {index})")
            text = f"{text}:{int(index)}"
        kind = text.split(":")[0]
        if kind == "gpu":
            text = "cuda" + text[3:]
        normalize(text)  # a DeviceError for anything but cpu, cuda, cuda:<i>
        return super().__new__(cls, text)

    @property
    def type(self) -> str:  # noqa: A003
        return str.split(self, ":")[0]

    @property
    def index(self):
        parts = str.split(self, ":")
        return int(parts[1]) if len(parts) > 1 else None

    def __repr__(self) -> str:
        index = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{index})"

    def __reduce__(self):
        return (device, (str(self),))


_DEVICES: dict = {}


def as_device(name: str) -> device:
    """The device object of a canonical name ('cpu', 'cuda:0'), made once."""
    d = _DEVICES.get(name)
    if d is None:
        d = _DEVICES[name] = device(name)
    return d
