"""A custom Function's instance, PyTorch's legacy autograd names, and backward(inputs=) of a
tensor that does not require grad, as PyTorch behaves: instantiating a Function warns
(DeprecationWarning) and gives an instance, calling it raises the legacy-function RuntimeError;
autograd.function.InplaceFunction, NestedIOFunction and FunctionMeta import;
autograd.is_multithreading_enabled and is_view_replay_enabled exist."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad import autograd
from glassgrad.autograd.function import FunctionMeta, InplaceFunction, NestedIOFunction

_LEGACY = "Legacy autograd function with non-static forward method is deprecated"
_INSTANTIATED = "should not be instantiated"


class Sq(autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


@pytest.mark.parametrize("args", [(), (gg.ones(2),)])
def test_instantiating_a_function_warns_and_gives_an_instance(args):
    with pytest.warns(DeprecationWarning, match=_INSTANTIATED):
        f = Sq(*args)
    assert isinstance(f, Sq)


def test_calling_the_instance_raises_the_legacy_error_and_apply_still_works():
    with pytest.warns(DeprecationWarning):
        f = Sq()
    with pytest.raises(RuntimeError, match=_LEGACY):
        f(gg.ones(2))
    x = gg.tensor([1.0, 3.0], requires_grad=True)
    f.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 6.0])


def test_inplace_function_keeps_its_flag_and_applies():
    class Double(InplaceFunction):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with pytest.warns(DeprecationWarning):
        assert Double(True).inplace is True and Double().inplace is False
    x = gg.ones(2, requires_grad=True)
    Double.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])


def test_nested_io_function_and_function_meta_are_the_classes_pytorch_names():
    assert issubclass(NestedIOFunction, autograd.Function) and isinstance(autograd.Function, FunctionMeta)


def test_multithreading_and_view_replay_switches_read_their_settings():
    assert autograd.is_multithreading_enabled() is True and autograd.is_view_replay_enabled() is False
    with autograd.set_multithreading_enabled(False):
        assert autograd.is_multithreading_enabled() is False
    assert autograd.is_multithreading_enabled() is True


@pytest.mark.parametrize("call", ["method", "autograd.backward"])
def test_backward_inputs_not_requiring_grad_raises_pytorchs_words(call):
    a, b = gg.ones(2, requires_grad=True), gg.ones(2)
    y = (a * b).sum()
    with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has requires_grad=False"):
        y.backward(inputs=[b]) if call == "method" else autograd.backward(y, inputs=[b])


def test_autograd_grad_of_an_input_not_requiring_grad_keeps_its_words():
    a, b = gg.ones(2, requires_grad=True), gg.ones(2)
    with pytest.raises(RuntimeError, match="One of the differentiated Tensors does not require grad"):
        autograd.grad((a * b).sum(), [b])


def test_against_torch():
    torch = pytest.importorskip("torch")
    from torch.autograd import function as tfunction
    assert {"InplaceFunction", "NestedIOFunction", "FunctionMeta"} <= set(dir(tfunction))
    assert torch.autograd.is_view_replay_enabled() == autograd.is_view_replay_enabled()
    a, b = torch.ones(2, requires_grad=True), torch.ones(2)
    with pytest.raises(RuntimeError) as expected:
        (a * b).sum().backward(inputs=[b])
    ga, gb = gg.ones(2, requires_grad=True), gg.ones(2)
    with pytest.raises(RuntimeError) as got:
        (ga * gb).sum().backward(inputs=[gb])
    assert str(got.value).splitlines()[0] == str(expected.value).splitlines()[0]
