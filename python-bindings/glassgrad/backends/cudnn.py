"""torch.backends.cudnn's switches, applied to glassgrad's own CUDA convolutions (glassgrad uses no
cuDNN, so is_available() is False and version() None, as PyTorch says for a build without it):

    benchmark       the plan-time autotuner: time the candidate algorithms once per shape and device
                    and keep the fastest (glassgrad.cuda.set_conv_autotune); off, the heuristics
                    choose. glassgrad's default is on (GLASSGRAD_CONV_AUTOTUNE=0 turns it off).
    deterministic   only algorithms whose results are the same bit for bit on every run; a runtime
                    setting (glassgrad::cuda::deterministic() in settings.h) read where an
                    algorithm is chosen. Default off.
    enabled         whether cuDNN may be used: glassgrad never uses it, so the value is kept and
                    changes nothing (PyTorch then runs its native kernels, as glassgrad always does).
    allow_tf32      glassgrad's kernels compute in FP32 without tensor cores, so TF32 is never used;
                    the value is kept for scripts that read it back.

and one of glassgrad's own, for the CPU and CUDA convolutions alike (docs/numerics.md):

    allow_fast_winograd  let float32 3x3 convolutions use Winograd F(4x4, 3x3), the fastest choice
                    and the one that rounds worst (about 10-40x PyTorch's float32 error). Default
                    off: every float32 convolution stays within 3x PyTorch's error (F(2x2, 3x3) or
                    a GEMM instead; on CUDA the direct input-gradient kernels are left out too).
                    GLASSGRAD_CONV_FAST_WINOGRAD=1 sets the default.

Assigning an attribute (`cudnn.benchmark = True`) switches the setting; `flags(...)` sets several
for a `with` block and restores them after."""
from __future__ import annotations

import contextlib
import sys
import types
from typing import Optional

from .. import _C

__all__ = ["benchmark", "deterministic", "enabled", "allow_tf32", "benchmark_limit", "allow_fast_winograd",
           "is_available", "version", "flags", "set_flags", "is_acceptable"]

_kept = {"enabled": True, "allow_tf32": True, "benchmark_limit": 10}


def is_available() -> bool:
    """False: glassgrad's CUDA convolutions are its own kernels, not cuDNN's."""
    return False


def version() -> Optional[int]:
    """None: no cuDNN is used."""
    return None


def is_acceptable(tensor) -> bool:
    """Whether cuDNN would run an op on `tensor`: never, glassgrad has no cuDNN."""
    return False


def _get(name: str):
    if name == "benchmark":
        return bool(_C.cuda_conv_autotune())
    if name == "deterministic":
        return bool(_C.cuda_deterministic())
    if name == "allow_fast_winograd":
        return bool(_C.conv_fast_winograd())
    return _kept[name]


def _set(name: str, value) -> None:
    if name == "benchmark":
        _C.cuda_set_conv_autotune(bool(value))
    elif name == "deterministic":
        _C.cuda_set_deterministic(bool(value))
    elif name == "allow_fast_winograd":
        _C.set_conv_fast_winograd(bool(value))
    elif name == "benchmark_limit":
        _kept[name] = int(value)
    else:
        _kept[name] = bool(value)


_SWITCHES = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32")
_ATTRIBUTES = _SWITCHES + ("allow_fast_winograd",)  # set_flags/flags keep PyTorch's signatures


def set_flags(_enabled=None, _benchmark=None, _benchmark_limit=None, _deterministic=None, _allow_tf32=None):
    """Sets the switches given (None leaves one as it is); returns the previous values in this
    order: enabled, benchmark, benchmark_limit, deterministic, allow_tf32."""
    previous = tuple(_get(n) for n in _SWITCHES)
    for name, value in zip(_SWITCHES, (_enabled, _benchmark, _benchmark_limit, _deterministic, _allow_tf32)):
        if value is not None:
            _set(name, value)
    return previous


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True):
    """Sets the switches for a `with` block (PyTorch's defaults for what is not given) and restores
    the previous values after it."""
    previous = set_flags(enabled, benchmark, benchmark_limit, deterministic, allow_tf32)
    try:
        yield
    finally:
        set_flags(*previous)


class _CudnnModule(types.ModuleType):
    """The module's type: reading or assigning a switch goes through the setting it stands for."""

    def __getattr__(self, name):
        if name in _ATTRIBUTES:
            return _get(name)
        raise AttributeError(f"module 'glassgrad.backends.cudnn' has no attribute '{name}'")

    def __setattr__(self, name, value):
        if name in _ATTRIBUTES:
            _set(name, value)
        else:
            super().__setattr__(name, value)


sys.modules[__name__].__class__ = _CudnnModule
