"""Batch norm ops: BatchNorm2DTrain, BatchNorm2DBackward, BatchNorm2DInference,
BatchNorm2DInferenceBackward, BatchNormUpdateStats and BatchNorm2DTrainUpdate (the fusion pass's
training op that also updates the running statistics and the counter), over (N, C, ...) input
of 2 to 5 axes; group norm ops: GroupNorm and GroupNormBackward over (N, C, ...) input of 2 or
more axes.
References computed in float64."""
import math

import numpy as np

from glassgrad.testing import OpSpec


def _rand(rng, dtype, *shape):
    return rng.standard_normal(shape).astype(dtype)


def _axes(x):
    """Every axis but the channels' (1): what a channel's statistics are taken over."""
    return (0,) + tuple(range(2, x.ndim))


def _c(v, x):
    """A [C] vector broadcast against x (N, C, ...)."""
    return v.reshape((1, -1) + (1,) * (x.ndim - 2))


def bn_train_ref(x, gamma, beta, eps=1e-5):
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=_axes(x))
    var = ((x64 - _c(mean, x)) ** 2).mean(axis=_axes(x))
    y = _c(gamma, x) * (x64 - _c(mean, x)) / np.sqrt(_c(var, x) + eps) + _c(beta, x)
    return y.astype(x.dtype), mean.astype(x.dtype), var.astype(x.dtype)


def bn_train_residual_ref(x, gamma, beta, residual, eps=1e-5, activation="none"):
    """The fusion pass's BatchNorm -> Add (-> ReLU) of a residual block, in one op."""
    y, mean, var = bn_train_ref(x, gamma, beta, eps)
    y = y.astype(np.float64) + residual
    if activation == "relu":
        y = np.maximum(y, 0)
    return y.astype(x.dtype), mean, var


def bn_backward_ref(g, x, gamma, mean, var, grad_mean=None, grad_var=None, eps=1e-5):
    g, x64, gamma64 = g.astype(np.float64), x.astype(np.float64), gamma.astype(np.float64)
    m = math.prod(x.shape[i] for i in _axes(x))
    invstd = 1.0 / np.sqrt(var.astype(np.float64) + eps)
    xhat = (x64 - _c(mean.astype(np.float64), x)) * _c(invstd, x)
    dbeta = g.sum(axis=_axes(x))
    dgamma = (g * xhat).sum(axis=_axes(x))
    dx = _c(gamma64 * invstd / m, x) * (m * g - _c(dbeta, x) - xhat * _c(dgamma, x))
    if grad_mean is not None:
        dx = dx + _c(grad_mean.astype(np.float64), x) / m
    if grad_var is not None:
        dx = dx + _c(grad_var.astype(np.float64), x) * 2 * (x64 - _c(mean.astype(np.float64), x)) / m
    return dx.astype(x.dtype), dgamma.astype(x.dtype), dbeta.astype(x.dtype)


def bn_inference_ref(x, gamma, beta, running_mean, running_var, eps=1e-5):
    x64 = x.astype(np.float64)
    y = (_c(gamma, x) * (x64 - _c(running_mean, x)) / np.sqrt(_c(running_var.astype(np.float64), x) + eps)
         + _c(beta, x))
    return y.astype(x.dtype)


def bn_inference_backward_ref(g, x, gamma, running_mean, running_var, eps=1e-5):
    g, x64 = g.astype(np.float64), x.astype(np.float64)
    invstd = 1.0 / np.sqrt(running_var.astype(np.float64) + eps)
    xhat = (x64 - _c(running_mean.astype(np.float64), x)) * _c(invstd, x)
    a = gamma.astype(np.float64) * invstd
    dbeta = g.sum(axis=_axes(x))
    dgamma = (g * xhat).sum(axis=_axes(x))
    outs = (g * _c(a, x), dgamma, dbeta, -a * dbeta, -0.5 * a * invstd * dgamma)
    return tuple(o.astype(x.dtype) for o in outs)


def bn_update_stats_ref(running_mean, running_var, mean, var, momentum=0.1, count=None):
    m = momentum
    rm = (1 - m) * running_mean.astype(np.float64) + m * mean
    rv = (1 - m) * running_var.astype(np.float64) + m * var.astype(np.float64) * count / (count - 1)
    return rm.astype(running_mean.dtype), rv.astype(running_var.dtype)


def bn_train_update_ref(x, gamma, beta, running_mean, running_var, counter, eps=1e-5, momentum=0.1, count=None,
                        counter_add=1, activation="none"):
    y, mean, var = bn_train_ref(x, gamma, beta, eps)
    if activation == "relu":
        y = np.maximum(y, 0).astype(x.dtype)
    rm, rv = bn_update_stats_ref(running_mean, running_var, mean, var, momentum, count)
    return y, mean, var, rm, rv, (counter + counter_add).astype(np.int64)


