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


def _ce_terms(logits, labels, weight, ignore_index, label_smoothing):
    """Per-row losses of PyTorch's cross_entropy with class indices, the kept rows and their weights."""
    lsm = log_softmax_ref(logits.astype(np.float64))
    n, c = logits.shape
    w = np.ones(c) if weight is None else weight.astype(np.float64)
    keep = labels != ignore_index
    safe = np.where(keep, labels, 0)
    nll = -w[safe] * lsm[np.arange(n), safe]
    smooth = -(lsm * w).sum(axis=1)
    e = label_smoothing
    losses = np.where(keep, (1 - e) * nll + e / c * smooth, 0.0)
    return losses, keep, np.where(keep, w[safe], 0.0), w


def cross_entropy_ref(logits, labels, weight=None, reduction="mean", ignore_index=-100, label_smoothing=0.0):
    losses, _, row_w, _ = _ce_terms(logits, labels, weight, ignore_index, label_smoothing)
    if reduction == "none":
        return losses.astype(logits.dtype)
    with np.errstate(invalid="ignore"):  # every row ignored: 0 / 0 = NaN, as in PyTorch
        total = losses.sum() / (row_w.sum() if reduction == "mean" else 1.0)
    return np.asarray(total, dtype=logits.dtype)


def cross_entropy_backward_ref(g, logits, labels, weight=None, reduction="mean", ignore_index=-100,
                               label_smoothing=0.0):
    _, keep, row_w, w = _ce_terms(logits, labels, weight, ignore_index, label_smoothing)
    n, c = logits.shape
    p = softmax_ref(logits.astype(np.float64))
    onehot = np.zeros((n, c))
    onehot[np.arange(n)[keep], labels[keep]] = 1.0
    e = label_smoothing
    d = (1 - e) * row_w[:, None] * (p - onehot) + e / c * (w.sum() * p - w[None, :])
    g64 = np.asarray(g, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):  # every row ignored: no row uses the scale
        scale = g64[:, None] if reduction == "none" else g64 / (row_w.sum() if reduction == "mean" else 1.0)
        return np.where(keep[:, None], d * scale, 0.0).astype(logits.dtype)


# (name, shape as a function of n, dim): the reduced axis is last, in the middle, or first.
_CASES = [
    ("last", lambda n: (n, 5), -1),
    ("middle", lambda n: (3, n, 4), 1),
    ("first", lambda n: (n, 4, 2), 0),
]

CLASSES = 7


def _ce_inputs(scale=1.0, ignored=None, weight=False):
    """Logits [n, C], labels [n] (every third one set to `ignored` when given), class weights."""
    def gen(rng, dt, n):
        labels = rng.integers(0, CLASSES, n).astype(np.int64)
        if ignored is not None:
            labels[::3] = ignored
        out = [_rand(rng, dt, n, CLASSES, scale=scale), labels]
        return out + ([rng.uniform(0.5, 2.0, CLASSES).astype(dt)] if weight else [])
    return gen


def _ce_backward_inputs(per_row=False, **kw):
    def gen(rng, dt, n):
        g = rng.standard_normal(n) if per_row else rng.standard_normal()
        return [np.asarray(g, dtype=dt)] + _ce_inputs(**kw)(rng, dt, n)
    return gen


# (name, attrs, input options): PyTorch's cross_entropy options, one at a time and together.
_CE_CASES = [
    ("mean", {}, {}),
    ("sum", {"reduction": "sum"}, {}),
    ("none", {"reduction": "none"}, {}),
    ("ignore-default", {}, {"ignored": -100}),
    ("ignore-in-range-sum", {"reduction": "sum", "ignore_index": 2}, {"ignored": 2}),
    ("weight-smoothing-ignore", {"label_smoothing": 0.2}, {"ignored": -100, "weight": True}),
    ("weight-smoothing-none", {"reduction": "none", "label_smoothing": 0.1}, {"weight": True}),
]


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
    OpSpec("CrossEntropy", cross_entropy_ref, _ce_inputs(scale=1000.0), name="CrossEntropy-large-logits",
           rtol={"float32": 1e-4, "float64": 1e-9}, atol={"float32": 1e-2, "float64": 1e-9}),
]
for _name, _attrs, _opts in _CE_CASES:
    _none = _attrs.get("reduction") == "none"
    SPECS += [
        OpSpec("CrossEntropy", cross_entropy_ref, _ce_inputs(**_opts), attrs=_attrs, grad=(0,),
               name=f"CrossEntropy-{_name}"),
        OpSpec("CrossEntropyBackward", cross_entropy_backward_ref, _ce_backward_inputs(per_row=_none, **_opts),
               attrs=_attrs, name=f"CrossEntropyBackward-{_name}"),
    ]
