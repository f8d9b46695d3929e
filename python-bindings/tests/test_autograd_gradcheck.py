"""glassgrad.autograd.gradcheck and gradgradcheck (PyTorch's signatures and slow-mode meaning,
docs/autograd.md "Checking gradients"), and the name of a custom Function's grad_fn."""
import warnings

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.autograd import GradcheckError, gradcheck, gradgradcheck


def _x():
    return gg.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], dtype=gg.float64, requires_grad=True)


def _w():
    return gg.tensor([0.3, -0.2, 0.1], dtype=gg.float64, requires_grad=True)


def _scaled_square(backward_scale: float, detach_in_backward: bool = False):
    """x ** 2 as a custom Function whose backward is backward_scale * x * g (2 is right)."""
    class Square(gg.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return g * backward_scale * (a.detach() if detach_in_backward else a)
    return Square


def test_right_gradients_pass_for_several_outputs_and_non_tensor_arguments():
    x, w = _x(), _w()
    assert gradcheck(lambda a, b: (a * b).sin().sum(1), (x, w))
    assert gradcheck(lambda a, b: ((a @ b).exp(), a.tanh()), (x, w))
    assert gradcheck(lambda a, k: a * k, (x, 3.0))
    assert gradcheck(lambda a: a.relu() + a.log_softmax(-1), x)  # a single tensor as inputs


def test_only_inputs_that_require_grad_are_checked():
    x, frozen = _x(), gg.tensor([1.0, 2.0, 3.0], dtype=gg.float64)
    assert gradcheck(lambda a, b: a * b, (x, frozen))


def test_a_wrong_backward_raises_a_runtime_error_naming_the_output_and_input():
    w = _w()
    wrong = _scaled_square(3.0)
    with pytest.raises(GradcheckError, match=r"Jacobian mismatch for output 0 with respect to input 1,") as info:
        gradcheck(lambda k, a: wrong.apply(a) * k, (2.0, w))
    assert isinstance(info.value, RuntimeError)
    assert "numerical:" in str(info.value) and "analytical:" in str(info.value)
    assert gradcheck(lambda a: wrong.apply(a), (w,), raise_exception=False) is False
    assert gradcheck(lambda a: _scaled_square(2.0).apply(a), (w,))


def test_the_jacobians_in_the_message_are_the_numbers_compared():
    w = _w()
    with pytest.raises(GradcheckError) as info:
        gradcheck(lambda a: _scaled_square(3.0).apply(a), (w,))
    text = str(info.value)
    numerical = text.split("numerical:")[1].split("analytical:")[0]
    analytical = text.split("analytical:")[1]
    # d(w_i^2)/dw_i = 2 w_i on the diagonal; the wrong backward gives 3 w_i
    assert "0.6" in numerical and "-0.4" in numerical
    assert "0.9" in analytical and "-0.6" in analytical


def test_no_input_that_requires_grad_is_a_value_error():
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        gradcheck(lambda a: a * 2, (gg.tensor([1.0], dtype=gg.float64),))


def test_float32_inputs_warn_as_pytorch_does():
    x = gg.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        gradcheck(lambda a: a * 2, (x,), raise_exception=False)
    assert any("Input #0 requires gradient and is not a double precision" in str(m.message) for m in seen)


def test_gradgradcheck_passes_second_derivatives_and_catches_a_wrong_one():
    x, w = _x(), _w()
    assert gradgradcheck(lambda a, b: (a * b).sin(), (x, w))
    assert gradgradcheck(lambda a: a.tanh().sum(), (x,), (gg.tensor(1.5, dtype=gg.float64, requires_grad=True),))
    # abs' gradient g * sign(a) jumps at 0: its finite difference there is g / eps, its rule 0
    at_zero = gg.tensor([0.0, 1.0], dtype=gg.float64, requires_grad=True)
    assert gradcheck(lambda a: a.abs(), (at_zero,))
    with pytest.raises(GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0,"):
        gradgradcheck(lambda a: a.abs(), (at_zero,))


def test_gradgradcheck_through_a_custom_function_differentiates_its_backward():
    # its backward is made of differentiable ops, so its second derivative is checked as PyTorch's
    assert gradgradcheck(lambda a: _scaled_square(2.0).apply(a), (_w(),))
    # a backward that detaches what it reads has the wrong second derivative: gradgradcheck sees it
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        gradgradcheck(lambda a: _scaled_square(2.0, detach_in_backward=True).apply(a), (_w(),))


def test_the_inputs_are_left_as_they_were():
    x = _x()
    before = x.detach().numpy().copy()
    gradcheck(lambda a: a.exp(), (x,))
    np.testing.assert_array_equal(x.detach().numpy(), before)
    assert x.grad is None


def test_a_custom_functions_grad_fn_is_named_after_its_class():
    Square = _scaled_square(2.0)
    Square.__name__ = "Square"
    y = Square.apply(_w())
    assert type(y.grad_fn).__name__ == "SquareBackward"
    assert y.grad_fn.name() == "SquareBackward"


def test_the_same_answers_as_pytorch():
    torch = pytest.importorskip("torch")
    for lib in (torch, gg):
        x = lib.tensor([[1.0, 2.0], [0.5, -1.0]], dtype=lib.float64, requires_grad=True)
        w = lib.tensor([0.3, -0.2], dtype=lib.float64, requires_grad=True)
        assert lib.autograd.gradcheck(lambda a, b: (a @ b).sigmoid(), (x, w))
        assert lib.autograd.gradgradcheck(lambda a, b: (a * b).cos(), (x, w))

        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, g):
                return g * 3
        assert lib.autograd.gradcheck(lambda a: Twice.apply(a), (w,), raise_exception=False) is False
        with pytest.raises(RuntimeError, match="Jacobian mismatch for output 0 with respect to input 0,"):
            lib.autograd.gradcheck(lambda a: Twice.apply(a), (w,))
        assert type(Twice.apply(w).grad_fn).__name__ == "TwiceBackward"
        at_zero = lib.tensor([0.0, 1.0], dtype=lib.float64, requires_grad=True)
        with pytest.raises(RuntimeError, match="Jacobian mismatch for output 0 with respect to input 0,"):
            lib.autograd.gradgradcheck(lambda a: a.abs(), (at_zero,))
