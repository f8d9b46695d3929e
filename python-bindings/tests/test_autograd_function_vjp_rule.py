"""A custom autograd.Function as PyTorch's documents it for forward mode: ctx.save_for_forward keeps
tensors for jvp (non-tensors refused with PyTorch's AssertionError), and the backward rule may be
named vjp (defining both vjp and backward is PyTorch's RuntimeError) (docs/autograd.md, "Custom
Functions")."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.autograd.forward_ad as fwAD


class _Scaled(gg.autograd.Function):
    """PyTorch's save_for_forward example: x * y * z with a jvp and a vjp."""

    @staticmethod
    def forward(ctx, x, y, z):
        ctx.save_for_backward(x, y)
        ctx.save_for_forward(x, y)
        ctx.z = z
        return x * y * z

    @staticmethod
    def jvp(ctx, x_t, y_t, _):
        x, y = ctx.saved_tensors
        return ctx.z * (y * x_t + x * y_t)

    @staticmethod
    def vjp(ctx, grad_out):
        x, y = ctx.saved_tensors
        return ctx.z * grad_out * y, ctx.z * grad_out * x, None


def _ab():
    return (gg.tensor(1.0, dtype=gg.float64, requires_grad=True),
            gg.tensor(2.0, dtype=gg.float64, requires_grad=True))


def test_a_vjp_rule_is_the_backward():
    a, b = _ab()
    _Scaled.apply(a, b, 4).backward()
    assert a.grad.item() == 8.0 and b.grad.item() == 4.0


def test_forward_mode_through_save_for_forward():
    a, b = _ab()
    with fwAD.dual_level():
        d = _Scaled.apply(fwAD.make_dual(a, gg.tensor(1.0, dtype=gg.float64)), b, 4)
        assert fwAD.unpack_dual(d).tangent.item() == 8.0


def test_func_jvp_of_a_function_that_saves_for_forward():
    class Exp(gg.autograd.Function):
        @staticmethod
        def forward(a):
            return a.exp()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(output)
            ctx.save_for_forward(output)

        @staticmethod
        def backward(ctx, g):
            (o,) = ctx.saved_tensors
            return g * o

        @staticmethod
        def jvp(ctx, t):
            (o,) = ctx.saved_tensors
            return t * o

    x = gg.tensor([0.0, 1.0], dtype=gg.float64)
    out, tangent = gg.func.jvp(Exp.apply, (x,), (gg.ones(2, dtype=gg.float64),))
    np.testing.assert_allclose(tangent.numpy(), np.exp([0.0, 1.0]))


def test_save_for_forward_refuses_a_number():
    class Bad(gg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_forward(x, 3)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(AssertionError) as e:
        Bad.apply(_ab()[0])
    assert str(e.value).splitlines()[0] == ("save_for_forward expects all arguments to be tensors; you should save "
                                            "non-tensors as attributes on ctx.")


def test_backward_and_vjp_both_defined_is_refused():
    class Both(gg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

        @staticmethod
        def vjp(ctx, g):
            return g

    with pytest.raises(RuntimeError, match="Implementing both 'backward' and 'vjp' for a custom Function is not "
                                           "allowed"):
        Both.apply(_ab()[0]).backward()
