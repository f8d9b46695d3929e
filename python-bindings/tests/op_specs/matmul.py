"""MatMul: 2-d products, batched products, broadcast batch axes (numpy.matmul semantics), and a
product large enough to cross the GEMM's cache blocks and its threaded split."""
import numpy as np

from glassgrad.testing import OpSpec


def _r(rng, dt, *shape):
    return rng.standard_normal(shape).astype(dt)


def _matmul(a, b):
    # In float64 and rounded once, so the reference is not the less accurate side.
    return np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(a.dtype)


_TOL = dict(rtol={"float32": 1e-4, "float64": 1e-10}, atol={"float32": 1e-4, "float64": 1e-10})

SPECS = [
    OpSpec("MatMul", _matmul, lambda rng, dt, n: [_r(rng, dt, n, 7), _r(rng, dt, 7, n + 1)], grad=(0, 1),
           name="MatMul-2d", **_TOL),
    OpSpec("MatMul", _matmul, lambda rng, dt, n: [_r(rng, dt, 2, n, 5), _r(rng, dt, 2, 5, 3)], grad=(0, 1),
           name="MatMul-batched", **_TOL),
    # Batch axes [n, 1] and [2] broadcast to [n, 2]: the gradients sum over the stretched axes.
    OpSpec("MatMul", _matmul, lambda rng, dt, n: [_r(rng, dt, n, 1, 3, 4), _r(rng, dt, 2, 4, 5)], grad=(0, 1),
           name="MatMul-broadcast-batch", **_TOL),
    OpSpec("MatMul", _matmul, lambda rng, dt, n: [_r(rng, dt, 4, n), _r(rng, dt, 3, n, 2)], grad=(0, 1),
           name="MatMul-matrix-times-batch", **_TOL),
    OpSpec("MatMul", _matmul, lambda rng, dt, n: [_r(rng, dt, 100, 257), _r(rng, dt, 257, n + 30)],
           sizes=(3, 33), name="MatMul-large", **_TOL),
    OpSpec("MatMul", _matmul, lambda rng, dt, n: [_r(rng, dt, 6, n, 40), _r(rng, dt, 6, 40, 70)],
           sizes=(17,), name="MatMul-many-small", **_TOL),
    # Enough work to spread the batch over threads (b reused by every entry: stride 0).
    OpSpec("MatMul", _matmul, lambda rng, dt, n: [_r(rng, dt, 8, n + 40, 64), _r(rng, dt, 64, 100)],
           sizes=(33,), name="MatMul-batch-over-threads", **_TOL),
]
