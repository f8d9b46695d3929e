"""The Dropout op: y = x * keep / (1 - p), with a NumPy twin of the kernels' counter-based mask
(kernels/dropout_rules.h: element i kept when word i % 4 of Philox4x32-10 at counter i / 4 under
the seed is at least round(p * 2^32)), so the reference drops the very elements the kernels drop.
Its gradient is the same op on the incoming gradient (the mask regenerated from the seed), which
the float64 finite differences check."""
import numpy as np

from glassgrad.testing import OpSpec

from .attention import philox_words

_SEED = 0x2545F4914F6CDD1D


def dropout_ref(x, seed, p):
    """x * keep / (1 - p) over the flat row-major x (dropped elements are x * 0)."""
    n = x.size
    groups = np.arange((n + 3) // 4, dtype=np.uint64)
    words = np.stack(philox_words(groups, int(seed)), axis=1).reshape(-1)[:n]
    threshold = min(int(p * 2.0**32 + 0.5), 2**32)
    keep = words >= np.uint64(threshold) if threshold < 2**32 else np.zeros(n, bool)
    scale = 0.0 if p >= 1.0 else 1.0 / (1.0 - p)
    return (x.astype(np.float64) * (keep * scale).reshape(x.shape)).astype(x.dtype)


def _inputs(shape, seed=_SEED):
    def gen(rng, dt, n):
        return [rng.standard_normal(shape(n)).astype(dt), np.array(seed, dtype=np.int64)]
    return gen


SPECS = [
    OpSpec("Dropout", dropout_ref, _inputs(lambda n: (n, 5)), attrs={"p": 0.3}, grad=(0,), name="Dropout"),
    # sizes that end inside a group of four, a 0-d input, the seed's high word set
    OpSpec("Dropout", dropout_ref, _inputs(lambda n: (2, n, 3)), attrs={"p": 0.5}, grad=(0,), name="Dropout-3d"),
    OpSpec("Dropout", dropout_ref, _inputs(lambda n: (), seed=-7), attrs={"p": 0.5}, name="Dropout-scalar"),
    OpSpec("Dropout", dropout_ref, _inputs(lambda n: (n + 6,)), attrs={"p": 1.0}, grad=(0,), name="Dropout-p1"),
    OpSpec("Dropout", dropout_ref, _inputs(lambda n: (n, 4)), attrs={"p": 0.0}, grad=(0,), name="Dropout-p0"),
]
