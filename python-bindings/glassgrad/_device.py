"""Devices: the `glassgrad.device` object (torch.device's names), and the default device: the GPU
when one is usable (the seed: tensors "automatically go to GPU memory"), else the CPU.
GLASSGRAD_DEVICE or set_default_device() override it.

A device is a str subclass holding its canonical spelling ('cpu', 'cuda', 'cuda:1'): it equals
that string and is accepted wherever a device string is (the C++ bindings included)."""
from __future__ import annotations

import os
from typing import Optional

from . import _C

_default: Optional[str] = None

# The device types torch.device accepts. A device of any of them can be built (as in PyTorch);
# glassgrad runs on 'cpu' and 'cuda', and normalize() says so when another one is used.
_TORCH_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia",
                "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")

# Set in a DataLoader worker process (utils/data/_worker.py): why CUDA may not be used there.
_cuda_forbidden: Optional[str] = None


def _parse(spec, index=None):
    """(type, index) of a torch.device-style spec: 'cuda', 'cuda:1', ('cuda', 1), an int (a GPU
    index), or a device."""
    if isinstance(spec, device) and index is None:
        return spec.type, spec.index
    if isinstance(spec, bool) or (index is not None and (isinstance(index, bool) or not isinstance(index, int))):
        raise TypeError(f"glassgrad.device: expected a device string and an optional int index, got "
                        f"{spec!r}, {index!r}")
    if isinstance(spec, int):
        if index is not None:
            raise TypeError("glassgrad.device: give either device(<int index>) or device(<type>, <index>)")
        if spec < 0:
            raise _C.DeviceError(f"glassgrad.device: device index must not be negative, got {spec}")
        return "cuda", spec
    if not isinstance(spec, str):
        raise TypeError(f"glassgrad.device(): argument 'type' must be str, not {type(spec).__name__}")
    text = spec.strip()
    kind, sep, rest = text.partition(":")
    kind = "cuda" if kind == "gpu" else kind
    if kind not in _TORCH_TYPES:
        raise _C.DeviceError(f"glassgrad.device: unknown device type in {spec!r}\n"
                             f"  devices are written 'cpu', 'cuda' or 'cuda:<index>'\n  fix: glassgrad.device('cuda')")
    parsed = None
    if sep:
        if not rest.isdigit() or (len(rest) > 1 and rest[0] == "0"):
            raise _C.DeviceError(f"glassgrad.device: invalid device string {spec!r}: the index after ':' must be "
                                 f"a non-negative integer\n  fix: glassgrad.device('cuda:0')")
        parsed = int(rest)
    if parsed is not None and index is not None:
        raise _C.DeviceError(f"glassgrad.device: type {spec!r} already names an index, and an index {index} was given")
    index = parsed if parsed is not None else index
    if index is not None and index < 0:
        raise _C.DeviceError(f"glassgrad.device: device index must not be negative, got {index}")
    return kind, index


class device(str):
    """torch.device: `glassgrad.device('cuda')`, `device('cuda', 1)`, `device('cuda:1')`,
    `device(0)` (a GPU index). `.type` is 'cpu' or 'cuda', `.index` the GPU number or None.

    A device is its string ('cuda:1'): it equals it, hashes like it and goes wherever a device
    string goes. `tensor.device` returns one. As a context manager it sets the default device
    for the tensors and layers made inside (`with glassgrad.device('cpu'): ...`)."""

    __slots__ = ("_type", "_index", "_previous")
    __module__ = "glassgrad"

    def __new__(cls, type=None, index=None):  # torch.device's parameter names
        if type is None:
            raise TypeError("glassgrad.device() missing required argument 'type' (e.g. 'cpu' or 'cuda')")
        kind, idx = _parse(type, index)
        self = super().__new__(cls, kind if idx is None else f"{kind}:{idx}")
        self._type, self._index, self._previous = kind, idx, []
        return self

    @property
    def type(self) -> str:
        return self._type

    @property
    def index(self) -> Optional[int]:
        return self._index

    def __repr__(self) -> str:
        if self._index is None:
            return f"device(type='{self._type}')"
        return f"device(type='{self._type}', index={self._index})"

    def __str__(self) -> str:
        return str.__str__(self)

    def __reduce__(self):
        return (device, (self._type, self._index))

    def __enter__(self) -> "device":
        self._previous.append(_default)
        set_default_device(self)
        return self

    def __exit__(self, *exc) -> None:
        global _default
        _default = self._previous.pop()


