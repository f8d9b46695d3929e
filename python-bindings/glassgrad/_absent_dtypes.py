"""PyTorch dtypes (and the complex functions that need them) glassgrad leaves out on purpose,
named when a script reaches for one: `torch.complex64` ported reads glassgrad.complex64, and a
bare "module 'glassgrad' has no attribute 'complex64'" does not say whether it is missing or
spelled otherwise (docs/dtypes.md). The answer is still an AttributeError, so hasattr() and
getattr(torch, name, default) keep working."""
from __future__ import annotations

from typing import Dict, Optional, Tuple

_INTEGERS = "its integer types are bool, uint8, int8, int16, int32 and int64"
_COMPLEX = ("glassgrad has no complex dtypes (complex32/chalf, complex64/cfloat, complex128/cdouble): "
            "its floating types are float16, bfloat16, float32 and float64")
_COMPLEX_FIX = "hold the real and imaginary parts as two real tensors (or the last dim of size 2 that " \
               "torch.view_as_real would give); numpy.fft on x.numpy() for transforms"

# name -> (why, fix)
ABSENT: Dict[str, Tuple[str, str]] = {
    "uint16": (f"glassgrad has no uint16 dtype: {_INTEGERS}", "torch.int32 holds every uint16 value"),
    "uint32": (f"glassgrad has no uint32 dtype: {_INTEGERS}", "torch.int64 holds every uint32 value"),
    "uint64": (f"glassgrad has no uint64 dtype: {_INTEGERS}", "torch.int64 holds the uint64 values below 2**63"),
    **{name: (_COMPLEX, _COMPLEX_FIX) for name in (
        "complex32", "chalf", "complex64", "cfloat", "complex128", "cdouble", "view_as_real", "view_as_complex",
        "complex", "polar", "view_as_real_copy", "view_as_complex_copy")},
}


def error(module: str, name: str) -> Optional[AttributeError]:
    """The AttributeError for `module.name` when name is one glassgrad leaves out, else None."""
    if name not in ABSENT:
        return None
    why, fix = ABSENT[name]
    return AttributeError(f"module {module!r} has no attribute {name!r}: {why} (docs/dtypes.md)\n  fix: {fix}")