def _train_update_inputs(shape):
    def gen(rng, dt, n):
        s = shape(n)
        c = s[1]
        return _train_inputs(shape)(rng, dt, n) + [_rand(rng, dt, c), rng.uniform(0.5, 2, c).astype(dt),
                                                   np.array(rng.integers(0, 100), dtype=np.int64)]
    return gen


def _train_update_attrs(shape, **extra):
    def attrs(n):
        s = shape(n)
        return dict({"eps": 1e-5, "momentum": 0.1, "count": math.prod([s[0]] + list(s[2:])), "counter_add": 1},
                    **extra)
    return attrs


def _train_inputs(shape, offset=0.0):
    def gen(rng, dt, n):
        s = shape(n)
        x = (rng.standard_normal(s) * 2.0 + offset).astype(dt)
        return [x, rng.uniform(0.5, 1.5, s[1]).astype(dt), _rand(rng, dt, s[1])]
    return gen


def _residual_inputs(shape):
    def gen(rng, dt, n):
        return _train_inputs(shape)(rng, dt, n) + [_rand(rng, dt, *shape(n))]
    return gen


def _backward_inputs(shape, with_stat_grads):
    def gen(rng, dt, n):
        s = shape(n)
        x = _rand(rng, dt, *s)
        _, mean, var = bn_train_ref(x, np.ones(s[1], dt), np.zeros(s[1], dt))
        arrays = [_rand(rng, dt, *s), x, rng.uniform(0.5, 1.5, s[1]).astype(dt), mean, var]
        if with_stat_grads:
            arrays += [_rand(rng, dt, s[1]), _rand(rng, dt, s[1])]
        return arrays
    return gen


def _inference_inputs(shape):
    def gen(rng, dt, n):
        s = shape(n)
        c = s[1]
        return [_rand(rng, dt, *s), rng.uniform(0.5, 1.5, c).astype(dt), _rand(rng, dt, c),
                _rand(rng, dt, c), rng.uniform(0.5, 2.0, c).astype(dt)]
    return gen


def _inference_backward_inputs(shape):
    def gen(rng, dt, n):
        x, gamma, _, running_mean, running_var = _inference_inputs(shape)(rng, dt, n)
        return [_rand(rng, dt, *x.shape), x, gamma, running_mean, running_var]
    return gen


def gn_ref(x, weight=None, bias=None, num_groups=1, eps=1e-5):
    """GroupNorm: y, and the [N, G] mean and rstd = 1/sqrt(biased var + eps) of each sample's groups."""
    n = x.shape[0]
    xg = x.astype(np.float64).reshape(n, num_groups, -1)
    mean = xg.mean(axis=2)
    rstd = 1.0 / np.sqrt(xg.var(axis=2) + eps)
    y = ((xg - mean[..., None]) * rstd[..., None]).reshape(x.shape)
    if weight is not None:
        y = y * _c(weight.astype(np.float64), x)
    if bias is not None:
        y = y + _c(bias.astype(np.float64), x)
    return y.astype(x.dtype), mean.astype(x.dtype), rstd.astype(x.dtype)


def gn_backward_ref(g, x, mean, rstd, weight=None, num_groups=1, eps=1e-5):
    """GroupNormBackward: dx, dweight, dbias, from the chain rule through gn_ref's y."""
    n, c = x.shape[:2]
    w = weight.astype(np.float64) if weight is not None else np.ones(c)
    g64 = g.astype(np.float64)
    xhat = ((x.astype(np.float64).reshape(n, num_groups, -1) - mean.astype(np.float64)[..., None])
            * rstd.astype(np.float64)[..., None]).reshape(x.shape)
    gw = (g64 * _c(w, x)).reshape(n, num_groups, -1)
    xh = xhat.reshape(n, num_groups, -1)
    dx = rstd.astype(np.float64)[..., None] * (gw - gw.mean(axis=2, keepdims=True)
                                               - xh * (gw * xh).mean(axis=2, keepdims=True))
    dweight = (g64 * xhat).sum(axis=_axes(x))
    dbias = g64.sum(axis=_axes(x))
    return dx.reshape(x.shape).astype(x.dtype), dweight.astype(x.dtype), dbias.astype(x.dtype)


def _gn_inputs(shape, affine, offset=0.0):
    """x, then weight (affine >= 1) and bias (affine == 2)."""
    def gen(rng, dt, n):
        s = shape(n)
        x = (rng.standard_normal(s) * 2.0 + offset).astype(dt)
        return [x, rng.uniform(0.5, 1.5, s[1]).astype(dt), _rand(rng, dt, s[1])][:1 + affine]
    return gen


