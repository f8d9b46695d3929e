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
