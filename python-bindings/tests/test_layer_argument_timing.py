"""Pooling layers (MaxPool1d/2d, AvgPool1d/2d) and nn.GELU keep their arguments as given and their
forward refuses a bad one, as PyTorch's do: nn.MaxPool2d(3, padding=2) builds and its call raises
PyTorch's 'pad should be at most half of effective kernel size, ...'; nn.GELU('bad') builds and
its call raises 'approximate argument must be either none or tanh.' (docs/porting.md)."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad import nn
import glassgrad.nn.functional as F

IMAGE = gg.ones(1, 1, 6, 6)
SIGNAL = gg.ones(1, 1, 6)

BUILT_THEN_REFUSED = [
    (lambda: nn.MaxPool2d(3, padding=2), IMAGE, RuntimeError,
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and dilation=1"),
    (lambda: nn.AvgPool2d(3, padding=2), IMAGE, RuntimeError, "pad should be at most half of effective kernel size"),
    (lambda: nn.MaxPool2d(2, stride=0), IMAGE, RuntimeError, "stride"),
    (lambda: nn.MaxPool2d(2.5), IMAGE, TypeError, "kernel_size"),
    (lambda: nn.MaxPool2d(2, dilation=0), IMAGE, RuntimeError, "dilation"),
    (lambda: nn.AvgPool2d(2, divisor_override=0), IMAGE, RuntimeError, "divisor_override"),
    (lambda: nn.MaxPool1d(3, padding=2), SIGNAL, RuntimeError, "pad should be at most half"),
    (lambda: nn.AvgPool1d(3, padding=2), SIGNAL, RuntimeError, "pad should be at most half"),
    (lambda: nn.GELU("bad"), SIGNAL, RuntimeError, r"approximate argument must be either none or tanh\."),
    (lambda: nn.GELU(approximate=1), SIGNAL, TypeError, "gelu\\(\\): argument 'approximate' must be str, not int"),
]


@pytest.mark.parametrize("make,x,kind,text", BUILT_THEN_REFUSED)
def test_the_layer_builds_and_its_call_refuses(make, x, kind, text):
    layer = make()
    with pytest.raises(kind, match=text):
        layer(x)


def test_the_function_says_pytorch_s_padding_sentence_first():
    with pytest.raises(RuntimeError, match=r"^max_pool2d: pad should be at most half of effective kernel size"):
        F.max_pool2d(IMAGE, 3, padding=2)


def test_good_arguments_pool_as_before():
    x = gg.arange(36.0).reshape(1, 1, 6, 6)
    np.testing.assert_array_equal(nn.MaxPool2d(3, 2, 1)(x).numpy().ravel(), [7, 9, 11, 19, 21, 23, 31, 33, 35])
    np.testing.assert_allclose(nn.AvgPool1d(3, 2, 1)(gg.arange(6.0).reshape(1, 1, 6)).numpy().ravel(),
                               [1 / 3, 2, 4], rtol=1e-6)
    np.testing.assert_allclose(nn.GELU("tanh")(gg.ones(2)).numpy(), [0.841192, 0.841192], rtol=1e-5)


def test_torch_agrees():
    torch = pytest.importorskip("torch")
    layer = torch.nn.MaxPool2d(3, padding=2)
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel size"):
        layer(torch.ones(1, 1, 6, 6))
    gelu = torch.nn.GELU("bad")
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        gelu(torch.ones(2))