def _gn_backward_inputs(shape, groups, weight):
    def gen(rng, dt, n):
        s = shape(n)
        x = _rand(rng, dt, *s)
        _, mean, rstd = gn_ref(x, num_groups=groups)
        arrays = [_rand(rng, dt, *s), x, mean, rstd]
        return arrays + ([rng.uniform(0.5, 1.5, s[1]).astype(dt)] if weight else [])
    return gen


_GN_BATCH = lambda n: (n, 6, 3, 4)        # n in the batch axis; 3 groups of 2 channels
_GN_SPATIAL = lambda n: (2, 4, n, n + 1)  # n in the spatial axes; 2 groups
_GN_NC = lambda n: (n + 1, 4)             # no axes after C: a group is C/G values
_GN_NCL = lambda n: (3, 6, n)
_GN_NCDHW = lambda n: (2, 3, n, 2, 2)


_BATCH = lambda n: (n, 3, 4, 5)        # n in the batch axis
_SPATIAL = lambda n: (3, 2, n, n + 2)  # n in the spatial axes
# The other ranks the ops take as they are (BatchNorm1D's (N, C) and (N, C, L), 5-d batch_norm):
_NC = lambda n: (n + 2, 3)
_NCL = lambda n: (2, 3, n + 1)
_NCDHW = lambda n: (2, 2, n, 2, 3)

