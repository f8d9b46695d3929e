"""BatchNorm1d/2d training with float16 / bfloat16 parameters and running statistics, as PyTorch
runs them (it refused: the runtime's in-place statistics op takes no storage type): the running
statistics stay in their dtype, updated in float32 and rounded once. Expected values are
PyTorch 2.x's (CPU) for the same inputs; torch-free."""
import numpy as np
import pytest

import glassgrad as torch

X = [[0.0, 1.0, 2.0], [2.0, 5.0, 10.0]]  # per channel: mean (1, 3, 6), biased var (1, 4, 16), unbiased (2, 8, 32)
# PyTorch's values: running statistics after one step (momentum 0.1), then the eval output on X,
# and BatchNorm2d(momentum=None) after steps on x2 and 2 * x2 (a cumulative average)
EXPECTED = {
    "float16": dict(rtol=1e-3, mean=[0.0999755859375, 0.300048828125, 0.60009765625],
                    var=[1.099609375, 1.7001953125, 4.1015625],
                    eval=[[-0.0953369140625, 0.53662109375, 0.69140625], [1.8115234375, 3.603515625, 4.640625]],
                    cma_mean=[8.25, 14.25], cma_var=[49.28125, 49.28125]),
    "bfloat16": dict(rtol=8e-3, mean=[0.10009765625, 0.30078125, 0.6015625], var=[1.1015625, 1.703125, 4.09375],
                     eval=[[-0.09521484375, 0.53515625, 0.69140625], [1.8125, 3.59375, 4.65625]],
                     cma_mean=[8.25, 14.25], cma_var=[49.5, 49.5]),
}


def _close(t, want, rtol):
    np.testing.assert_allclose(t.detach().float().numpy(), want, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_batchnorm1d_half_training_updates_stats_in_their_dtype(name):
    dt, want = getattr(torch, name), EXPECTED[name]
    m = torch.nn.BatchNorm1d(3, dtype=dt)
    rm, rv = m.running_mean, m.running_var
    y = m(torch.tensor(X, dtype=dt))
    assert y.dtype == dt
    _close(y, [[-1.0] * 3, [1.0] * 3], want["rtol"])
    assert m.running_mean is rm and m.running_var is rv  # updated in place
    assert rm.dtype == dt and rv.dtype == dt and int(m.num_batches_tracked) == 1
    _close(rm, want["mean"], want["rtol"])
    _close(rv, want["var"], want["rtol"])
    m.eval()
    _close(m(torch.tensor(X, dtype=dt)), want["eval"], want["rtol"] * 2)


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_batchnorm2d_half_cumulative_average_and_gradients(name):
    dt, want = getattr(torch, name), EXPECTED[name]
    m = torch.nn.BatchNorm2d(2, momentum=None, dtype=dt)
    x2 = torch.arange(16.0).reshape(2, 2, 2, 2).to(dt)
    m(x2)
    y = m(x2 * 2)
    assert int(m.num_batches_tracked) == 2 and m.running_mean.dtype == dt
    _close(m.running_mean, want["cma_mean"], want["rtol"])
    _close(m.running_var, want["cma_var"], want["rtol"])
    y.float().mul(torch.tensor([1.0, 2.0]).reshape(1, 2, 1, 1)).sum().backward()
    assert m.weight.grad.dtype == dt and m.bias.grad.dtype == dt
    _close(m.bias.grad, [8.0, 16.0], want["rtol"])


def test_functional_batch_norm_half_stats_with_float_input():
    # F.batch_norm with float16 statistics and float16 input, momentum 0.5
    rm, rv = torch.zeros(3, dtype=torch.float16), torch.ones(3, dtype=torch.float16)
    torch.nn.functional.batch_norm(torch.tensor(X, dtype=torch.float16), rm, rv, training=True, momentum=0.5)
    _close(rm, [0.5, 1.5, 3.0], 1e-3)
    _close(rv, [1.5, 4.5, 16.5], 1e-3)
