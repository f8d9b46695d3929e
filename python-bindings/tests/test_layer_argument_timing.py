"""Pooling layers (MaxPool1d/2d, AvgPool1d/2d), convolutions (Conv*d, ConvTranspose*d: stride,
padding, dilation, output_padding, a kernel_size of 0), PixelShuffle/PixelUnshuffle and nn.GELU keep
their arguments as given and their forward refuses a bad one, as PyTorch's do: nn.MaxPool2d(3,
padding=2) builds and its call raises PyTorch's 'pad should be at most half of effective kernel
size, ...'; nn.Conv2d(1, 1, 0) builds an empty weight and its call raises 'kernel size should be
greater than zero'; nn.GELU('bad') builds and its call raises 'approximate argument must be either
none or tanh.' (docs/porting.md)."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad import nn
import glassgrad.nn.functional as F

IMAGE = gg.ones(1, 1, 6, 6)
SIGNAL = gg.ones(1, 1, 6)
VOLUME = gg.ones(1, 1, 4, 4, 4)

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
    (lambda: nn.Conv2d(1, 1, 0), IMAGE, RuntimeError,
     "kernel size should be greater than zero, but got kernel_height: 0 kernel_width: 0"),
    (lambda: nn.Conv1d(1, 1, 0), SIGNAL, RuntimeError, "kernel size should be greater than zero"),
    (lambda: nn.ConvTranspose2d(1, 1, 0), IMAGE, RuntimeError, "kernel size should be greater than zero"),
    (lambda: nn.Conv3d(1, 1, 0), VOLUME, RuntimeError, "kernel size should be greater than zero"),
    (lambda: nn.ConvTranspose3d(1, 1, 0), VOLUME, RuntimeError, "kernel size should be greater than zero"),
    (lambda: nn.Conv2d(1, 1, 3, stride=0), IMAGE, RuntimeError, "^conv2d: non-positive stride is not supported"),
    (lambda: nn.Conv1d(1, 1, 3, stride=-1), SIGNAL, RuntimeError, "non-positive stride is not supported"),
    (lambda: nn.Conv2d(1, 1, 3, padding=-1), IMAGE, RuntimeError, "negative padding is not supported"),
    (lambda: nn.Conv3d(1, 1, 3, padding=-1), VOLUME, RuntimeError, "negative padding is not supported"),
    (lambda: nn.Conv2d(1, 1, 3, dilation=0), IMAGE, RuntimeError,
     "dilation should be greater than zero, but got \\[0, 0\\]"),
    (lambda: nn.ConvTranspose2d(1, 1, 3, dilation=0), IMAGE, RuntimeError, "dilation should be greater than zero"),
    (lambda: nn.ConvTranspose2d(1, 1, 3, output_padding=-1), IMAGE, RuntimeError,
     "negative output_padding is not supported"),
    (lambda: nn.ConvTranspose1d(1, 1, 3, stride=0), SIGNAL, RuntimeError, "non-positive stride is not supported"),
    (lambda: nn.Conv2d(1, 1, 3, stride=1.5), IMAGE, TypeError, "stride"),
    (lambda: nn.PixelShuffle(0), gg.ones(1, 4, 2, 2), RuntimeError,
     "pixel_shuffle expects a positive upscale_factor, but got 0"),
    (lambda: nn.PixelUnshuffle(-1), gg.ones(1, 1, 4, 4), RuntimeError,
     "pixel_unshuffle expects a positive downscale_factor, but got -1"),
    (lambda: nn.PixelShuffle(2.0), gg.ones(1, 4, 2, 2), TypeError,
     "pixel_shuffle\\(\\): argument 'upscale_factor' \\(position 2\\) must be int, not float"),
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


@pytest.mark.parametrize("make,shown", [
    (lambda m: m.Conv2d(2, 2, 0), "Conv2d(2, 2, kernel_size=(0, 0), stride=(1, 1))"),
    (lambda m: m.Conv2d(2, 2, 3, stride=0, dilation=0), "Conv2d(2, 2, kernel_size=(3, 3), stride=(0, 0), "
                                                         "dilation=(0, 0))"),
    (lambda m: m.Conv1d(2, 2, 3, padding=-1), "Conv1d(2, 2, kernel_size=(3,), stride=(1,), padding=(-1,))"),
    (lambda m: m.ConvTranspose2d(2, 2, 3, output_padding=-1),
     "ConvTranspose2d(2, 2, kernel_size=(3, 3), stride=(1, 1), output_padding=(-1, -1))"),
    (lambda m: m.PixelShuffle(0), "PixelShuffle(upscale_factor=0)"),
])
def test_the_layer_prints_its_arguments_as_pytorch_keeps_them(make, shown):
    assert repr(make(nn)) == shown


def test_a_kernel_of_zero_builds_an_empty_weight():
    assert tuple(nn.Conv2d(2, 3, 0).weight.shape) == (3, 2, 0, 0)
    assert tuple(nn.ConvTranspose1d(2, 3, 0).weight.shape) == (2, 3, 0)


def test_a_negative_kernel_is_refused_at_construction_naming_it():
    with pytest.raises(RuntimeError, match="Trying to create tensor with negative dimension -1(?s:.*)kernel_size=-1"):
        nn.Conv2d(2, 2, -1)


def test_the_functions_refuse_an_empty_kernel():
    with pytest.raises(RuntimeError, match="kernel size should be greater than zero"):
        F.conv2d(IMAGE, gg.ones(1, 1, 0, 3))
    with pytest.raises(RuntimeError, match="kernel size should be greater than zero"):
        F.conv3d(VOLUME, gg.ones(1, 1, 0, 3, 3))


def test_torch_agrees():
    torch = pytest.importorskip("torch")
    layer = torch.nn.MaxPool2d(3, padding=2)
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel size"):
        layer(torch.ones(1, 1, 6, 6))
    assert repr(torch.nn.Conv2d(2, 2, 3, stride=0, dilation=0)) == ("Conv2d(2, 2, kernel_size=(3, 3), stride=(0, 0), "
                                                                   "dilation=(0, 0))")
    with pytest.raises(RuntimeError, match="kernel size should be greater than zero"):
        torch.nn.Conv2d(1, 1, 0)(torch.ones(1, 1, 6, 6))
    with pytest.raises(RuntimeError, match="negative padding is not supported"):
        torch.nn.Conv2d(1, 1, 3, padding=-1)(torch.ones(1, 1, 6, 6))
    with pytest.raises(RuntimeError, match="pixel_shuffle expects a positive upscale_factor, but got 0"):
        torch.nn.PixelShuffle(0)(torch.ones(1, 4, 2, 2))
    gelu = torch.nn.GELU("bad")
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        gelu(torch.ones(2))
