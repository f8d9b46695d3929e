"""torch.backends.cuda: the switches PyTorch keeps for its CUDA matrix products, for what
glassgrad has. glassgrad's kernels compute in FP32 (no tensor cores), so TF32 is never used and
`matmul.allow_tf32` is kept only for scripts that read it back."""
from __future__ import annotations

from .. import _C
from .. import _sdpa_backends as _sdpa

__all__ = ["cudnn_sdp_enabled", "enable_cudnn_sdp", "enable_flash_sdp", "enable_math_sdp", "enable_mem_efficient_sdp",
           "flash_sdp_enabled", "is_built", "math_sdp_enabled", "matmul", "mem_efficient_sdp_enabled", "sdp_kernel"]


def is_built() -> bool:
    """Whether this build of glassgrad embeds CUDA kernels."""
    return bool(_C.cuda_built_with_kernels())


class _MatmulSwitches:
    """`glassgrad.backends.cuda.matmul.allow_tf32` and `.fp32_precision`."""

    def __init__(self) -> None:
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True
        self.fp32_precision = "ieee"


matmul = _MatmulSwitches()


# scaled_dot_product_attention's backend switches (glassgrad._sdpa_backends: one fused kernel
# computes them all; the switches keep PyTorch's refusals when none is allowed).
def enable_flash_sdp(enabled: bool) -> None:
    _sdpa.set_enabled(_sdpa.SDPBackend.FLASH_ATTENTION, bool(enabled))


def flash_sdp_enabled() -> bool:
    return _sdpa.enabled(_sdpa.SDPBackend.FLASH_ATTENTION)


def enable_mem_efficient_sdp(enabled: bool) -> None:
    _sdpa.set_enabled(_sdpa.SDPBackend.EFFICIENT_ATTENTION, bool(enabled))


def mem_efficient_sdp_enabled() -> bool:
    return _sdpa.enabled(_sdpa.SDPBackend.EFFICIENT_ATTENTION)


def enable_math_sdp(enabled: bool) -> None:
    _sdpa.set_enabled(_sdpa.SDPBackend.MATH, bool(enabled))


def math_sdp_enabled() -> bool:
    return _sdpa.enabled(_sdpa.SDPBackend.MATH)


def enable_cudnn_sdp(enabled: bool) -> None:
    _sdpa.set_enabled(_sdpa.SDPBackend.CUDNN_ATTENTION, bool(enabled))


def cudnn_sdp_enabled() -> bool:
    return _sdpa.enabled(_sdpa.SDPBackend.CUDNN_ATTENTION)


sdp_kernel = _sdpa.sdp_kernel
