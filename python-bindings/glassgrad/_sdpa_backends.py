"""Which scaled_dot_product_attention backends a script allows: torch.nn.attention's SDPBackend
and sdpa_kernel, and torch.backends.cuda's enable_*_sdp switches (docs/attention.md, "Backends").

glassgrad has one attention op, the fused kernel of docs/attention.md (tiled, online softmax, the
[L, S] probabilities never stored), on the CPU and on the GPU: every backend a script may select
computes the same values through it. What the selection still decides is PyTorch's refusal: a
call whose allowed backends include none that PyTorch offers on the tensors' device raises
PyTorch's "No viable backend" error (the CPU offers MATH and FLASH_ATTENTION; a GPU MATH,
FLASH_ATTENTION and EFFICIENT_ATTENTION; CUDNN_ATTENTION, which needs cuDNN, and OVERRIDEABLE,
for other backends' own kernels, are never available). The switches are process-wide, as
PyTorch's are."""
from __future__ import annotations

import contextlib
import enum
import warnings
from typing import Iterator, List, Union

from . import _C


class SDPBackend(enum.IntEnum):
    """torch.nn.attention.SDPBackend, with PyTorch's values."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


_ALL = (SDPBackend.MATH, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION,
        SDPBackend.OVERRIDEABLE)
_OFFERED = {"cpu": {SDPBackend.MATH, SDPBackend.FLASH_ATTENTION},
            "cuda": {SDPBackend.MATH, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION}}
_enabled = set(_ALL)  # PyTorch enables every backend by default


def enabled(backend: SDPBackend) -> bool:
    return backend in _enabled


def set_enabled(backend: SDPBackend, on: bool) -> None:
    if on:
        _enabled.add(backend)
    else:
        _enabled.discard(backend)


def check(device_type: str) -> None:
    """Raises PyTorch's "No viable backend" error when no allowed backend is offered on the device."""
    offered = _OFFERED.get(device_type, _OFFERED["cpu"])
    if _enabled & offered:
        return
    allowed = ", ".join(b.name for b in sorted(_enabled)) or "none"
    raise _C.UnsupportedError(
        f"No viable backend for scaled_dot_product_attention was found. This is likely due to turning off both "
        f"the math kernel and the fused kernels.\n"
        f"  cause: the backends allowed now ({allowed}) include none that runs on {device_type} "
        f"({', '.join(b.name for b in sorted(offered))}, as in PyTorch; glassgrad computes all of them with one fused "
        f"kernel, docs/attention.md)\n"
        f"  fix: with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]): ..., or "
        f"glassgrad.backends.cuda.enable_math_sdp(True)")


class _BackendTypeError(TypeError, AssertionError):
    """A TypeError that is also PyTorch's AssertionError (sdpa_kernel asserts the type)."""


def _as_list(backends: Union[SDPBackend, List[SDPBackend]]) -> List[SDPBackend]:
    items = list(backends) if isinstance(backends, (list, tuple, set)) else [backends]
    for b in items:
        if not isinstance(b, SDPBackend):
            raise _BackendTypeError(f"Backend must be an instance of SDPBackend or a list of SDPBackend instances, "
                                    f"got {type(b).__name__}\n  fix: from glassgrad.nn.attention import SDPBackend; "
                                    f"sdpa_kernel(SDPBackend.FLASH_ATTENTION)")
    return items


@contextlib.contextmanager
def sdpa_kernel(backends: Union[SDPBackend, List[SDPBackend]], set_priority: bool = False) -> Iterator[None]:
    """torch.nn.attention.sdpa_kernel: inside the block, scaled_dot_product_attention may use only
    `backends` (one or a list); the previous selection comes back on exit. set_priority (the
    order to try them in) changes nothing: glassgrad has one kernel."""
    chosen = set(_as_list(backends)) - {SDPBackend.ERROR}
    before = set(_enabled)
    _enabled.clear()
    _enabled.update(chosen)
    try:
        yield
    finally:
        _enabled.clear()
        _enabled.update(before)


@contextlib.contextmanager
def sdp_kernel(enable_flash: bool = True, enable_math: bool = True, enable_mem_efficient: bool = True,
               enable_cudnn: bool = True) -> Iterator[None]:
    """torch.backends.cuda.sdp_kernel, deprecated in PyTorch (FutureWarning) for sdpa_kernel."""
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager will be "
                  "removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context manager, with "
                  "updated signature.", FutureWarning, stacklevel=3)
    flags = {SDPBackend.FLASH_ATTENTION: enable_flash, SDPBackend.MATH: enable_math,
             SDPBackend.EFFICIENT_ATTENTION: enable_mem_efficient, SDPBackend.CUDNN_ATTENTION: enable_cudnn}
    with sdpa_kernel([b for b, on in flags.items() if on] + [SDPBackend.OVERRIDEABLE]):
        yield
