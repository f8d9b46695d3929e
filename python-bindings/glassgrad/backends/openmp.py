"""torch.backends.openmp: whether the CPU kernels run their loops on OpenMP threads."""
from .. import _C


def is_available() -> bool:
    """True when the runtime's OpenMP module can be loaded (glassgrad._C.parallel_backend() says
    which library runs the loops; without it the kernels run on one thread)."""
    return _C.parallel_backend().startswith("OpenMP")
