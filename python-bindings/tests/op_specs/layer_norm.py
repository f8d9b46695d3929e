"""Layer norm ops: LayerNorm (y, mean, rstd over the trailing normalized_shape axes, with an
optional weight and bias) and LayerNormBackward (dx, dweight, dbias, with the gradients of the
mean and rstd outputs when stat_grads). References computed in float64."""
import math

import numpy as np

from glassgrad.testing import OpSpec


def _rows(x, k):
    """x as float64 [rows, cols] over its last k axes."""
    return x.astype(np.float64).reshape(math.prod(x.shape[:x.ndim - k]), math.prod(x.shape[x.ndim - k:]))


def ln_ref(x, *params, normalized_shape, eps=1e-5, weight=False, bias=False):
    k = len(normalized_shape)
    xr = _rows(x, k)
    cols = xr.shape[1]
    # An empty row (cols = 0): mean 0 and rstd NaN, as PyTorch's native_layer_norm.
    mean = xr.mean(axis=1) if cols else np.zeros(xr.shape[0])
    var = ((xr - mean[:, None]) ** 2).mean(axis=1) if cols else np.full(xr.shape[0], np.nan)
    rstd = 1.0 / np.sqrt(var + eps)
    y = (xr - mean[:, None]) * rstd[:, None]
    params = list(params)
    if weight:
        y = y * params.pop(0).astype(np.float64).reshape(-1)
    if bias:
        y = y + params.pop(0).astype(np.float64).reshape(-1)
    outer = x.shape[:x.ndim - k]
    return y.reshape(x.shape).astype(x.dtype), mean.reshape(outer).astype(x.dtype), rstd.reshape(outer).astype(x.dtype)


def ln_backward_ref(g, x, mean, rstd, *rest, normalized_shape, eps=1e-5, weight=False, bias=False, stat_grads=False):
    k = len(normalized_shape)
    gr, xr = _rows(g, k), _rows(x, k)
    m, s = mean.astype(np.float64).reshape(-1, 1), rstd.astype(np.float64).reshape(-1, 1)
    rest = list(rest)
    w = rest.pop(0).astype(np.float64).reshape(-1) if weight else np.ones(xr.shape[1])
    xhat = (xr - m) * s
    gw = gr * w
    n = xr.shape[1]
    dx = s * (gw - gw.mean(axis=1, keepdims=True) - xhat * (gw * xhat).mean(axis=1, keepdims=True))
    if stat_grads:
        gmean, grstd = (a.astype(np.float64).reshape(-1, 1) for a in rest)
        dx = dx + gmean / n - grstd * s ** 3 * (xr - m) / n
    dw = (gr * xhat).sum(axis=0).reshape(normalized_shape) if weight else np.zeros(0)
    db = gr.sum(axis=0).reshape(normalized_shape) if bias else np.zeros(0)
    return dx.reshape(x.shape).astype(x.dtype), dw.astype(x.dtype), db.astype(x.dtype)


def _params(rng, dt, shape, weight, bias):
    out = []
    if weight:
        out.append(rng.uniform(0.5, 1.5, shape).astype(dt))
    if bias:
        out.append(rng.standard_normal(shape).astype(dt))
    return out


def _forward(shape, k, weight=True, bias=True, offset=0.0):
    """Inputs x of shape(n) (its last k axes normalized) and the parameters asked for."""
    def gen(rng, dt, n):
        s = shape(n)
        x = (rng.standard_normal(s) * 2.0 + offset).astype(dt)
        return [x] + _params(rng, dt, s[len(s) - k:], weight, bias)
    return gen


def _attrs(shape, k, **flags):
    def attrs(n):
        s = shape(n)
        return dict({"normalized_shape": list(s[len(s) - k:]), "eps": 1e-5}, **flags)
    return attrs


