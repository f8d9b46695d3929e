"""enable_grad() and set_grad_enabled(True) inside inference_mode(): as in PyTorch, the gradient mode
says True (is_grad_enabled) but nothing is recorded: a result of an input that requires grad has no
grad_fn and does not require grad. inference_mode(False) inside it records again."""
import numpy as np
import pytest

import glassgrad as gg


def _switches():
    return [("enable_grad", gg.enable_grad), ("set_grad_enabled(True)", lambda: gg.set_grad_enabled(True))]


@pytest.mark.parametrize("name,switch", _switches())
def test_a_grad_switch_inside_inference_mode_records_nothing(name, switch):
    x = gg.ones(3, requires_grad=True)
    with gg.inference_mode(), switch():
        assert gg.is_grad_enabled()
        y = x * 2
    assert not y.requires_grad and y.grad_fn is None and y.is_inference()


def test_set_grad_enabled_called_inside_inference_mode_records_nothing_and_ends_with_the_block():
    x = gg.ones(3, requires_grad=True)
    with gg.inference_mode():
        gg.set_grad_enabled(True)
        assert gg.is_grad_enabled()
        assert not (x * 2).requires_grad
    assert gg.is_grad_enabled() and (x * 2).requires_grad


def test_a_custom_function_inside_inference_mode_with_enable_grad_records_nothing():
    class Double(gg.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = gg.ones(3, requires_grad=True)
    with gg.inference_mode(), gg.enable_grad():
        y = Double.apply(x)
    assert not y.requires_grad and y.grad_fn is None


def test_the_modes_come_back_in_order_after_nested_blocks():
    x = gg.ones(3, requires_grad=True)
    with gg.inference_mode():
        assert not gg.is_grad_enabled()
        with gg.enable_grad():
            with gg.no_grad():
                assert not gg.is_grad_enabled()
            assert gg.is_grad_enabled()
            with gg.inference_mode(False):  # inference mode off: records again
                y = x * 3
            assert gg.is_grad_enabled() and not (x * 3).requires_grad
        assert not gg.is_grad_enabled()
    assert gg.is_grad_enabled()
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0, 3.0])


@pytest.mark.parametrize("name,switch", _switches())
def test_against_torch(name, switch):
    torch = pytest.importorskip("torch")
    tswitch = {"enable_grad": torch.enable_grad}.get(name, lambda: torch.set_grad_enabled(True))
    xt, xg = torch.ones(3, requires_grad=True), gg.ones(3, requires_grad=True)
    with torch.inference_mode(), tswitch():
        yt, mode_t = xt * 2, torch.is_grad_enabled()
    with gg.inference_mode(), switch():
        yg, mode_g = xg * 2, gg.is_grad_enabled()
    assert (yg.requires_grad, mode_g) == (yt.requires_grad, mode_t)
