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


_ALPHA = 1.7580993408473766


def _keep(n, seed, p):
    groups = np.arange((n + 3) // 4, dtype=np.uint64)
    words = np.stack(philox_words(groups, int(seed)), axis=1).reshape(-1)[:n]
    threshold = min(int(p * 2.0**32 + 0.5), 2**32)
    return words >= np.uint64(threshold) if threshold < 2**32 else np.zeros(n, bool)


def _alpha_coefficients(p):
    if p >= 1.0:
        return 0.0, 0.0, 0.0
    a = 1.0 / np.sqrt((_ALPHA * _ALPHA * p + 1.0) * (1.0 - p))
    return a, _ALPHA * a * p, _ALPHA * a * (p - 1.0)


def alpha_dropout_ref(x, seed, p):
    """PyTorch's alpha_dropout in training: x * (keep ? a : 0) + (keep ? alpha*a*p : alpha*a*(p - 1))."""
    keep = _keep(x.size, seed, p).reshape(x.shape)
    a, kept, dropped = _alpha_coefficients(p)
    y = x.astype(np.float64) * np.where(keep, a, 0.0) + np.where(keep, kept, dropped)
    return y.astype(x.dtype)


def alpha_dropout_backward_ref(g, seed, p):
    """grad_y * (keep ? a : 0)."""
    keep = _keep(g.size, seed, p).reshape(g.shape)
    return (g.astype(np.float64) * np.where(keep, _alpha_coefficients(p)[0], 0.0)).astype(g.dtype)


SPECS += [
    OpSpec("AlphaDropout", alpha_dropout_ref, _inputs(lambda n: (n, 5)), attrs={"p": 0.3}, grad=(0,),
           name="AlphaDropout"),
    OpSpec("AlphaDropout", alpha_dropout_ref, _inputs(lambda n: (2, n, 3)), attrs={"p": 0.5}, grad=(0,),
           name="AlphaDropout-3d"),
    OpSpec("AlphaDropout", alpha_dropout_ref, _inputs(lambda n: (), seed=-7), attrs={"p": 0.5},
           name="AlphaDropout-scalar"),
    OpSpec("AlphaDropout", alpha_dropout_ref, _inputs(lambda n: (n + 6,)), attrs={"p": 1.0}, grad=(0,),
           name="AlphaDropout-p1"),
    OpSpec("AlphaDropout", alpha_dropout_ref, _inputs(lambda n: (n, 4)), attrs={"p": 0.0}, grad=(0,),
           name="AlphaDropout-p0"),
    OpSpec("AlphaDropoutBackward", alpha_dropout_backward_ref, _inputs(lambda n: (n, 5)), attrs={"p": 0.2},
           grad=(0,), name="AlphaDropoutBackward"),
    OpSpec("AlphaDropoutBackward", alpha_dropout_backward_ref, _inputs(lambda n: (n + 6,)), attrs={"p": 1.0},
           grad=(0,), name="AlphaDropoutBackward-p1"),
]