def _backward(shape, k, weight=True, stat_grads=False):
    def gen(rng, dt, n):
        s = shape(n)
        x = (rng.standard_normal(s) * 2.0 + 0.5).astype(dt)
        _, mean, rstd = ln_ref(x, normalized_shape=s[len(s) - k:])
        arrays = [rng.standard_normal(s).astype(dt), x, mean, rstd] + _params(rng, dt, s[len(s) - k:], weight, False)
        if stat_grads:
            arrays += [rng.standard_normal(mean.shape).astype(dt), rng.standard_normal(mean.shape).astype(dt)]
        return arrays
    return gen


_ROWS = lambda n: (n, 7)            # n rows of 7
_COLS = lambda n: (3, n)            # rows of n (1: a row of one value, var 0)
_TWO = lambda n: (2, n, 3, 5)       # the last two axes normalized together
_ONE_ROW = lambda n: (n + 2,)       # x is one row: mean and rstd are 0-d

_BACKWARD_TOL = dict(rtol={"float32": 1e-4, "float64": 1e-9}, atol={"float32": 1e-4, "float64": 1e-10})

SPECS = [
    # grad_outputs default: y, mean and rstd all get a cotangent (the stat_grads path).
    OpSpec("LayerNorm", ln_ref, _forward(_ROWS, 1), attrs=_attrs(_ROWS, 1, weight=True, bias=True), grad=(0, 1, 2),
           name="LayerNorm-rows"),
    OpSpec("LayerNorm", ln_ref, _forward(_COLS, 1), attrs=_attrs(_COLS, 1, weight=True, bias=True), grad=(0, 1, 2),
           grad_outputs=(0,), name="LayerNorm-cols-y-only"),
    OpSpec("LayerNorm", ln_ref, _forward(_TWO, 2), attrs=_attrs(_TWO, 2, weight=True, bias=True), grad=(0, 1, 2),
           grad_outputs=(0,), name="LayerNorm-two-axes"),
    OpSpec("LayerNorm", ln_ref, _forward(_ROWS, 1, weight=False, bias=False), attrs=_attrs(_ROWS, 1), grad=(0,),
           name="LayerNorm-no-affine"),
    OpSpec("LayerNorm", ln_ref, _forward(_COLS, 1, bias=False), attrs=_attrs(_COLS, 1, weight=True), grad=(0, 1),
           grad_outputs=(0,), name="LayerNorm-weight-only"),
    OpSpec("LayerNorm", ln_ref, _forward(_ROWS, 1, weight=False), attrs=_attrs(_ROWS, 1, bias=True), grad=(0, 1),
           grad_outputs=(0,), name="LayerNorm-bias-only"),
    OpSpec("LayerNorm", ln_ref, _forward(_ONE_ROW, 1), attrs=_attrs(_ONE_ROW, 1, weight=True, bias=True),
           grad=(0, 1, 2), name="LayerNorm-one-row"),
    # Data far from zero: a one-pass E[x^2] - E[x]^2 in float32 would lose the variance.
    OpSpec("LayerNorm", ln_ref, _forward(_ROWS, 1, offset=1000.0), attrs=_attrs(_ROWS, 1, weight=True, bias=True),
           name="LayerNorm-offset-1000", rtol={"float32": 2e-3, "float64": 1e-9},
           atol={"float32": 2e-3, "float64": 1e-9}),
    OpSpec("LayerNormBackward", ln_backward_ref, _backward(_ROWS, 1),
           attrs=_attrs(_ROWS, 1, weight=True, bias=True), name="LayerNormBackward", **_BACKWARD_TOL),
    OpSpec("LayerNormBackward", ln_backward_ref, _backward(_TWO, 2, weight=False),
           attrs=_attrs(_TWO, 2, bias=True), name="LayerNormBackward-two-axes-bias-only", **_BACKWARD_TOL),
    OpSpec("LayerNormBackward", ln_backward_ref, _backward(_COLS, 1, stat_grads=True),
           attrs=_attrs(_COLS, 1, weight=True, stat_grads=True), name="LayerNormBackward-stat-grads",
           **_BACKWARD_TOL),
]
