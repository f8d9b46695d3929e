"""autocast(device_type, dtype=None, enabled=True, cache_enabled=None): a context manager and a
decorator for a mixed-precision region, as PyTorch's. Inside an enabled region the ops of
PyTorch's autocast lists cast their inputs at the op's boundary (matmul, conv, linear to the
region's dtype; losses and other range-sensitive ops to float32: glassgrad/_autocast.py), for the
tensors of the region's device type; every other op runs in its inputs' dtypes. The state is
per thread and per device type (is_autocast_enabled, get_autocast_dtype, set_autocast_*)."""
from __future__ import annotations

import functools
import warnings
from typing import Any, Callable, Optional

from .. import _autocast, _dtypes

_CPU_DTYPES = ("bfloat16", "float16")


def is_autocast_available(device_type: str) -> bool:
    return device_type in _autocast.DEFAULT_DTYPES


def _legacy(device_type: Any) -> str:
    """torch.is_autocast_enabled() without a device type is CUDA's, as PyTorch's."""
    return "cuda" if device_type is None else str(device_type).split(":")[0]


def is_autocast_enabled(device_type: Optional[str] = None) -> bool:
    """Whether autocast is on for device_type (CUDA's when not given) on this thread."""
    return _autocast.is_enabled(_legacy(device_type))


def set_autocast_enabled(*args) -> None:
    """set_autocast_enabled(device_type, enabled), or set_autocast_enabled(enabled) for CUDA."""
    device_type, enabled = (None, args[0]) if len(args) == 1 else args
    _autocast.set_enabled(_legacy(device_type), enabled)


def get_autocast_dtype(device_type: str) -> _dtypes.dtype:
    """The dtype the lower-precision ops use for device_type (its default outside a region)."""
    return _autocast.get_dtype(_legacy(device_type))


def set_autocast_dtype(device_type: str, dtype) -> None:
    """Sets the dtype device_type's lower-precision ops use on this thread."""
    _autocast.set_dtype(_legacy(device_type), _dtypes.to_dtype(dtype, "set_autocast_dtype"))


def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"torch.{old}() is deprecated. Please use torch.{new} instead.", DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled() -> bool:
    """is_autocast_enabled('cpu'), with PyTorch's DeprecationWarning."""
    _deprecated("is_autocast_cpu_enabled", "is_autocast_enabled('cpu')")
    return _autocast.is_enabled("cpu")


def set_autocast_cpu_enabled(enabled: bool) -> None:
    """set_autocast_enabled('cpu', enabled), with PyTorch's DeprecationWarning."""
    _deprecated("set_autocast_cpu_enabled", "set_autocast_enabled('cpu', enabled)")
    _autocast.set_enabled("cpu", enabled)


def get_autocast_cpu_dtype() -> _dtypes.dtype:
    """get_autocast_dtype('cpu'), with PyTorch's DeprecationWarning."""
    _deprecated("get_autocast_cpu_dtype", "get_autocast_dtype('cpu')")
    return _autocast.get_dtype("cpu")


def get_autocast_gpu_dtype() -> _dtypes.dtype:
    """get_autocast_dtype('cuda'), with PyTorch's DeprecationWarning."""
    _deprecated("get_autocast_gpu_dtype", "get_autocast_dtype('cuda')")
    return _autocast.get_dtype("cuda")


def set_autocast_cpu_dtype(dtype) -> None:
    """set_autocast_dtype('cpu', dtype), with PyTorch's DeprecationWarning."""
    _deprecated("set_autocast_cpu_dtype", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def set_autocast_gpu_dtype(dtype) -> None:
    """set_autocast_dtype('cuda', dtype), with PyTorch's DeprecationWarning."""
    _deprecated("set_autocast_gpu_dtype", "set_autocast_dtype('cuda', dtype)")
    set_autocast_dtype("cuda", dtype)


def is_autocast_cache_enabled() -> bool:
    """Whether regions entered without cache_enabled= cast each parameter once (True at first)."""
    return _autocast.state.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    """Sets whether parameters' casts are cached in this thread's regions."""
    _autocast.state.cache_enabled = bool(enabled)


def clear_autocast_cache() -> None:
    """Forgets this thread's cached casts of parameters (the outermost region's exit does too)."""
    _autocast.clear_cache()


class autocast:
    """A mixed-precision region (torch.autocast): entering saves this thread's state for
    device_type and sets it; leaving restores it, and the outermost region's exit empties the
    cache of parameters cast to the lower dtype."""

    def __init__(self, device_type: str = "cuda", dtype=None, enabled: bool = True,
                 cache_enabled: Optional[bool] = None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        device_type = device_type.split(":")[0]
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'\n"
                               "  fix: device_type='cuda' or 'cpu'")
        self.device = device_type
        self.device_type = device_type
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else _dtypes.to_dtype(dtype, "autocast")
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else bool(cache_enabled)
        enabled = bool(enabled)
        if enabled and device_type == "cuda":
            from .. import cuda
            if not cuda.is_available():
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.")
                enabled = False
        if enabled and device_type == "cpu" and self.fast_dtype not in _CPU_DTYPES:
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                          "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.")
            enabled = False
        self._enabled = enabled

    def __enter__(self):
        st = _autocast.state
        self._prev = (st.enabled.get(self.device, False), get_autocast_dtype(self.device), st.cache_enabled)
        st.nesting += 1
        _autocast.set_dtype(self.device, self.fast_dtype)
        st.cache_enabled = self._cache_enabled
        _autocast.set_enabled(self.device, self._enabled)
        return self

    def __exit__(self, *exc):
        st = _autocast.state
        st.nesting -= 1
        if st.nesting == 0:
            _autocast.clear_cache()
        enabled, dtype, st.cache_enabled = self._prev
        _autocast.set_dtype(self.device, dtype)
        _autocast.set_enabled(self.device, enabled)
        return False

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def decorated(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled, self._cache_enabled):
                return fn(*args, **kwargs)
        return decorated


def _cast_inputs(value, dtype, device_type: str):
    """value with its floating tensors of device_type (float64 aside) in dtype, through lists,
    tuples and dicts (custom_fwd's cast_inputs)."""
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_inputs(v, dtype, device_type) for v in value)
    if isinstance(value, dict):
        return {k: _cast_inputs(v, dtype, device_type) for k, v in value.items()}
    if _autocast._eligible(value, device_type) and value._h.dtype != dtype:
        return value.to(dtype)
    return value


def custom_fwd(fwd: Optional[Callable] = None, *, device_type: str, cast_inputs=None):
    """Decorates an autograd.Function's forward (torch.amp.custom_fwd): without cast_inputs the
    forward runs in the caller's autocast state, which custom_bwd's backward then runs in; with
    it, inside an enabled region the floating inputs are cast to cast_inputs and the forward runs
    with autocast off for device_type."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        autocast_context = is_autocast_enabled(device_type)
        ctx._fwd_used_autocast = False
        if not autocast_context:
            return fwd(*args, **kwargs)
        to = _dtypes.to_dtype(cast_inputs, "custom_fwd")
        with autocast(device_type=device_type, enabled=False):
            return fwd(*_cast_inputs(args, to, device_type), **_cast_inputs(kwargs, to, device_type))
    return decorate_fwd


def custom_bwd(bwd: Optional[Callable] = None, *, device_type: str):
    """Decorates an autograd.Function's backward (torch.amp.custom_bwd): it runs in the autocast
    state its forward ran in."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