SPECS = [
    # grad_outputs default: y, mean and var all get a cotangent, so the rule's handling of
    # gradients that flow into the statistics is checked too.
    OpSpec("BatchNorm2DTrain", bn_train_ref, _train_inputs(_BATCH), attrs={"eps": 1e-5}, grad=(0, 1, 2),
           name="BatchNorm2DTrain-batch"),
    OpSpec("BatchNorm2DTrain", bn_train_ref, _train_inputs(_SPATIAL), attrs={"eps": 1e-3}, grad=(0, 1, 2),
           grad_outputs=(0,), name="BatchNorm2DTrain-spatial-y-only"),
    # Data far from zero: a one-pass E[x^2] - E[x]^2 in float32 would lose the variance.
    OpSpec("BatchNorm2DTrain", bn_train_ref, _train_inputs(_BATCH, offset=1000.0), name="BatchNorm2DTrain-offset-1000",
           rtol={"float32": 2e-4, "float64": 1e-9}, atol={"float32": 2e-4, "float64": 1e-9}),
    # the fusion pass's residual form (CPU): y = relu(bn(x) + residual); residual's gradient included
    OpSpec("BatchNorm2DTrain", bn_train_residual_ref, _residual_inputs(_BATCH), attrs={"eps": 1e-5}, grad=(0, 1, 2, 3),
           name="BatchNorm2DTrain-residual", cuda_unsupported="the residual form is fused on CPU plans only"),
    OpSpec("BatchNorm2DTrain", bn_train_residual_ref, _residual_inputs(_SPATIAL),
           attrs={"eps": 1e-5, "activation": "relu"}, grad=(0, 1, 2, 3), grad_outputs=(0,),
           name="BatchNorm2DTrain-residual-relu", cuda_unsupported="the residual form is fused on CPU plans only"),
    OpSpec("BatchNorm2DBackward", bn_backward_ref, _backward_inputs(_BATCH, False), name="BatchNorm2DBackward",
           rtol={"float32": 1e-4, "float64": 1e-9}, atol={"float32": 1e-4, "float64": 1e-10}),
    OpSpec("BatchNorm2DBackward", bn_backward_ref, _backward_inputs(_SPATIAL, True), name="BatchNorm2DBackward-stat-grads",
           rtol={"float32": 1e-4, "float64": 1e-9}, atol={"float32": 1e-4, "float64": 1e-10}),
    OpSpec("BatchNorm2DInference", bn_inference_ref, _inference_inputs(_BATCH), grad=(0, 1, 2, 3, 4),
           name="BatchNorm2DInference-batch"),
    OpSpec("BatchNorm2DInference", bn_inference_ref, _inference_inputs(_SPATIAL), attrs={"eps": 1e-3}, grad=(0, 1, 2),
           name="BatchNorm2DInference-spatial"),
    OpSpec("BatchNorm2DInferenceBackward", bn_inference_backward_ref,
           _inference_backward_inputs(_BATCH),
           rtol={"float32": 1e-4, "float64": 1e-9}, atol={"float32": 1e-4, "float64": 1e-10}),
    # In place: the running buffers must be contiguous, so no strided variant here (the strided
    # statistics are covered in test_nn_inplace_updates.py).
    OpSpec("BatchNorm2DTrain", bn_train_ref, _train_inputs(_NC), grad=(0, 1, 2), name="BatchNorm2DTrain-NC"),
    OpSpec("BatchNorm2DTrain", bn_train_ref, _train_inputs(_NCL), grad=(0, 1, 2), grad_outputs=(0,),
           name="BatchNorm2DTrain-NCL-y-only"),
    OpSpec("BatchNorm2DTrain", bn_train_ref, _train_inputs(_NCDHW), grad=(0, 1, 2), name="BatchNorm2DTrain-NCDHW"),
    OpSpec("BatchNorm2DBackward", bn_backward_ref, _backward_inputs(_NCL, True), name="BatchNorm2DBackward-NCL",
           rtol={"float32": 1e-4, "float64": 1e-9}, atol={"float32": 1e-4, "float64": 1e-10}),
    OpSpec("BatchNorm2DInference", bn_inference_ref, _inference_inputs(_NC), grad=(0, 1, 2, 3, 4),
           name="BatchNorm2DInference-NC"),
    OpSpec("BatchNorm2DInferenceBackward", bn_inference_backward_ref, _inference_backward_inputs(_NCL),
           rtol={"float32": 1e-4, "float64": 1e-9}, atol={"float32": 1e-4, "float64": 1e-10},
           name="BatchNorm2DInferenceBackward-NCL"),
    OpSpec("BatchNormUpdateStats", bn_update_stats_ref,
           lambda rng, dt, n: [_rand(rng, dt, n), rng.uniform(0.5, 2, n).astype(dt), _rand(rng, dt, n),
                               rng.uniform(0.5, 2, n).astype(dt)],
           attrs=lambda n: {"momentum": 0.1, "count": 4 * n + 2}, noncontiguous=False),
    OpSpec("BatchNorm2DTrainUpdate", bn_train_update_ref, _train_update_inputs(_BATCH),
           attrs=_train_update_attrs(_BATCH), noncontiguous=False, name="BatchNorm2DTrainUpdate"),
    OpSpec("BatchNorm2DTrainUpdate", bn_train_update_ref, _train_update_inputs(_SPATIAL),
           attrs=_train_update_attrs(_SPATIAL, momentum=0.3, counter_add=2, activation="relu"),
           noncontiguous=False, name="BatchNorm2DTrainUpdate-relu"),
    OpSpec("BatchNorm2DTrainUpdate", bn_train_update_ref, _train_update_inputs(_NCL),
           attrs=_train_update_attrs(_NCL), noncontiguous=False, name="BatchNorm2DTrainUpdate-NCL"),
    # GroupNorm: weight and bias optional; mean and rstd are saved for the backward only (no
    # cotangent reaches them: grad_outputs=(0,)).
    OpSpec("GroupNorm", gn_ref, _gn_inputs(_GN_BATCH, 2), attrs={"num_groups": 3, "eps": 1e-5}, grad=(0, 1, 2),
           grad_outputs=(0,), name="GroupNorm-batch"),
    OpSpec("GroupNorm", gn_ref, _gn_inputs(_GN_SPATIAL, 2), attrs={"num_groups": 2, "eps": 1e-3}, grad=(0, 1, 2),
           grad_outputs=(0,), name="GroupNorm-spatial"),
    OpSpec("GroupNorm", gn_ref, _gn_inputs(_GN_NC, 1), attrs={"num_groups": 2}, grad=(0, 1), grad_outputs=(0,),
           name="GroupNorm-NC-weight-only"),
    OpSpec("GroupNorm", gn_ref, _gn_inputs(_GN_NCL, 0), attrs={"num_groups": 6}, grad=(0,), grad_outputs=(0,),
           name="GroupNorm-NCL-a-channel-a-group"),
    OpSpec("GroupNorm", gn_ref, _gn_inputs(_GN_NCDHW, 2), attrs={"num_groups": 1}, grad=(0, 1, 2), grad_outputs=(0,),
           name="GroupNorm-NCDHW-one-group"),
    # Data far from zero: the two-pass variance keeps it.
    OpSpec("GroupNorm", gn_ref, _gn_inputs(_GN_BATCH, 2, offset=1000.0), attrs={"num_groups": 3},
           name="GroupNorm-offset-1000", rtol={"float32": 2e-4, "float64": 1e-9}, atol={"float32": 2e-4, "float64": 1e-9}),
    OpSpec("GroupNormBackward", gn_backward_ref, _gn_backward_inputs(_GN_BATCH, 3, True), attrs={"num_groups": 3},
           name="GroupNormBackward", rtol={"float32": 1e-4, "float64": 1e-9}, atol={"float32": 1e-4, "float64": 1e-10}),
    OpSpec("GroupNormBackward", gn_backward_ref, _gn_backward_inputs(_GN_SPATIAL, 2, False),
           attrs={"num_groups": 2, "eps": 1e-3}, name="GroupNormBackward-no-weight",
           rtol={"float32": 1e-4, "float64": 1e-9}, atol={"float32": 1e-4, "float64": 1e-10}),
]
