"""Conv2D beyond the op table: the messages of its (and its backward ops') shape, attribute and
dtype errors, each naming the op and layer, the shapes involved and a fix that can be copied;
and which backward nodes its gradient rule emits."""
import numpy as np
import pytest

import glassgrad
from glassgrad import _C

CONV = {"stride": [1, 1], "padding": [0, 0, 0, 0]}


def _fail(op, arrays, attrs, scope="conv1"):
    tensors = [_C.Tensor.from_numpy(np.asarray(a)) for a in arrays]
    with pytest.raises(glassgrad.GlassgradError) as info:
        _C.run_op(op, tensors, attrs, scope)
    return info


def _z(*shape, dtype=np.float32):
    return np.zeros(shape, dtype)


def test_conv2d_channel_mismatch_gives_the_design_message():
    info = _fail("Conv2D", [_z(32, 3, 28, 28), _z(16, 1, 3, 3)], CONV)
    assert info.type is glassgrad.ShapeError
    msg = str(info.value)
    # ShapeContext::fail puts ': ' after the op and layer, as in every shape error.
    assert msg.startswith("Conv2D 'conv1': got input of shape [32, 3, 28, 28] but its weight expects 1 input channel\n")
    assert "input:  [32, 3, 28, 28] float32 cpu" in msg
    assert "weight: [16, 1, 3, 3] float32 cpu" in msg
    assert msg.rstrip().endswith("fix: build the layer as Conv2D(3, 16, 3), or convert the images to one channel")


def test_conv2d_channel_mismatch_with_several_channels_and_a_non_square_kernel():
    msg = str(_fail("Conv2D", [_z(2, 1, 9, 9), _z(8, 3, 3, 5)], CONV).value)
    assert "but its weight expects 3 input channels" in msg
    assert "fix: build the layer as Conv2D(1, 8, (3, 5)), or give the input 3 channels" in msg


def test_conv2d_single_image_without_batch_axis():
    msg = str(_fail("Conv2D", [_z(1, 28, 28), _z(16, 1, 3, 3)], CONV).value)
    assert msg.startswith("Conv2D 'conv1': expected a 4-d NCHW tensor, got 3-d [1, 28, 28]")
    assert "fix: x.reshape(1, *x.shape)" in msg


def test_conv2d_weight_of_wrong_rank():
    msg = str(_fail("Conv2D", [_z(2, 1, 8, 8), _z(16, 9)], CONV).value)
    assert "the weight must be 4-d [out_channels, in_channels, kh, kw], got 2-d [16, 9]" in msg
    assert "fix:" in msg


def test_conv2d_kernel_larger_than_the_padded_input():
    msg = str(_fail("Conv2D", [_z(4, 8, 2, 2), _z(8, 8, 3, 3)], CONV).value)
    assert "the 3x3 kernel is larger than the padded input (2x2)" in msg
    assert "input:   [4, 8, 2, 2] with padding [top, bottom, left, right] = [0, 0, 0, 0]" in msg
    assert "fix: use padding 'same' (here [1, 1, 1, 1])" in msg
    # The same input with padding 1 fits.
    out = _C.run_op("Conv2D", [_C.Tensor.from_numpy(_z(4, 8, 2, 2)), _C.Tensor.from_numpy(_z(8, 8, 3, 3))],
                    {"stride": [1, 1], "padding": [1, 1, 1, 1]}, "")
    assert out[0].shape == (4, 8, 2, 2)


@pytest.mark.parametrize("attrs,needle", [
    ({"stride": [0, 1], "padding": [0, 0, 0, 0]}, "stride must be two integers >= 1 [sh, sw], got [0, 1]"),
    ({"stride": [1, 1, 1], "padding": [0, 0, 0, 0]}, "stride must be two integers >= 1 [sh, sw], got [1, 1, 1]"),
    ({"stride": [1, 1], "padding": [1, 1]}, "padding must be four integers >= 0 [top, bottom, left, right], got [1, 1]"),
    ({"stride": [1, 1], "padding": [0, -1, 0, 0]}, "padding must be four integers >= 0"),
    ({"stride": [1, 1], "padding": [0, 0, 0, 0], "dilation": [0, 2]}, "dilation must be two integers >= 1 [dh, dw], got [0, 2]"),
    ({"stride": [1, 1], "padding": [0, 0, 0, 0], "groups": 0}, "groups must be an integer >= 1, got 0"),
])
def test_conv2d_bad_stride_padding_or_dilation(attrs, needle):
    msg = str(_fail("Conv2D", [_z(1, 1, 8, 8), _z(2, 1, 3, 3)], attrs).value)
    assert msg.startswith("Conv2D 'conv1': ")
    assert needle in msg
    assert "fix:" in msg


