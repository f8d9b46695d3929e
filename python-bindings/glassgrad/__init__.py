"""glassgrad: a small deep-learning framework built from first principles.

Static graphs recorded by define-by-run tracing, explicit backward graphs, a memory planner,
and hand-written CPU and CUDA kernels you can read, print and check by hand.
"""
from . import _C
from ._C import (  # noqa: F401  (the error hierarchy)
    CudaError,
    DeviceError,
    DTypeError,
    GlassgradError,
    GlassgradIndexError,
    InternalError,
    InvalidArgumentError,
    OutOfMemoryError,
    ShapeError,
    UnsupportedError,
)

__version__ = _C.__version__

from . import kernels  # noqa: E402,F401
