"""Elementwise results laid out as PyTorch's TensorIterator lays them out: a result computed
from a transposed or permuted tensor has its layout (strides, is_contiguous, what .view()
accepts); row-major inputs give row-major results. Expected strides are PyTorch 2.x's."""
import numpy as np
import pytest

import glassgrad as gg


def _x():
    return gg.arange(6.0).reshape(2, 3)


def _y():
    return gg.arange(24.0).reshape(2, 3, 4)


@pytest.mark.parametrize("make, strides", [
    (lambda: _x().t().exp(), (1, 3)),
    (lambda: _x().t() * 2, (1, 3)),
    (lambda: _x().t() + gg.ones(3, 2), (1, 3)),
    (lambda: gg.ones(3, 2) + _x().t(), (2, 1)),  # the first input's layout decides
    (lambda: _x().t() + gg.ones(2), (1, 3)),
    (lambda: gg.where(_x().t() > 2, _x().t(), 0.0), (1, 3)),
    (lambda: _x().t() > 1, (1, 3)),
    (lambda: _x().t().int(), (1, 3)),
    (lambda: _y().permute(2, 0, 1).sin(), (1, 12, 4)),
    (lambda: _y().permute(2, 0, 1) + _y().permute(2, 0, 1), (1, 12, 4)),
    (lambda: _y().transpose(0, 1).exp(), (4, 12, 1)),
    (lambda: _y().permute(2, 0, 1)[:, :, :1] * 1, (1, 4, 4)),
    (lambda: gg.ones(4, 3)[::2].t().exp(), (1, 3)),
    (lambda: _x().exp(), (3, 1)),
    (lambda: _x()[:, ::2] + 1, (2, 1)),
])
def test_result_strides_are_torchs(make, strides):
    assert make().stride() == strides


def test_values_gradients_and_node_are_unchanged():
    a = np.arange(6.0).reshape(2, 3)
    x = gg.tensor(a, requires_grad=True)
    y = x.t().exp() * x.t()
    assert not y.is_contiguous() and y.grad_fn.name() == "MulBackward0"
    np.testing.assert_allclose(y.detach().numpy(), np.exp(a.T) * a.T)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(a) * (a + 1))


def test_view_refuses_a_transposed_result_as_torch():
    y = _x().t() + 1
    with pytest.raises(RuntimeError, match="view"):
        y.view(6)
    assert y.reshape(6).tolist() == [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]
    assert y.contiguous().view(6).tolist() == [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]


def test_in_place_on_a_transposed_result():
    y = _x().t() * 1
    y.add_(1)
    y[0, 1] = -1.0
    assert y.tolist() == [[1.0, -1.0], [2.0, 5.0], [3.0, 6.0]]


@pytest.mark.parametrize("make", [
    lambda: gg.ones(8, 4, 3) + gg.ones(5, 4)[:, 1:],  # a sliced view's columns against the last dim
    lambda: gg.ones(5, 4)[:, 1:] * gg.ones(8, 4, 3),
    lambda: gg.ones(8, 4, 3).add_(gg.ones(5, 4)[:, 1:]),  # in place, as `tokens += pos[:, 1:n]`
    lambda: _x().t() - gg.ones(4),
])
def test_a_view_that_does_not_broadcast_raises_the_size_error(make):
    # the layout of a view's result is read only for shapes that broadcast; the others raise
    # PyTorch's sentence, not an error of the layout's own shape arithmetic
    with pytest.raises(gg.ShapeError, match=r"The size of tensor a \(\d+\) must match the size of tensor b"):
        make()


def test_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    for shape, perm in [((2, 3), (1, 0)), ((2, 3, 4), (2, 0, 1)), ((2, 3, 4), (1, 2, 0)), ((3, 1, 2), (2, 1, 0))]:
        a = rng.standard_normal(shape)
        b = rng.standard_normal([shape[p] for p in perm])
        for fn in (lambda L, t, u: t.exp(), lambda L, t, u: t + u, lambda L, t, u: u * t,
                   lambda L, t, u: L.maximum(t, u), lambda L, t, u: (t > 0).float()):
            want = fn(torch, torch.tensor(a).permute(*perm), torch.tensor(b))
            got = fn(gg, gg.tensor(a).permute(*perm), gg.tensor(b))
            assert got.stride() == want.stride() and got.is_contiguous() == want.is_contiguous()
            np.testing.assert_allclose(got.numpy(), want.numpy())


def test_channels_last_flows_through_elementwise_ops():
    x = gg.arange(24.0).reshape(1, 2, 3, 4).contiguous(memory_format=gg.channels_last)
    y = (x + 1).relu() * x
    assert y.stride() == (24, 1, 8, 2) and y.is_contiguous(memory_format=gg.channels_last)
    np.testing.assert_allclose(y.numpy(), (np.arange(24.0).reshape(1, 2, 3, 4) + 1) * np.arange(24.0).reshape(1, 2, 3, 4))
