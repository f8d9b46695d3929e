"""The batch- and group-norm kernels' loops over one run (core-runtime/kernels/cpu/norm_loops.h)
are compiled per instruction set: the baseline copy (GLASSGRAD_CPU_ISA=generic) and this CPU's
give the same bits (the same operations in the same order, no FMA contraction), on 1 and 2
threads; values against NumPy's float64 formulas in both dtypes, with runs of odd lengths (the
loops' tails past the 8 accumulator lanes); float64 finite-difference gradients; PyTorch's
batch_norm and group_norm."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.kernels as K
from isa_runs import outputs_by_isa

# (N, C, spatial): runs of 1, 7, 9, 33 and 64 values, and a 2-d input (runs of one value).
SHAPES = [(3, 5, (7,)), (2, 4, (3, 3)), (4, 3, (3, 11)), (5, 6, ()), (2, 3, (8, 8))]


def _data(rng, shape, dtype):
    n, c, sp = shape
    x = (rng.standard_normal((n, c) + sp) * 3 + 1).astype(dtype)
    g = rng.standard_normal(x.shape).astype(dtype)
    gamma = rng.standard_normal(c).astype(dtype)
    beta = rng.standard_normal(c).astype(dtype)
    res = rng.standard_normal(x.shape).astype(dtype)
    return x, g, gamma, beta, res


def _kernels(dtype, threads):
    """Every norm kernel on every shape: {name: output array}."""
    out = {}
    rng = np.random.default_rng(7)
    old = gg.get_num_threads()
    gg.set_num_threads(threads)
    try:
        for i, shape in enumerate(SHAPES):
            x, g, gamma, beta, res = _data(rng, shape, dtype)
            key = f"{np.dtype(dtype).name}_{i}"
            y, mean, var = K.run_numpy("BatchNorm2DTrain", x, gamma, beta, eps=1e-5)
            out[key + "_train"], out[key + "_mean"], out[key + "_var"] = y, mean, var
            (out[key + "_train_residual_relu"], _, _) = K.run_numpy("BatchNorm2DTrain", x, gamma, beta, res, eps=1e-5,
                                                                   activation="relu")
            for j, a in enumerate(K.run_numpy("BatchNorm2DBackward", g, x, gamma, mean, var, eps=1e-5)):
                out[f"{key}_backward{j}"] = a
            rv = (var + 0.5).astype(dtype)
            out[key + "_inference"] = K.run_numpy("BatchNorm2DInference", x, gamma, beta, mean, rv, eps=1e-5)[0]
            if x.shape[1] % 2 == 0 or x.shape[1] % 3 == 0:
                groups = 2 if x.shape[1] % 2 == 0 else 3
                y, gm, rstd = K.run_numpy("GroupNorm", x, gamma, beta, eps=1e-5, num_groups=groups)
                out[key + "_group"] = y
                for j, a in enumerate(K.run_numpy("GroupNormBackward", g, x, gm, rstd, gamma, eps=1e-5,
                                                  num_groups=groups)):
                    out[f"{key}_group_backward{j}"] = a
    finally:
        gg.set_num_threads(old)
    return out


_CHILD = r"""
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import test_norm_loops_isa as t
out = {}
for dtype in (np.float32, np.float64):
    for threads in (1, 2):
        out.update({f"{k}_t{threads}": v for k, v in t._kernels(dtype, threads).items()})
