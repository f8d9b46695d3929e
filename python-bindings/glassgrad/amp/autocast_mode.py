"""autocast(device_type, dtype=None, enabled=True, cache_enabled=None): a context manager and a
decorator that marks a mixed-precision region. Inside it is_autocast_enabled() is true and
get_autocast_dtype() names the requested type; the ops themselves run in their inputs' types
(float32), as docs/numerics.md "Mixed precision" explains."""
from __future__ import annotations

import threading
from typing import Optional

from .. import _dtypes

_DEFAULT_DTYPE = {"cuda": "float16", "cpu": "bfloat16", "xpu": "float16", "mps": "float16"}
_state = threading.local()


def _stack() -> list:
    return _state.__dict__.setdefault("stack", [])


def is_autocast_available(device_type: str) -> bool:
    return device_type in _DEFAULT_DTYPE


def is_autocast_enabled(device_type: Optional[str] = None) -> bool:
    """Whether the innermost autocast region for device_type (or for any device) on this thread
    is enabled (an inner autocast(enabled=False) turns it off inside)."""
    devices = {dev for dev, _, _ in _stack()} if device_type is None else {device_type}
    for dev in devices:
        innermost = [on for d, _, on in _stack() if d == dev]
        if innermost and innermost[-1]:
            return True
    return False


def get_autocast_dtype(device_type: str) -> _dtypes.dtype:
    """The dtype the innermost region for device_type asked for (its device's default otherwise)."""
    for dev, dt, _ in reversed(_stack()):
        if dev == device_type:
            return dt
    return _dtypes.to_dtype(_DEFAULT_DTYPE.get(device_type, "float16"))


class autocast:
    def __init__(self, device_type: str = "cuda", dtype=None, enabled: bool = True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        device_type = device_type.split(":")[0]
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'\n"
                               "  fix: device_type='cuda' or 'cpu'")
        self.device_type = device_type
        self.fast_dtype = _dtypes.to_dtype(dtype if dtype is not None else _DEFAULT_DTYPE[device_type], "autocast")
        if not self.fast_dtype.is_floating_point:
            raise RuntimeError(f"autocast: dtype must be a floating type, got {self.fast_dtype}")
        self._enabled = bool(enabled)

    def __enter__(self):
        _stack().append((self.device_type, self.fast_dtype, self._enabled))
        return self

    def __exit__(self, *exc):
        _stack().pop()
        return False

    def __call__(self, fn):
        from .._runtime import run_within
        args = (self.device_type, self.fast_dtype, self._enabled)
        return run_within(fn, lambda: autocast(args[0], args[1], args[2]))
