"""Softmax family and cross-entropy: Softmax, LogSoftmax, SoftmaxBackward, LogSoftmaxBackward,
CrossEntropy, CrossEntropyBackward. References are the numerically stable NumPy formulas, in
float64."""
import numpy as np

from glassgrad.testing import OpSpec


def _rand(rng, dtype, *shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(dtype)


def log_softmax_ref(x, dim=-1):
    x64 = x.astype(np.float64)
    shifted = x64 - x64.max(axis=dim, keepdims=True)
    return (shifted - np.log(np.exp(shifted).sum(axis=dim, keepdims=True))).astype(x.dtype)


def softmax_ref(x, dim=-1):
    return np.exp(log_softmax_ref(x.astype(np.float64), dim)).astype(x.dtype)


def softmax_backward_ref(g, y, dim=-1):
    g64, y64 = g.astype(np.float64), y.astype(np.float64)
    return (y64 * (g64 - (g64 * y64).sum(axis=dim, keepdims=True))).astype(y.dtype)


def log_softmax_backward_ref(g, y, dim=-1):
    g64, y64 = g.astype(np.float64), y.astype(np.float64)
    return (g64 - np.exp(y64) * g64.sum(axis=dim, keepdims=True)).astype(y.dtype)


def cross_entropy_ref(logits, labels, reduction="mean"):
    lsm = log_softmax_ref(logits.astype(np.float64))
    losses = -lsm[np.arange(len(labels)), labels]
    total = losses.mean() if reduction == "mean" else losses.sum()
    return np.asarray(total, dtype=logits.dtype)


def cross_entropy_backward_ref(g, logits, labels, reduction="mean"):
    p = softmax_ref(logits.astype(np.float64))
    p[np.arange(len(labels)), labels] -= 1.0
    scale = float(g) / (len(labels) if reduction == "mean" else 1)
    return (p * scale).astype(logits.dtype)


# (name, shape as a function of n, dim): the reduced axis is last, in the middle, or first.
_CASES = [
    ("last", lambda n: (n, 5), -1),
    ("middle", lambda n: (3, n, 4), 1),
    ("first", lambda n: (n, 4, 2), 0),
]

CLASSES = 7


def _ce_inputs(scale=1.0):
    def gen(rng, dt, n):
        return [_rand(rng, dt, n, CLASSES, scale=scale), rng.integers(0, CLASSES, n).astype(np.int64)]
    return gen


def _ce_backward_inputs(rng, dt, n):
    return [np.asarray(rng.standard_normal(), dtype=dt)] + _ce_inputs()(rng, dt, n)


SPECS = []
for _name, _shape, _dim in _CASES:
    SPECS += [
        OpSpec("Softmax", softmax_ref, lambda rng, dt, n, s=_shape: [_rand(rng, dt, *s(n))], attrs={"dim": _dim},
               grad=(0,), name=f"Softmax-{_name}"),
        OpSpec("LogSoftmax", log_softmax_ref, lambda rng, dt, n, s=_shape: [_rand(rng, dt, *s(n))], attrs={"dim": _dim},
               grad=(0,), name=f"LogSoftmax-{_name}"),
        OpSpec("SoftmaxBackward", softmax_backward_ref,
               lambda rng, dt, n, s=_shape, d=_dim: [_rand(rng, dt, *s(n)), softmax_ref(_rand(rng, dt, *s(n)), d)],
               attrs={"dim": _dim}, name=f"SoftmaxBackward-{_name}"),
        OpSpec("LogSoftmaxBackward", log_softmax_backward_ref,
               lambda rng, dt, n, s=_shape, d=_dim: [_rand(rng, dt, *s(n)), log_softmax_ref(_rand(rng, dt, *s(n)), d)],
               attrs={"dim": _dim}, name=f"LogSoftmaxBackward-{_name}"),
    ]

SPECS += [
    # Logits in the thousands: exp() without the max shift would overflow to inf.
    OpSpec("Softmax", softmax_ref, lambda rng, dt, n: [_rand(rng, dt, n, 5, scale=1000.0)], name="Softmax-large"),
    OpSpec("LogSoftmax", log_softmax_ref, lambda rng, dt, n: [_rand(rng, dt, n, 5, scale=1000.0)],
           rtol={"float32": 1e-4, "float64": 1e-9}, atol={"float32": 1e-2, "float64": 1e-9}, name="LogSoftmax-large"),
    OpSpec("CrossEntropy", cross_entropy_ref, _ce_inputs(), grad=(0,), name="CrossEntropy-mean"),
    OpSpec("CrossEntropy", cross_entropy_ref, _ce_inputs(), attrs={"reduction": "sum"}, grad=(0,), name="CrossEntropy-sum"),
    OpSpec("CrossEntropy", cross_entropy_ref, _ce_inputs(scale=1000.0), name="CrossEntropy-large-logits",
           rtol={"float32": 1e-4, "float64": 1e-9}, atol={"float32": 1e-2, "float64": 1e-9}),
    OpSpec("CrossEntropyBackward", cross_entropy_backward_ref, _ce_backward_inputs, name="CrossEntropyBackward-mean"),
    OpSpec("CrossEntropyBackward", cross_entropy_backward_ref, _ce_backward_inputs, attrs={"reduction": "sum"},
           name="CrossEntropyBackward-sum"),
]
