"""LeakyReLU (glassgrad.leaky_relu, glassgrad.nn.LeakyReLU) has PyTorch's semantics: slope
negative_slope below zero (default 0.01), gradient negative_slope * grad at x <= 0."""
import numpy as np

import glassgrad as gg


def _forward_backward(layer, x, g):
    t = gg.tensor(x, requires_grad=True)
    y = layer(t)
    (y * gg.tensor(g)).sum().backward()
    return y.detach().numpy(), t.grad.detach().numpy()


def test_leaky_relu_layer_has_the_default_slope_and_its_gradient_at_zero():
    x = np.array([-2.0, -0.5, 0.0, 0.5, 3.0], np.float32)
    g = np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32)
    y, dx = _forward_backward(gg.nn.LeakyReLU(), x, g)
    np.testing.assert_array_equal(y, np.where(x > 0, x, x * np.float32(0.01)))
    np.testing.assert_array_equal(dx, np.where(x > 0, g, g * np.float32(0.01)))
    assert repr(gg.nn.LeakyReLU(0.2)) == "LeakyReLU(negative_slope=0.2)"


def test_leaky_relu_matches_pytorch_forward_and_backward(torch, rng):
    x = rng.standard_normal((4, 3, 5)).astype(np.float32)
    x[0, 0, :2] = 0.0  # the kink: PyTorch gives the negative side's slope there
    g = rng.standard_normal(x.shape).astype(np.float32)
    for slope in (0.01, 0.2, -0.3):
        y, dx = _forward_backward(lambda t: gg.leaky_relu(t, slope), x, g)
        xt = torch.tensor(x, requires_grad=True)
        yt = torch.nn.functional.leaky_relu(xt, slope)
        yt.backward(torch.tensor(g))
        np.testing.assert_allclose(y, yt.detach().numpy(), rtol=0, atol=0)
        np.testing.assert_allclose(dx, xt.grad.numpy(), rtol=0, atol=0)
