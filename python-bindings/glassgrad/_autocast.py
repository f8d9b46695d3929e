"""Autocast's per-thread state and the casts at an op's boundary (docs/numerics.md, "Mixed
precision"). A function of an op PyTorch's autocast lists is wrapped by `op(name)`; inside an
enabled region for its tensors' device type the wrapper casts the floating inputs as that
device's list says (_autocast_lists.py) and runs the function with autocast held off, so the ops
it is made of are not cast again (PyTorch runs an autocast op's kernel below its autocast key).

Outside every region an op pays one list read (_ACTIVE): the CPU fast path is unchanged. This
module imports only the extension and the lists at import time: the op modules import it first."""
from __future__ import annotations

import functools
import threading
from typing import Any, Callable, Dict, Optional, TypeVar, cast

from . import _C
from . import _autocast_lists as _lists

_F = TypeVar("_F", bound=Callable[..., Any])

# How many threads have autocast enabled for some device type; 0 skips every wrapper's work.
_ACTIVE = [0]
_count_lock = threading.Lock()

DEFAULT_DTYPES = {"cuda": "float16", "cpu": "bfloat16", "xpu": "float16", "mps": "float16"}


class _ThreadState(threading.local):
    """One thread's autocast state, as PyTorch keeps it: per device type whether it is enabled
    and its dtype, whether casts of parameters are cached, the regions' nesting depth (the cache
    is cleared when the outermost region exits) and how deep inside an autocast op this thread
    runs (no cast there)."""

    def __init__(self):
        self.enabled: Dict[str, bool] = {}
        self.dtype: Dict[str, Any] = {}
        self.cache_enabled = True
        self.nesting = 0
        self.inside = 0
        self.counted = False
        self.cache: Dict[int, tuple] = {}


state = _ThreadState()


def _recount() -> None:
    on = any(state.enabled.values())
    if on != state.counted:
        with _count_lock:
            _ACTIVE[0] += 1 if on else -1
        state.counted = on


def is_enabled(device_type: str) -> bool:
    return state.enabled.get(device_type, False)


def set_enabled(device_type: str, enabled: bool) -> None:
    state.enabled[device_type] = bool(enabled)
    _recount()


def get_dtype(device_type: str):
    dt = state.dtype.get(device_type)
    if dt is None:
        from . import _dtypes
        dt = state.dtype[device_type] = _dtypes.to_dtype(DEFAULT_DTYPES.get(device_type, "float16"))
    return dt


def set_dtype(device_type: str, dtype) -> None:
    state.dtype[device_type] = dtype


def clear_cache() -> None:
    state.cache.clear()


def _device_type(value) -> Optional[str]:
    """The device type of the first tensor among value (a tensor, or a list or tuple of them)."""
    h = getattr(value, "_h", None)
    if h is not None:
        return h.device.split(":")[0]
    if isinstance(value, (list, tuple)):
        for v in value:
            h = getattr(v, "_h", None)
            if h is not None:
                return h.device.split(":")[0]
    return None


def _eligible(value, device_type: str) -> bool:
    """A floating tensor of device_type other than float64 (PyTorch's is_eligible)."""
    h = getattr(value, "_h", None)
    return (h is not None and h.dtype in ("float32", "float16", "bfloat16")
            and h.device.split(":")[0] == device_type)


def _cast(value, to, device_type: str, lower: bool):
    """value in dtype `to` where it is eligible; a float32 leaf that requires grad (a parameter)
    cast to the region's lower dtype is cast once per outermost region while caching is on, the
    cast being recorded with gradients (one made under no_grad would cut a later forward's
    gradient off, so it is not kept, as in PyTorch)."""
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, to, device_type, lower) for v in value)
    if not _eligible(value, device_type) or value._h.dtype == to:
        return value
    cacheable = (lower and state.cache_enabled and value._h.dtype == "float32" and value._h.requires_grad
                 and value.is_leaf and _C.grad_enabled())
    if cacheable:
        hit = state.cache.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
    out = value.to(to)
    if cacheable:
        state.cache[id(value)] = (value, out)  # the source held: its id is not reused while cached
    return out


def _widest(values, device_type: str):
    from . import _dtypes
    widest = None
    for v in values:
        for t in (v if isinstance(v, (list, tuple)) else (v,)):
            if _eligible(t, device_type):
                dt = _dtypes.to_dtype(t._h.dtype)
                widest = dt if widest is None else _dtypes.promote_types(widest, dt)
    return widest


def _run(name: str, fn: Callable, args: tuple, kwargs: dict):
    """fn(*args, **kwargs) with the inputs cast as the autocast list of args' device type says."""
    if state.inside:
        return fn(*args, **kwargs)
    device_type = _device_type(args[0]) if args else None
    if device_type is None:
        device_type = next((d for d in map(_device_type, list(args[1:]) + list(kwargs.values())) if d), None)
    if device_type is None or not state.enabled.get(device_type):
        return fn(*args, **kwargs)
    policy = _lists.policy(device_type, name)
    if policy is None:  # listed for another device only: one op here, the ops inside it not cast
        state.inside += 1
        try:
            return fn(*args, **kwargs)
        finally:
            state.inside -= 1
    if policy == _lists.COMPOSITE:
        return fn(*args, **kwargs)
    if policy == _lists.REFUSED:
        raise _C.UnsupportedError(_lists.refusal(name))
    if policy == _lists.FLOAT32_UNLESS_DTYPE and kwargs.get("dtype") is not None:
        return fn(*args, **kwargs)
    if policy == _lists.PROMOTE:
        to = _widest(list(args) + list(kwargs.values()), device_type)
        if to is None:
            return fn(*args, **kwargs)
    elif policy == _lists.LOWER:
        to = get_dtype(device_type)
    else:
        from . import _dtypes
        to = _dtypes.to_dtype("float32")
    lower = policy == _lists.LOWER
    args = tuple(_cast(a, to, device_type, lower) for a in args)
    kwargs = {k: _cast(v, to, device_type, lower) for k, v in kwargs.items()}
    state.inside += 1
    try:
        return fn(*args, **kwargs)
    finally:
        state.inside -= 1


def call(name: str, fn: Callable, *args):
    """fn(*args) as PyTorch's autocast op `name`: for a function that is one of several of
    PyTorch's ops by its arguments (a pad's mode, a recurrent layer's mode)."""
    if _ACTIVE[0]:
        return _run(name, fn, args, {})
    return fn(*args)


def unwrapped(wrapper: Callable) -> Callable:
    """The function an `op` wrapper calls as it is outside every autocast region (while _ACTIVE[0]
    is 0): a layer's forward calls it directly there, one frame and its *args/**kwargs fewer a
    layer call, where it still reads the wrapper's name at call time (a reassigned
    F.conv2d is called as it is)."""
    return cast(Any, wrapper).__wrapped__  # (set by functools.wraps in op())


def op(name: str) -> Callable[[_F], _F]:
    """Decorates the function of PyTorch's autocast op `name` (a key of _autocast_lists)."""
    if name not in _lists.NAMES:
        raise ValueError(f"autocast op '{name}' is in no list of _autocast_lists.py")

    def wrap(fn: _F) -> _F:
        @functools.wraps(fn)
        def autocast_op(*args, **kwargs):
            if _ACTIVE[0]:
                return _run(name, fn, args, kwargs)
            return fn(*args, **kwargs)
        return cast(_F, autocast_op)  # the function's own signature, for callers and the type check
    return wrap
