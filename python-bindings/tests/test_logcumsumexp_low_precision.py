"""logcumsumexp of float16 and bfloat16 computes in float32 and rounds once, as PyTorch's CPU
kernel: log(e**1.5 + e**0) = 1.7014 rounds to bfloat16 1.703125, where a scan in bfloat16 gave
1.6953125; the gradient keeps PyTorch's node."""
import numpy as np
import pytest

import glassgrad as gg


def test_rounded_once():
    x = gg.tensor([[1.5, -2.0, 3.0], [0.0, 2.0, 1.0]]).bfloat16()
    got = x.logcumsumexp(0)
    assert got.dtype == gg.bfloat16
    assert got.float().tolist() == [[1.5, -2.0, 3.0], [1.703125, 2.015625, 3.125]]
    h = gg.tensor([1.5, 0.0]).half().logcumsumexp(0)
    assert h.dtype == gg.float16 and h.float().tolist()[1] == float(np.float16(np.log(np.exp(1.5) + 1.0)))


def test_gradient_node_and_values():
    x = gg.tensor([1.0, 2.0]).bfloat16().requires_grad_()
    y = x.logcumsumexp(0)
    assert type(y.grad_fn).__name__ == "LogcumsumexpBackward0"
    y.sum().backward()
    assert x.grad.dtype == gg.bfloat16 and x.grad.float().tolist() == [1.265625, 0.73046875]


def test_as_torch():
    torch = pytest.importorskip("torch")
    a = (np.random.default_rng(0).standard_normal((50, 40)) * 4).astype(np.float32)
    got = gg.tensor(a).bfloat16().logcumsumexp(0).float().numpy()
    want = torch.tensor(a).bfloat16().logcumsumexp(0).float().numpy()
    np.testing.assert_array_equal(got, want)
