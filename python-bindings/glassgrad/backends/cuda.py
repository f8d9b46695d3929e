"""torch.backends.cuda: the switches PyTorch keeps for its CUDA matrix products, for what
glassgrad has. glassgrad's kernels compute in FP32 (no tensor cores), so TF32 is never used and
`matmul.allow_tf32` is kept only for scripts that read it back."""
from __future__ import annotations

from .. import _C

__all__ = ["is_built", "matmul"]


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