def test_conv2d_integer_input_is_a_dtype_error():
    info = _fail("Conv2D", [_z(1, 1, 8, 8, dtype=np.int64), _z(2, 1, 3, 3, dtype=np.int64)], CONV)
    assert info.type is glassgrad.DTypeError and issubclass(info.type, TypeError)
    assert "expected a float32 or float64 tensor, got int64 [1, 1, 8, 8]" in str(info.value)


def test_conv2d_weight_of_another_float_dtype_is_a_dtype_error():
    info = _fail("Conv2D", [_z(1, 1, 8, 8), _z(2, 1, 3, 3, dtype=np.float64)], CONV)
    assert info.type is glassgrad.DTypeError
    assert "inputs have different dtypes: float32 and float64" in str(info.value)


def test_conv2d_bias_of_wrong_shape():
    msg = str(_fail("Conv2D", [_z(1, 1, 8, 8), _z(16, 1, 3, 3), _z(8)], CONV).value)
    assert "the bias must have shape [16] (one value per output channel), got [8]" in msg
    assert "fix: create the bias with shape [16]" in msg


def test_conv2d_backward_input_grad_out_that_does_not_match_the_forward():
    attrs = dict(CONV, input_shape=[2, 3, 10, 10])
    msg = str(_fail("Conv2DBackwardInput", [_z(2, 4, 9, 8), _z(4, 3, 3, 3)], attrs).value)
    assert msg.startswith("Conv2DBackwardInput 'conv1': grad_out has shape [2, 4, 9, 8]")
    assert "the convolution of [2, 3, 10, 10] by [4, 3, 3, 3] gives [2, 4, 8, 8]" in msg
    assert "fix: pass the forward Conv2D's stride, padding, dilation, groups and input/weight shapes unchanged" in msg


def test_conv2d_backward_weight_with_a_bad_weight_shape_attribute():
    attrs = dict(CONV, weight_shape=[4, 3, 3])
    msg = str(_fail("Conv2DBackwardWeight", [_z(2, 3, 10, 10), _z(2, 4, 8, 8)], attrs).value)
    assert "weight_shape must be four sizes >= 1, got [4, 3, 3]" in msg


def test_conv2d_backward_weight_channel_mismatch_names_both_shapes():
    attrs = dict(CONV, weight_shape=[4, 2, 3, 3])
    msg = str(_fail("Conv2DBackwardWeight", [_z(2, 3, 10, 10), _z(2, 4, 8, 8)], attrs).value)
    assert "got input of shape [2, 3, 10, 10] but its weight expects 2 input channels" in msg


def _conv_graph(x_requires_grad, with_bias):
    g = _C.Graph()
    x = g.add_leaf("x", [2, 1, 8, 8], "float32", "cpu", "input", x_requires_grad)
    w = g.add_leaf("w", [4, 1, 3, 3], "float32", "cpu", "parameter", True)
    inputs = [x, w]
    if with_bias:
        inputs.append(g.add_leaf("b", [4], "float32", "cpu", "parameter", True))
    y = g.add("Conv2D", inputs, CONV, "conv1")[0]
    loss = g.add("Sum", [y], {"dims": [], "keepdim": False})[0]
    wrt = inputs if x_requires_grad else inputs[1:]
    grads = g.backward(loss, wrt)
    return g, grads


def test_conv2d_gradient_skips_the_input_gradient_of_an_image_that_needs_none():
    g, grads = _conv_graph(x_requires_grad=False, with_bias=True)
    text = str(g)
    assert "Conv2DBackwardWeight" in text
    assert "Conv2DBackwardInput" not in text
    assert "Sum(%7) dims=[0, 2, 3], keepdim=false -> [4]" in text  # the bias gradient
    assert all(v >= 0 for v in grads)


def test_conv2d_gradient_emits_both_backward_ops_when_the_input_needs_one():
    g, grads = _conv_graph(x_requires_grad=True, with_bias=False)
    text = str(g)
    assert "Conv2DBackwardInput" in text and "Conv2DBackwardWeight" in text
    assert "input_shape=[2, 1, 8, 8]" in text and "weight_shape=[4, 1, 3, 3]" in text
