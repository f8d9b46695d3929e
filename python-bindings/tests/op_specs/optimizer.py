"""Optimizer updates: SGDUpdate, SGDMomentumUpdate, AdamUpdate, AdamAMSGradUpdate, Assign (the
in-place state write that RMSprop uses) and AddScalarInPlace (BatchNorm's num_batches_tracked
increment).

The references restate PyTorch's rules (torch.optim.SGD, Adam, AdamW; torch/optim/sgd.py and
adam.py) in NumPy, in float64, without modifying their arguments. lr, momentum and beta1 are
0-d inputs (schedules change them without recompiling). The kernels write in place, so the op
table runs them on contiguous inputs only; several-step runs and the in-place checks are in
test_nn_inplace_updates.py."""
import numpy as np

from glassgrad.testing import OpSpec


def _f64(*arrays):
    return [np.asarray(a, dtype=np.float64) for a in arrays]


def sgd_ref(param, grad, lr, weight_decay=0.0):
    p, g, lr64 = _f64(param, grad, lr)
    d = g + weight_decay * p
    return (p - lr64 * d).astype(param.dtype)


def sgd_momentum_ref(param, grad, lr, buf, momentum, weight_decay=0.0, dampening=0.0, nesterov=False):
    """buf starts at zeros: with dampening 0 the first step gives buf = d, PyTorch's copy."""
    p, g, lr64, b, mu = _f64(param, grad, lr, buf, momentum)
    d = g + weight_decay * p
    b = mu * b + (1 - dampening) * d
    d = d + mu * b if nesterov else b
    return (p - lr64 * d).astype(param.dtype), b.astype(buf.dtype)


def adam_ref(param, grad, lr, beta1, m, v, step, beta2=0.999, eps=1e-8, weight_decay=0.0,
             decoupled_weight_decay=False, v_max=None):
    p, g, lr64, b1, m64, v64 = _f64(param, grad, lr, beta1, m, v)
    b1 = float(b1)
    t = int(step) + 1
    if decoupled_weight_decay:
        p = p * (1 - lr64 * weight_decay)
        d = g
    else:
        d = g + weight_decay * p
    m64 = b1 * m64 + (1 - b1) * d
    v64 = beta2 * v64 + (1 - beta2) * d * d
    denom = v64 if v_max is None else np.maximum(np.asarray(v_max, np.float64), v64)
    p = p - lr64 * (m64 / (1 - b1 ** t)) / (np.sqrt(denom / (1 - beta2 ** t)) + eps)
    out = [p.astype(param.dtype), m64.astype(m.dtype), v64.astype(v.dtype)]
    if v_max is not None:
        out.append(denom.astype(v.dtype))
    return tuple(out + [np.asarray(t, dtype=np.int64)])


def adam_amsgrad_ref(param, grad, lr, beta1, m, v, v_max, step, **attrs):
    return adam_ref(param, grad, lr, beta1, m, v, step, v_max=v_max, **attrs)


def assign_ref(target, value):
    return np.array(value, dtype=target.dtype)


def _rand(rng, dtype, *shape):
    return rng.standard_normal(shape).astype(dtype)


def _scalar(dt, value):
    return np.asarray(value, dtype=dt)


def _sgd_inputs(rng, dt, n):
    return [_rand(rng, dt, n, 3), _rand(rng, dt, n, 3), _scalar(dt, 0.1)]


def _momentum_inputs(momentum):
    def gen(rng, dt, n):
        return _sgd_inputs(rng, dt, n) + [_rand(rng, dt, n, 3), _scalar(dt, momentum)]
    return gen


def _adam_inputs(beta1, amsgrad=False):
    def gen(rng, dt, n):
        m = _rand(rng, dt, n, 3) * 0.1
        v = rng.uniform(0, 0.1, (n, 3)).astype(dt)
        extra = [rng.uniform(0, 0.2, (n, 3)).astype(dt)] if amsgrad else []  # some v_max win, some lose
        return _sgd_inputs(rng, dt, n) + [_scalar(dt, beta1), m, v] + extra + [np.asarray(3, dtype=np.int64)]
    return gen


SPECS = [
    OpSpec("SGDUpdate", sgd_ref, _sgd_inputs, noncontiguous=False, name="SGDUpdate"),
    OpSpec("SGDUpdate", sgd_ref, _sgd_inputs, attrs={"weight_decay": 0.01}, noncontiguous=False,
           name="SGDUpdate-weight-decay"),
    OpSpec("SGDMomentumUpdate", sgd_momentum_ref, _momentum_inputs(0.9), attrs={"weight_decay": 0.01},
           noncontiguous=False, name="SGDMomentumUpdate"),
    OpSpec("SGDMomentumUpdate", sgd_momentum_ref, _momentum_inputs(0.8),
           attrs={"weight_decay": 0.0, "nesterov": True}, noncontiguous=False, name="SGDMomentumUpdate-nesterov"),
    OpSpec("SGDMomentumUpdate", sgd_momentum_ref, _momentum_inputs(0.7),
           attrs={"weight_decay": 0.02, "dampening": 0.3}, noncontiguous=False, name="SGDMomentumUpdate-dampening"),
    OpSpec("AdamUpdate", adam_ref, _adam_inputs(0.9), attrs={"beta2": 0.999, "eps": 1e-8},
           noncontiguous=False, name="AdamUpdate"),
    OpSpec("AdamUpdate", adam_ref, _adam_inputs(0.8),
           attrs={"beta2": 0.99, "eps": 1e-6, "weight_decay": 0.05}, noncontiguous=False,
           name="AdamUpdate-weight-decay"),
    OpSpec("AdamUpdate", adam_ref, _adam_inputs(0.85),
           attrs={"beta2": 0.99, "eps": 1e-6, "weight_decay": 0.05, "decoupled_weight_decay": True},
           noncontiguous=False, name="AdamUpdate-decoupled-weight-decay"),
    OpSpec("AdamAMSGradUpdate", adam_amsgrad_ref, _adam_inputs(0.9, amsgrad=True),
           attrs={"beta2": 0.99, "eps": 1e-8, "weight_decay": 0.01}, noncontiguous=False, name="AdamAMSGradUpdate"),
    # The target is written in place (contiguous); the value may be strided.
    OpSpec("Assign", assign_ref, lambda rng, dt, n: [np.zeros((n, 4), dt), _rand(rng, dt, n, 4)],
           dtypes=("float32", "float64"), noncontiguous=False, name="Assign"),
    OpSpec("Assign", assign_ref, lambda rng, dt, n: [np.zeros(n, dt), rng.integers(-5, 5, n).astype(dt)],
           dtypes=("int64",), noncontiguous=False, name="Assign-int64"),
    # A counter's increment, written into the target's buffer.
    OpSpec("AddScalarInPlace", lambda t, value: (t + value).astype(t.dtype),
           lambda rng, dt, n: [_rand(rng, dt, n, 3)], attrs={"value": 1.0},
           dtypes=("float32", "float64"), noncontiguous=False, name="AddScalarInPlace"),
    OpSpec("AddScalarInPlace", lambda t, value: (t + value).astype(t.dtype),
           lambda rng, dt, n: [rng.integers(-5, 5, n).astype(dt)], attrs={"value": 1.0},
           dtypes=("int64",), noncontiguous=False, name="AddScalarInPlace-int64"),
]
