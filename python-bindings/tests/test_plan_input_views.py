"""A realized tensor's view read by a plan (a Linear layer's weight.T at inference, x[:, ::2]) is
bound as it is on the CPU when only kernels that take strided inputs read it, and copied into
a contiguous tensor where anything else could see its layout: a view slot planned over it, an
in-place update of the same storage, the plan returning it (core-runtime executor.cpp,
strided_inputs_ok). Results must be the same either way."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F

RNG = np.random.default_rng(7)


@pytest.mark.parametrize("m,k,n", [(1, 37, 65), (5, 64, 33), (1, 1, 7), (3, 130, 1)])
def test_products_of_transposed_weight_views_match_numpy(m, k, n):
    w = RNG.standard_normal((n, k))
    a = RNG.standard_normal((m, k))
    wt, at = gg.tensor(w), gg.tensor(a)
    gg.realize(wt, at)
    np.testing.assert_allclose((at @ wt.T).numpy(), a @ w.T, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(F.linear(at, wt).numpy(), a @ w.T, rtol=1e-12, atol=1e-12)
    view = wt.T
    gg.realize(view)  # a realized view as the plan's input
    np.testing.assert_allclose((at @ view).numpy(), a @ w.T, rtol=1e-12, atol=1e-12)
    b = RNG.standard_normal((n, 3))
    np.testing.assert_allclose((view @ gg.tensor(b)).numpy(), w.T @ b, rtol=1e-12, atol=1e-12)  # A strided


def test_a_strided_view_read_by_elementwise_and_view_ops_keeps_its_values():
    x = RNG.standard_normal((6, 8))
    t = gg.tensor(x)
    gg.realize(t)
    v = t[:, ::2]
    gg.realize(v)
    np.testing.assert_allclose((v * 2 + 1).numpy(), x[:, ::2] * 2 + 1)
    np.testing.assert_allclose(v.reshape(-1).numpy(), x[:, ::2].reshape(-1))  # a view slot over it
    np.testing.assert_allclose(v.t().sum(1).numpy(), x[:, ::2].T.sum(1))
    e = gg.tensor(x[0]).expand(3, 8)
    gg.realize(e)
    np.testing.assert_allclose((e @ gg.tensor(x.T)).numpy(), np.broadcast_to(x[0], (3, 8)) @ x.T, rtol=1e-12)


def test_a_view_of_a_tensor_updated_in_the_same_plan_reads_the_old_values():
    w = RNG.standard_normal((4, 3))
    a = RNG.standard_normal((2, 3))
    wt, at = gg.tensor(w), gg.tensor(a)
    view = wt.T
    gg.realize(wt, at, view)
    y = at @ view
    wt.add_(10.0)  # the same storage, updated in place in the plan that computes y
    gg.realize(y, wt)
    np.testing.assert_allclose(y.numpy(), a @ w.T, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(wt.numpy(), w + 10.0)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m,k,n", [(1, 1152, 4096), (1, 17, 5), (3, 301, 1), (700, 64, 4), (2, 3, 1), (1, 16, 3),
                                   (4, 200, 2)])
def test_products_with_one_row_or_few_columns_match_numpy(threads, dtype, m, k, n):
    """The CPU MatMul's dot form (one row, or at most 4 columns, both operands contiguous along
    k) and its thread split, against NumPy in float64, for row-major and transposed operands and
    a broadcast batch."""
    before = gg.get_num_threads()
    gg.set_num_threads(threads)
    try:
        a = RNG.standard_normal((m, k)).astype(dtype)
        b = RNG.standard_normal((k, n)).astype(dtype)
        want = a.astype(np.float64) @ b.astype(np.float64)
        tol = (1e-5 if dtype == np.float32 else 1e-12) * np.sqrt(k) * max(1.0, np.abs(want).max())
        bt = gg.tensor(np.ascontiguousarray(b.T)).T  # columns contiguous along k, as weight.T
        for bb in (gg.tensor(b), bt):
            np.testing.assert_allclose((gg.tensor(a) @ bb).numpy(), want, rtol=0, atol=tol)
        batched = gg.tensor(np.stack([a, 2 * a])) @ bt  # [2, m, k] @ [k, n]
        np.testing.assert_allclose(batched.numpy(), np.stack([want, 2 * want]), rtol=0, atol=2 * tol)
    finally:
        gg.set_num_threads(before)
