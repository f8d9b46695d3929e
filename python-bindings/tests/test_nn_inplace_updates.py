"""In-place update ops (optimizers, batch-norm running statistics) run for several steps through
_C.run_op, which writes into the very tensors it is given, against NumPy restatements of
PyTorch's rules (op_specs/optimizer.py, op_specs/norm.py)."""
import numpy as np
import pytest

import glassgrad
from glassgrad import _C
from op_specs.norm import bn_train_ref, bn_update_stats_ref
from op_specs.optimizer import adam_amsgrad_ref, adam_ref, sgd_momentum_ref, sgd_ref

TOL = {"float32": dict(rtol=1e-5, atol=1e-6), "float64": dict(rtol=1e-12, atol=1e-13)}
DTYPES = ["float32", "float64"]


def _t(a):
    return _C.Tensor.from_numpy(np.asarray(a))


def _assert_in_place(outs, targets):
    """Each output is the input tensor it was declared in place on (same memory)."""
    for out, target in zip(outs, targets):
        assert out.data_ptr == target.data_ptr
        assert out.shape == target.shape


@pytest.mark.parametrize("dtype", DTYPES)
def test_sgd_update_writes_the_parameter_in_place_for_several_steps(dtype, rng):
    p_np = rng.standard_normal((5, 3)).astype(dtype)
    p, lr = _t(p_np), _t(np.asarray(0.05, dtype))
    for _ in range(4):
        g_np = rng.standard_normal((5, 3)).astype(dtype)
        outs = _C.run_op("SGDUpdate", [p, _t(g_np), lr], {"weight_decay": 0.01}, "")
        _assert_in_place(outs, [p])
        p_np = sgd_ref(p_np, g_np, np.asarray(0.05, dtype), weight_decay=0.01)
        np.testing.assert_allclose(p.numpy(), p_np, **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("nesterov", [False, True])
def test_sgd_momentum_matches_pytorch_rule_over_several_steps(dtype, nesterov, rng):
    p_np = rng.standard_normal((4, 7)).astype(dtype)
    buf_np = np.zeros_like(p_np)  # PyTorch starts from buf = d; zeros + momentum give the same
    p, buf = _t(p_np), _t(buf_np)
    attrs = {"weight_decay": 1e-3, "nesterov": nesterov}
    for step in range(5):
        g_np = rng.standard_normal((4, 7)).astype(dtype)
        lr_np = np.asarray(0.1 / (step + 1), dtype)  # a schedule: lr is a tensor input
        mu_np = np.asarray(0.85 + 0.02 * step, dtype)  # and so is momentum (OneCycleLR cycles it)
        outs = _C.run_op("SGDMomentumUpdate", [p, _t(g_np), _t(lr_np), buf, _t(mu_np)], attrs, "")
        _assert_in_place(outs, [p, buf])
        p_np, buf_np = sgd_momentum_ref(p_np, g_np, lr_np, buf_np, mu_np, **attrs)
        np.testing.assert_allclose(p.numpy(), p_np, **TOL[dtype])
        np.testing.assert_allclose(buf.numpy(), buf_np, **TOL[dtype])


def test_sgd_momentum_first_step_equals_plain_sgd_step():
    """With dampening 0, PyTorch's first step copies d into the buffer: p -= lr * d."""
    p_np = np.array([1.0, -2.0, 3.0])
    g_np = np.array([0.5, 0.25, -1.0])
    p = _t(p_np)
    _C.run_op("SGDMomentumUpdate", [p, _t(g_np), _t(np.asarray(0.1)), _t(np.zeros(3)), _t(np.asarray(0.9))], {}, "")
    np.testing.assert_allclose(p.numpy(), p_np - 0.1 * g_np, rtol=0, atol=1e-15)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("weight_decay,decoupled,amsgrad", [(0.0, False, False), (0.01, False, False),
                                                            (0.01, True, False), (0.01, True, True)])
def test_adam_matches_pytorch_rule_over_several_steps(dtype, weight_decay, decoupled, amsgrad, rng):
    p_np = rng.standard_normal((6, 5)).astype(dtype)
    m_np, v_np, v_max_np = np.zeros_like(p_np), np.zeros_like(p_np), np.zeros_like(p_np)
    step_np = np.asarray(0, dtype=np.int64)
    p, m, v, v_max, step = _t(p_np), _t(m_np), _t(v_np), _t(v_max_np), _t(step_np)
    lr_np = np.asarray(1e-2, dtype)
    attrs = {"beta2": 0.999, "eps": 1e-8, "weight_decay": weight_decay, "decoupled_weight_decay": decoupled}
    for k in range(6):
        g_np = (rng.standard_normal((6, 5)) * (3 if k == 1 else 1)).astype(dtype)  # v_max keeps step 1's
        b1_np = np.asarray(0.95 - 0.02 * k, dtype)  # beta1 is a tensor input (OneCycleLR cycles it)
        if amsgrad:
            outs = _C.run_op("AdamAMSGradUpdate", [p, _t(g_np), _t(lr_np), _t(b1_np), m, v, v_max, step], attrs, "")
            _assert_in_place(outs, [p, m, v, v_max, step])
            p_np, m_np, v_np, v_max_np, step_np = adam_amsgrad_ref(p_np, g_np, lr_np, b1_np, m_np, v_np, v_max_np,
                                                                   step_np, **attrs)
            np.testing.assert_allclose(v_max.numpy(), v_max_np, **TOL[dtype])
        else:
            outs = _C.run_op("AdamUpdate", [p, _t(g_np), _t(lr_np), _t(b1_np), m, v, step], attrs, "")
            _assert_in_place(outs, [p, m, v, step])
            p_np, m_np, v_np, step_np = adam_ref(p_np, g_np, lr_np, b1_np, m_np, v_np, step_np, **attrs)
        np.testing.assert_allclose(p.numpy(), p_np, **TOL[dtype])
        np.testing.assert_allclose(m.numpy(), m_np, **TOL[dtype])
        np.testing.assert_allclose(v.numpy(), v_np, **TOL[dtype])
    assert int(step.numpy()) == 6


def test_adam_first_step_moves_each_parameter_by_about_lr():
    """After one step the bias corrections cancel: p -= lr * g / (|g| + eps)."""
    g = np.array([3.0, -0.5, 1e-3])
    p = _t(np.zeros(3))
    _C.run_op("AdamUpdate", [p, _t(g), _t(np.asarray(0.01)), _t(np.asarray(0.9)), _t(np.zeros(3)), _t(np.zeros(3)),
                             _t(np.asarray(0, np.int64))], {}, "")
    np.testing.assert_allclose(p.numpy(), -0.01 * g / (np.abs(g) + 1e-8), rtol=1e-7)


@pytest.mark.parametrize("op", ["SGDUpdate", "SGDMomentumUpdate", "AdamUpdate"])
@pytest.mark.parametrize("view", ["transposed", "strided-slice"])
def test_optimizer_reads_a_noncontiguous_gradient_in_place(op, view, rng):
    """A Linear weight's gradient arrives as a transposed view; the update reads it directly."""
    p_np = rng.standard_normal((4, 6))
    if view == "transposed":
        g_np = rng.standard_normal((6, 4))
        g, g_dense = _t(g_np).transpose(0, 1), g_np.T
    else:
        g_np = rng.standard_normal((4, 12))
        g, g_dense = _t(g_np).slice(1, 1, 12, 2), g_np[:, 1::2]
    assert not g.is_contiguous()
    lr = np.asarray(0.1)
    p = _t(p_np)
    state = {"SGDUpdate": [], "SGDMomentumUpdate": [np.zeros((4, 6)), np.asarray(0.9)],
             "AdamUpdate": [np.asarray(0.9), np.zeros((4, 6)), np.zeros((4, 6)), np.asarray(0, np.int64)]}[op]
    attrs = {}
    _C.run_op(op, [p, g, _t(lr)] + [_t(s) for s in state], attrs, "")
    ref = {"SGDUpdate": sgd_ref, "SGDMomentumUpdate": sgd_momentum_ref, "AdamUpdate": adam_ref}[op]
    want = ref(p_np, np.ascontiguousarray(g_dense), lr, *state, **attrs)
    want = want[0] if isinstance(want, tuple) else want
    np.testing.assert_allclose(p.numpy(), want, rtol=1e-13, atol=1e-15)


def test_optimizer_refuses_a_noncontiguous_parameter():
    p = _t(np.zeros((6, 4))).transpose(0, 1)
    with pytest.raises(glassgrad.InvalidArgumentError, match=r"(?s)SGDUpdate.*in place must be contiguous.*fix:"):
        _C.run_op("SGDUpdate", [p, _t(np.zeros((4, 6))), _t(np.asarray(0.1))], {}, "")


@pytest.mark.parametrize("dtype", DTYPES)
def test_batchnorm_running_stats_follow_pytorch_over_several_batches(dtype, rng):
    """Train-mode batch norm, then BatchNormUpdateStats with count = N*H*W: running_var tracks
    the unbiased batch variance (PyTorch), while the normalization used the biased one."""
    c = 3
    rm_np, rv_np = np.zeros(c, dtype), np.ones(c, dtype)
    rm, rv = _t(rm_np), _t(rv_np)
    gamma, beta = np.ones(c, dtype), np.zeros(c, dtype)
    for _ in range(4):
        x = (rng.standard_normal((5, c, 3, 4)) * 3 + 2).astype(dtype)
        _, mean, var = _C.run_op("BatchNorm2DTrain", [_t(x), _t(gamma), _t(beta)], {"eps": 1e-5}, "")
        count = 5 * 3 * 4
        outs = _C.run_op("BatchNormUpdateStats", [rm, rv, mean, var], {"momentum": 0.1, "count": count}, "")
        _assert_in_place(outs, [rm, rv])
        x64 = x.astype(np.float64)
        rm_np = (0.9 * rm_np + 0.1 * x64.mean(axis=(0, 2, 3))).astype(dtype)
        rv_np = (0.9 * rv_np + 0.1 * x64.var(axis=(0, 2, 3), ddof=1)).astype(dtype)
        np.testing.assert_allclose(rm.numpy(), rm_np, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(rv.numpy(), rv_np, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(var.numpy(), x64.var(axis=(0, 2, 3)), rtol=1e-5)


def test_batchnorm_update_stats_reads_noncontiguous_batch_statistics(rng):
    rm_np, rv_np = rng.standard_normal(4), rng.uniform(0.5, 2, 4)
    stats = rng.uniform(0.5, 2, (2, 8))
    mean, var = _t(stats).slice(1, 0, 8, 2), _t(stats).slice(1, 1, 8, 2)  # strided rows
    mean, var = mean.select(0, 0), var.select(0, 1)
    assert not mean.is_contiguous()
    rm, rv = _t(rm_np), _t(rv_np)
    _C.run_op("BatchNormUpdateStats", [rm, rv, mean, var], {"momentum": 0.25, "count": 10}, "")
    want_rm, want_rv = bn_update_stats_ref(rm_np, rv_np, stats[0, 0::2], stats[1, 1::2], momentum=0.25, count=10)
    np.testing.assert_allclose(rm.numpy(), want_rm, rtol=1e-14)
    np.testing.assert_allclose(rv.numpy(), want_rv, rtol=1e-14)


def test_batchnorm_inference_with_running_stats_matches_train_mode_statistics(rng):
    """Once the running statistics equal the batch's (momentum 1, biased var), inference and
    train mode normalize identically."""
    x = rng.standard_normal((4, 2, 3, 3))
    gamma, beta = rng.uniform(0.5, 1.5, 2), rng.standard_normal(2)
    y_train, mean, var = bn_train_ref(x, gamma, beta)
    (y_inf,) = glassgrad.kernels.run_numpy("BatchNorm2DInference", x, gamma, beta, mean, var, eps=1e-5)
    np.testing.assert_allclose(y_inf, y_train, rtol=1e-12, atol=1e-12)
