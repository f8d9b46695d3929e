"""Looking at numbers: tensor statistics and the NaN/Inf check of gradients (docs/debugging.md
section 2: print_tensor_stats and check_nan_gradients, raising instead of aborting)."""
from __future__ import annotations

import sys
from typing import Optional

import numpy as np

from .. import _C
from .._tensor import Tensor
from ._params import named_tensors
from .errors import NonFiniteError

_RUNTIME_DTYPES = {"float32", "float64", "int64", "uint8", "bool"}


def _numpy_stats(arr: np.ndarray) -> dict:
    """Statistics of an array glassgrad cannot hold (e.g. int32 labels), same keys as _C's."""
    x = arr.astype(np.float64, copy=False).ravel()
    nan = int(np.isnan(x).sum())
    pos, neg = int(np.isposinf(x).sum()), int(np.isneginf(x).sum())
    fin = x[np.isfinite(x)]
    d = {"shape": tuple(arr.shape), "dtype": arr.dtype.name, "device": "cpu (numpy)", "count": int(x.size),
         "finite": int(fin.size), "nan": nan, "inf": pos + neg, "pos_inf": pos, "neg_inf": neg}
    if fin.size:
        d.update(min=float(fin.min()), max=float(fin.max()), mean=float(fin.mean()), std=float(fin.std()))
        text = f"min {d['min']:.6g} max {d['max']:.6g} mean {d['mean']:.6g} std {d['std']:.6g}"
    else:
        d.update(min=float("nan"), max=float("nan"), mean=float("nan"), std=float("nan"))
        text = "empty" if not x.size else "no finite values"
    text += f"  nan {nan} inf {pos + neg}"
    if pos + neg:
        text += f" (+inf {pos}, -inf {neg})"
    d["text"] = text
    return d


def tensor_stats(t) -> dict:
    """{'shape', 'dtype', 'device', 'count', 'finite', 'nan', 'inf', 'pos_inf', 'neg_inf', 'min', 'max',
    'mean', 'std', 'text'}. min/max/mean/std are over the finite elements (std: population).
    Accepts a glassgrad.Tensor (computed first if pending), a NumPy array or a nested list."""
    if isinstance(t, Tensor):
        return dict(_C.tensor_stats(t._raw()))
    if isinstance(t, _C.Tensor):
        return dict(_C.tensor_stats(t))
    arr = np.asarray(t)
    if arr.dtype.name in _RUNTIME_DTYPES:
        return dict(_C.tensor_stats(_C.Tensor.from_numpy(arr, "cpu", "print_tensor_stats")))
    return _numpy_stats(arr)


def format_stats(stats: dict, name: str = "") -> str:
    head = f"{name}: " if name else ""
    return f"{head}{list(stats['shape'])} {stats['dtype']} {stats['device']}  {stats['text']}"


def print_tensor_stats(t, name: Optional[str] = None, file=None) -> dict:
    """Prints one line, e.g.

        fc.weight.grad: [10, 800] float32 cpu  min -0.0123 max 0.0456 mean 1.2e-05 std 0.0031  nan 0 inf 0

    and returns the statistics (tensor_stats). min/max/mean/std skip NaN and Inf, which are
    counted separately, so one bad element does not hide the rest."""
    stats = tensor_stats(t)
    if name is None:
        name = t.name if isinstance(t, Tensor) else ""
    print(format_stats(stats, name), file=file or sys.stdout)
    return stats


def check_nan_gradients(params) -> int:
    """Raises NonFiniteError naming every parameter whose gradient holds NaN or Inf, with the
    counts; returns how many gradients were checked. Call it between loss.backward() and
    optimizer.step(). params: a Module, model.parameters(), model.named_parameters() or a list."""
    named = [(n, p) for n, p in named_tensors(params) if p.grad is not None]
    grads = [p.grad for _, p in named]
    if grads:
        _C.lazy_realize([g._h for g in grads])  # all gradients in one plan
    bad = []
    for (name, p), g in zip(named, grads):
        s = tensor_stats(g)
        if s["nan"] or s["inf"]:
            bad.append((name, p, s))
    if not bad:
        return len(named)
    lines = [f"non-finite gradients in {len(bad)} of {len(named)} parameters"]
    for name, p, s in bad:
        line = (f"{name} {list(s['shape'])} {s['dtype']} {s['device']}: {s['nan']} NaN, {s['inf']} Inf "
                f"of {s['count']} gradient values")
        if s["finite"]:
            line += f"; the finite ones: min {s['min']:.4g} max {s['max']:.4g}"
        ps = tensor_stats(p)
        if ps["nan"] or ps["inf"]:
            line += f" (the parameter itself already holds {ps['nan']} NaN, {ps['inf']} Inf)"
        lines.append("  " + line)
    lines.append("  cause: a value in this step's forward or backward became NaN/Inf (log of 0, a division by zero, "
                 "exploding activations or gradients), or the parameters blew up in an earlier step (learning rate "
                 "too high)")
    lines.append("  fix: find the op that produced it: run the step inside `with glassgrad.debug.detect_anomaly():` "
                 "(or set GLASSGRAD_DETECT_ANOMALY=1); to tame exploding gradients, lower the learning rate or call "
                 "glassgrad.clip_grad_norm_(model.parameters(), max_norm=1.0) before optimizer.step()")
    raise NonFiniteError("\n".join(lines))
