"""Optimizer updates: SGDUpdate, SGDMomentumUpdate, AdamUpdate.

The references restate PyTorch's rules (torch.optim.SGD with dampening 0, torch.optim.Adam
with L2 weight decay) in NumPy, in float64, without modifying their arguments. The kernels
write in place, so the op table runs them on contiguous inputs only; several-step runs and the
in-place checks are in test_nn_inplace_updates.py."""
import numpy as np

from glassgrad.testing import OpSpec


def _f64(*arrays):
    return [np.asarray(a, dtype=np.float64) for a in arrays]


def sgd_ref(param, grad, lr, weight_decay=0.0):
    p, g, lr64 = _f64(param, grad, lr)
    d = g + weight_decay * p
    return (p - lr64 * d).astype(param.dtype)


def sgd_momentum_ref(param, grad, lr, buf, momentum, weight_decay=0.0, nesterov=False):
    p, g, lr64, b = _f64(param, grad, lr, buf)
    d = g + weight_decay * p
    b = momentum * b + d  # buf starts at zeros: the first step gives buf = d, as PyTorch's copy
    d = d + momentum * b if nesterov else b
    return (p - lr64 * d).astype(param.dtype), b.astype(buf.dtype)


def adam_ref(param, grad, lr, m, v, step, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0):
    p, g, lr64, m64, v64 = _f64(param, grad, lr, m, v)
    t = int(step) + 1
    d = g + weight_decay * p
    m64 = beta1 * m64 + (1 - beta1) * d
    v64 = beta2 * v64 + (1 - beta2) * d * d
    m_hat = m64 / (1 - beta1 ** t)
    v_hat = v64 / (1 - beta2 ** t)
    p = p - lr64 * m_hat / (np.sqrt(v_hat) + eps)
    return (p.astype(param.dtype), m64.astype(m.dtype), v64.astype(v.dtype), np.asarray(t, dtype=np.int64))


def _rand(rng, dtype, *shape):
    return rng.standard_normal(shape).astype(dtype)


def _lr(dt, value=0.1):
    return np.asarray(value, dtype=dt)


def _sgd_inputs(rng, dt, n):
    return [_rand(rng, dt, n, 3), _rand(rng, dt, n, 3), _lr(dt)]


def _momentum_inputs(rng, dt, n):
    return _sgd_inputs(rng, dt, n) + [_rand(rng, dt, n, 3)]


def _adam_inputs(rng, dt, n):
    return (_sgd_inputs(rng, dt, n) + [_rand(rng, dt, n, 3) * 0.1, rng.uniform(0, 0.1, (n, 3)).astype(dt)]
            + [np.asarray(3, dtype=np.int64)])


SPECS = [
    OpSpec("SGDUpdate", sgd_ref, _sgd_inputs, noncontiguous=False, name="SGDUpdate"),
    OpSpec("SGDUpdate", sgd_ref, _sgd_inputs, attrs={"weight_decay": 0.01}, noncontiguous=False,
           name="SGDUpdate-weight-decay"),
    OpSpec("SGDMomentumUpdate", sgd_momentum_ref, _momentum_inputs, attrs={"momentum": 0.9, "weight_decay": 0.01},
           noncontiguous=False, name="SGDMomentumUpdate"),
    OpSpec("SGDMomentumUpdate", sgd_momentum_ref, _momentum_inputs,
           attrs={"momentum": 0.8, "weight_decay": 0.0, "nesterov": True}, noncontiguous=False,
           name="SGDMomentumUpdate-nesterov"),
    OpSpec("AdamUpdate", adam_ref, _adam_inputs, attrs={"beta1": 0.9, "beta2": 0.999, "eps": 1e-8},
           noncontiguous=False, name="AdamUpdate"),
    OpSpec("AdamUpdate", adam_ref, _adam_inputs,
           attrs={"beta1": 0.8, "beta2": 0.99, "eps": 1e-6, "weight_decay": 0.05}, noncontiguous=False,
           name="AdamUpdate-weight-decay"),
]