np.savez(sys.argv[2], **out)
"""


def test_baseline_loops_give_this_cpus_bits(tmp_path):
    runs = outputs_by_isa(_CHILD, tmp_path)
    assert len(runs["generic"].files) > 100
    for key in runs["generic"].files:
        np.testing.assert_array_equal(runs["generic"][key], runs[""][key], err_msg=key)
        if key.endswith("_t2"):  # and the thread count changes nothing either
            np.testing.assert_array_equal(runs[""][key], runs[""][key[:-1] + "1"], err_msg=key)


def _reference(x, g, gamma, beta, res, eps=1e-5):
    """BatchNorm2DTrain (plain and with residual + ReLU) and BatchNorm2DBackward in float64."""
    x, g, gamma, beta, res = (a.astype(np.float64) for a in (x, g, gamma, beta, res))
    axes = (0,) + tuple(range(2, x.ndim))
    bc = (1, -1) + (1,) * (x.ndim - 2)
    mean, var = x.mean(axis=axes), x.var(axis=axes)
    invstd = 1 / np.sqrt(var + eps)
    xhat = (x - mean.reshape(bc)) * invstd.reshape(bc)
    y = xhat * gamma.reshape(bc) + beta.reshape(bc)
    m = x.size / x.shape[1]
    sg, sgx = g.sum(axis=axes), (g * xhat).sum(axis=axes)
    dx = (gamma * invstd / m).reshape(bc) * (m * g - sg.reshape(bc) - xhat * sgx.reshape(bc))
    return y, np.maximum(y + res, 0), mean, var, dx, sgx, sg


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype,tol", [(np.float32, 2e-5), (np.float64, 1e-12)])
def test_batch_norm_values_against_numpy(dtype, tol, threads):
    out = _kernels(dtype, threads)
    rng = np.random.default_rng(7)
    for i, shape in enumerate(SHAPES):
        x, g, gamma, beta, res = _data(rng, shape, dtype)
        y, y_rr, mean, var, dx, dgamma, dbeta = _reference(x, g, gamma, beta, res)
        key = f"{np.dtype(dtype).name}_{i}"
        got = [out[key + "_train"], out[key + "_train_residual_relu"], out[key + "_mean"], out[key + "_var"]]
        got += [out[f"{key}_backward{j}"] for j in range(3)]
        for name, a, b in zip(["y", "y+res relu", "mean", "var", "dx", "dgamma", "dbeta"], got,
                              [y, y_rr, mean, var, dx, dgamma, dbeta]):
            assert a.dtype == dtype, (key, name)
            np.testing.assert_allclose(a, b, rtol=tol, atol=tol * max(1.0, np.abs(b).max()), err_msg=f"{key} {name}")


def test_batch_norm_known_values():
    """Channel 0 holds 1, 2, 3, 4 (mean 2.5, biased variance 1.25), channel 1 is constant: with
    gamma 2, beta 1 and eps 0, y = 1 + 2 (x - 2.5) / sqrt(1.25); a constant channel gives beta."""
    x = np.array([[[1.0, 2.0], [5.0, 5.0]], [[3.0, 4.0], [5.0, 5.0]]], np.float32)  # [N=2, C=2, 2]
    y, mean, var = K.run_numpy("BatchNorm2DTrain", x, np.array([2.0, 3.0], np.float32),
                               np.array([1.0, -1.0], np.float32), eps=0.0)
    np.testing.assert_allclose(mean, [2.5, 5.0])
    np.testing.assert_allclose(var, [1.25, 0.0])
    want0 = 1 + 2 * (np.array([[1, 2], [3, 4]]) - 2.5) / np.sqrt(1.25)
    np.testing.assert_allclose(y[:, 0], want0, rtol=1e-6, atol=1e-6)
    # The constant channel, with eps 1e-5: exactly beta.
    y1, _, _ = K.run_numpy("BatchNorm2DTrain", x, np.array([2.0, 3.0], np.float32),
                           np.array([1.0, -1.0], np.float32), eps=1e-5)
    np.testing.assert_array_equal(y1[:, 1], -1.0)


def test_float64_gradients_match_finite_differences():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 4, 3, 5))
    w, b = rng.standard_normal(4), rng.standard_normal(4)
    bn = lambda a, c, d: gg.nn.functional.batch_norm(a, None, None, c, d, training=True)
    assert gg.debug.gradcheck(bn, [x, w, b])
    gn = lambda a, c, d: gg.nn.functional.group_norm(a, 2, c, d)
    assert gg.debug.gradcheck(gn, [x, w, b])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_against_pytorch(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 6, 5, 9)).astype(dtype)
    w, b = rng.standard_normal(6).astype(dtype), rng.standard_normal(6).astype(dtype)
    g = rng.standard_normal(x.shape).astype(dtype)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)
    for ours_f, theirs_f in (
        (lambda a, c, d: gg.nn.functional.batch_norm(a, None, None, c, d, training=True),
         lambda a, c, d: torch.nn.functional.batch_norm(a, None, None, c, d, training=True)),
        (lambda a, c, d: gg.nn.functional.group_norm(a, 3, c, d),
         lambda a, c, d: torch.nn.functional.group_norm(a, 3, c, d)),
    ):
        ours = [gg.tensor(a, requires_grad=True) for a in (x, w, b)]
        theirs = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
        y, ty = ours_f(*ours), theirs_f(*theirs)
        (y * gg.tensor(g)).sum().backward()
        (ty * torch.tensor(g)).sum().backward()
        np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), **tol)
        for o, t in zip(ours, theirs):
            np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), **tol)
