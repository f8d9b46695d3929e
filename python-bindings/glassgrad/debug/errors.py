"""The debug tools' exceptions (both derive from glassgrad.GlassgradError)."""
from __future__ import annotations

from .. import _C

# Raised by anomaly mode (from the executor, in C++) and by check_nan_gradients; also a
# FloatingPointError.
NonFiniteError = _C.NonFiniteError


class GradcheckError(_C.GlassgradError, AssertionError):
    """gradcheck found a gradient that differs from its finite-difference estimate."""

    __module__ = "glassgrad.debug"
