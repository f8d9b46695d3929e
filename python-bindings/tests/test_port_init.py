"""Default initialization is PyTorch's (nn.Conv2d / nn.Linear reset_parameters), and
glassgrad.nn.init has torch.nn.init's functions and formulas."""
import math

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.nn import init


def _uniform_stats_ok(a, bound):
    """Values of U(-bound, bound): inside the bound, spread over it, std near bound/sqrt(3)."""
    a = np.asarray(a, dtype=np.float64).ravel()
    assert np.all(np.abs(a) <= bound * (1 + 1e-6))
    assert a.max() > 0.9 * bound and a.min() < -0.9 * bound
    assert abs(a.std() - bound / math.sqrt(3)) < 0.1 * bound


def test_conv2d_weights_and_biases_are_uniform_in_one_over_sqrt_fan_in():
    gg.manual_seed(0)
    conv = gg.Conv2D(16, 32, 3)
    bound = 1 / math.sqrt(16 * 9)
    _uniform_stats_ok(conv.weight.detach().numpy(), bound)
    b = conv.bias.detach().numpy()
    assert np.all(np.abs(b) <= bound) and np.count_nonzero(b) == 32


def test_linear_weights_and_biases_are_uniform_in_one_over_sqrt_fan_in():
    gg.manual_seed(1)
    fc = gg.Linear(200, 64)
    bound = 1 / math.sqrt(200)
    _uniform_stats_ok(fc.weight.detach().numpy(), bound)
    _uniform_stats_ok(fc.bias.detach().numpy(), bound)


def test_default_init_matches_pytorch_s_distribution(torch):
    torch.manual_seed(0)
    gg.manual_seed(0)
    for make_t, make_g, fan_in in ((lambda: torch.nn.Conv2d(16, 32, 3), lambda: gg.Conv2D(16, 32, 3), 144),
                                   (lambda: torch.nn.Linear(800, 10), lambda: gg.Linear(800, 10), 800)):
        t, g = make_t(), make_g()
        bound = 1 / math.sqrt(fan_in)
        for name in ("weight", "bias"):
            tw = getattr(t, name).detach().numpy()
            gw = getattr(g, name).detach().numpy()
            assert gw.shape == tw.shape and gw.dtype == tw.dtype
            assert np.abs(tw).max() <= bound and np.abs(gw).max() <= bound
        tw, gw = t.weight.detach().numpy(), g.weight.detach().numpy()
        assert abs(gw.std() - tw.std()) < 0.1 * tw.std()


def test_manual_seed_makes_initialization_repeatable():
    gg.manual_seed(5)
    a = gg.Linear(3, 4).weight.detach().numpy()
    gg.manual_seed(5)
    b = gg.Linear(3, 4).weight.detach().numpy()
    np.testing.assert_array_equal(a, b)


def test_calculate_gain_follows_the_table():
    assert init.calculate_gain("relu") == math.sqrt(2)
    assert init.calculate_gain("tanh") == 5 / 3
    assert init.calculate_gain("conv2d") == 1
    # PyTorch returns the int 1 for the linear functions and sigmoid (printed gains read "1", not "1.0")
    assert all(type(init.calculate_gain(n)) is int for n in ("linear", "conv2d", "conv_transpose1d", "sigmoid"))
    assert init.calculate_gain("leaky_relu", math.sqrt(5)) == pytest.approx(math.sqrt(1 / 3))
    assert init.calculate_gain("leaky_relu") == pytest.approx(math.sqrt(2 / (1 + 0.01 ** 2)))
    with pytest.raises(ValueError, match="Unsupported nonlinearity"):
        init.calculate_gain("swish")


def test_fans_of_conv_and_linear_weights():
    assert init._calculate_fan_in_and_fan_out(gg.zeros(8, 3, 5, 5)) == (75, 200)
    assert init._calculate_fan_in_and_fan_out(gg.zeros(10, 20)) == (20, 10)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init._calculate_fan_in_and_fan_out(gg.zeros(5))


def test_kaiming_normal_fan_out_relu_has_the_documented_std():
    gg.manual_seed(0)
    conv = gg.Conv2D(64, 128, 3)
    w = conv.weight
    assert init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu") is w
    std = math.sqrt(2) / math.sqrt(128 * 9)
    assert abs(w.detach().numpy().std() - std) < 0.03 * std


def test_init_functions_fill_in_place_and_keep_dtype_device_and_identity():
    gg.manual_seed(0)
    fc = gg.Linear(30, 20).double()
    w = fc.weight
    init.xavier_uniform_(w, gain=2.0)
    bound = 2.0 * math.sqrt(6 / 50)
    assert w.dtype == "float64" and fc.weight is w
    _uniform_stats_ok(w.detach().numpy(), bound)
    init.constant_(fc.bias, 0.25)
    np.testing.assert_array_equal(fc.bias.detach().numpy(), np.full(20, 0.25))
    init.zeros_(fc.bias)
    assert not fc.bias.detach().numpy().any()
    init.ones_(fc.bias)
    assert (fc.bias.detach().numpy() == 1).all()
    init.kaiming_uniform_(w, a=math.sqrt(5))
    _uniform_stats_ok(w.detach().numpy(), 1 / math.sqrt(30))
    init.normal_(w, 1.0, 0.01)
    assert abs(w.detach().numpy().mean() - 1.0) < 0.01
    init.trunc_normal_(w, std=1.0, a=-0.5, b=0.5)
    assert np.abs(w.detach().numpy()).max() <= 0.5
    init.eye_(w)
    np.testing.assert_array_equal(w.detach().numpy(), np.eye(20, 30))


def test_an_optimizer_updates_a_reinitialized_parameter():
    gg.manual_seed(0)
    fc = gg.Linear(4, 2)
    opt = gg.SGD(fc.parameters(), lr=0.5)
    init.zeros_(fc.weight)
    init.zeros_(fc.bias)
    x = gg.tensor(np.ones((3, 4), np.float32))
    fc(x).sum().backward()
    opt.step()
    np.testing.assert_allclose(fc.weight.detach().numpy(), np.full((2, 4), -1.5))
    np.testing.assert_allclose(fc.bias.detach().numpy(), np.full(2, -1.5))
