"""A custom autograd.Function's node class (type(out.grad_fn), Function._backward_cls) lives in
autograd.function whatever module defines the Function, as PyTorch's: print(y.grad_fn) shows
`<torch.autograd.function.MyReLUBackward object at 0x...>` there (eat_pytorch_in_20_days 2-3
prints it), `<glassgrad.autograd.function.MyReLUBackward object at 0x...>` here."""
import re

import pytest

import glassgrad as gg


class MyReLU(gg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (x > 0)


def test_node_class_lives_in_autograd_function():
    y = MyReLU.apply(gg.tensor([-1.0, 2.0], requires_grad=True))
    node = type(y.grad_fn)
    assert node is MyReLU._backward_cls
    assert node.__name__ == node.__qualname__ == "MyReLUBackward"
    assert node.__module__ == "glassgrad.autograd.function"
    assert re.fullmatch(r"<glassgrad\.autograd\.function\.MyReLUBackward object at 0x[0-9a-f]+>", repr(y.grad_fn))


def test_node_still_runs_backward():
    x = gg.tensor([-1.0, 2.0], requires_grad=True)
    MyReLU.apply(x).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0]


def test_matches_pytorch():
    torch = pytest.importorskip("torch")

    class TorchReLU(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clamp(min=0)

        @staticmethod
        def backward(ctx, grad):
            return grad

    y = TorchReLU.apply(torch.tensor([1.0], requires_grad=True))
    assert type(y.grad_fn).__module__ == "torch.autograd.function"
    assert repr(y.grad_fn).startswith("<torch.autograd.function.TorchReLUBackward object at 0x")