_DEVICES: dict = {}


def as_device(name: str) -> device:
    """The device object of a canonical name ('cpu', 'cuda:0'), made once."""
    d = _DEVICES.get(name)
    if d is None:
        d = _DEVICES[name] = device(name)
    return d


def cuda_available() -> bool:
    try:
        return bool(_C.cuda_is_available())
    except Exception:  # pragma: no cover - a broken driver must never break import
        return False


def normalize(device) -> str:
    """'cpu', 'cuda', 'cuda:1', 'gpu' -> canonical 'cpu' / 'cuda:<i>'."""
    if device is None:
        return default_device()
    if isinstance(device, int) and not isinstance(device, bool):
        device = f"cuda:{device}"  # torch: an int is a GPU index
    d = str(device).strip().lower()
    if d in ("cpu", "cpu:0"):
        return "cpu"
    if d in ("cuda", "gpu"):
        d = "cuda:0"
    if d.startswith("cuda:") and d[5:].isdigit():
        if _cuda_forbidden is not None:
            raise _C.DeviceError(f"{d}: {_cuda_forbidden}")
        return d
    kind = d.partition(":")[0]
    if kind in _TORCH_TYPES:
        raise _C.DeviceError(f"device '{device}': glassgrad runs on 'cpu' and 'cuda' only (no {kind} backend)\n"
                             f"  fix: device='cpu', or 'cuda' on an NVIDIA GPU")
    raise _C.DeviceError(f"unknown device '{device}'\n  devices are written 'cpu', 'cuda' or 'cuda:<index>'\n"
                         f"  fix: device='cpu' or device='cuda'")


def cuda_target(device) -> str:
    """The device of Tensor.cuda(device) / Module.cuda(device): None is 'cuda:0', an int an index;
    a name or device of another type is PyTorch's RuntimeError, raised before CUDA is needed."""
    if device is None:
        return normalize("cuda:0")
    if isinstance(device, int) and not isinstance(device, bool):
        return normalize(device)
    if str(device).strip().lower().partition(":")[0] not in ("cuda", "gpu"):
        raise RuntimeError(f"Invalid device, must be cuda device (.cuda({device!r}) names another device type)\n"
                           f"  fix: .cuda(), .cuda(<index>) or .cuda('cuda:<index>'); .to({str(device)!r}) moves "
                           f"it there")
    return normalize(device)


def default_device() -> str:
    """Where new tensors and parameters go by default: 'cuda:0' when a GPU is usable, else 'cpu' (see set_default_device)."""
    global _default
    if _default is None:
        env = os.environ.get("GLASSGRAD_DEVICE")
        if env:
            _default = normalize(env)
        else:
            _default = "cuda:0" if cuda_available() else "cpu"
    return _default


def get_default_device() -> "device":
    """The default device as a device object (torch.get_default_device): device('cpu'), or
    device('cuda:0') where a GPU is the default (default_device())."""
    return device(default_device())


def set_default_device(device) -> None:
    """Where new tensors and parameters go: 'cpu' or 'cuda'; None goes back to the default
    (GLASSGRAD_DEVICE, else the GPU when one is usable: default_device()). Without a usable GPU,
    'cuda' is set all the same and the tensors made afterwards raise DeviceError, as PyTorch's."""
    global _default
    if device is None:
        _default = None
        return
    # As PyTorch's, a GPU is not asked for here: without one, making a tensor there raises
    # (glassgrad's DeviceError, PyTorch's RuntimeError), not this call.
    _default = normalize(device)
