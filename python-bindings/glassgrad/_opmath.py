"""PyTorch's arithmetic on float16 and bfloat16 (docs/dtypes.md, "float16 and bfloat16
arithmetic"): its CPU kernels compute both in float32, the opmath type, and round each result
once. glassgrad's storage types compute every op in float32 too (compute_dtypes.cpp); this module
holds the rest of PyTorch's rules:

- a composite (hypot, logaddexp, addcmul, lerp, an activation's formula) runs in float32 as a
  whole and is rounded once (`rounded_once`), not op by op;
- a Python number meets the tensor as PyTorch's kernels read it: add's and sub's number and
  alpha rounded to the tensor's dtype first (`round_number`), mul's and div's number, and a 0-d
  tensor of a wider dtype, in float32 unrounded.
"""
from __future__ import annotations

import numpy as np

REDUCED = ("float16", "bfloat16")


def round_bfloat16(x) -> np.ndarray:
    """float32 values rounded to the nearest bfloat16 (ties to even), held in float32."""
    bits = np.asarray(x, np.float32).view(np.uint32)
    bits = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) & np.uint32(0xFFFF0000)
    return bits.view(np.float32)


def round_number(value, dtype) -> float:
    """value (a Python number) as the float16 or bfloat16 PyTorch converts it to (through float32,
    ties to even), as a Python float; other dtypes leave it as it is."""
    if dtype == "float16":
        with np.errstate(over="ignore"):  # past float16's range: inf, as PyTorch's conversion
            return float(np.float32(value).astype(np.float16))
    if dtype == "bfloat16":
        return float(round_bfloat16(np.float32(value)))
    return value


def rounded_once(fn, node: str, *operands):
    """fn(*operands) computed on the float16 or bfloat16 operands widened to float32, the result
    rounded to their dtype once and recorded as PyTorch's node `node`."""
    from ._torch_operands import named_node
    dtype = operands[0].dtype
    return named_node(fn(*(t.float() for t in operands)).to(dtype), node, *operands)
