"""Errors at the user's line, naming the layer by its module path, the op, every shape, dtype
and device, and a fix (docs/debugging.md); labels (its section 3); conv configurations (section 1)."""
import numpy as np
import pytest

import glassgrad


class Block(glassgrad.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv1 = glassgrad.Conv2D(cin, cout, 3, padding=1)
        self.bn1 = glassgrad.BatchNorm2D(cout)

    def forward(self, x):
        return glassgrad.relu(self.bn1(self.conv1(x)))


class ResNetLike(glassgrad.Module):
    def __init__(self, c2_in=8):
        super().__init__()
        self.layer1 = glassgrad.Sequential(Block(3, 8))
        self.layer2 = glassgrad.Sequential(Block(c2_in, 16))
        self.fc = glassgrad.Linear(16, 10)

    def forward(self, x):
        x = self.layer2(self.layer1(x))
        return self.fc(x.mean(dim=(2, 3)))


def _images(*shape, dtype=np.float32):
    return glassgrad.tensor(np.zeros(shape, dtype))


def test_a_channel_mismatch_deep_in_a_model_names_the_layer_path_shapes_and_fix():
    model = ResNetLike(c2_in=16)  # layer2 built for 16 channels, layer1 gives 8
    with pytest.raises(glassgrad.ShapeError) as e:
        model(_images(2, 3, 8, 8))
    msg = str(e.value)
    assert msg.startswith("Conv2D 'layer2.0.conv1': got input of shape [2, 8, 8, 8] but its weight expects 16 "
                          "input channels")
    assert "input:  [2, 8, 8, 8] float32 cpu" in msg and "weight: [16, 16, 3, 3] float32 cpu" in msg
    assert "fix: build the layer as Conv2D(8, 16, 3)" in msg


def test_calling_a_sub_layer_alone_keeps_its_path_in_messages():
    model = ResNetLike(c2_in=16)
    with pytest.raises(glassgrad.ShapeError):
        model(_images(2, 3, 8, 8))  # the top-level call names every layer by its path
    with pytest.raises(glassgrad.ShapeError, match=r"^Conv2D 'layer2\.0\.conv1': "):
        model.layer2(_images(2, 8, 8, 8))
    assert model.layer2[0].conv1.weight.name == "layer2.0.conv1.weight"


def test_float64_input_to_a_float32_layer_names_both_dtypes_and_the_conversion():
    model = ResNetLike()
    with pytest.raises(glassgrad.DTypeError) as e:
        model(_images(2, 3, 8, 8, dtype=np.float64))
    msg = str(e.value)
    assert msg.startswith("Conv2d 'layer1.0.conv1': the input is float64 but the layer's parameters are float32")
    assert "input:  [2, 3, 8, 8] float64 cpu" in msg and "weight: [8, 3, 3, 3] float32 cpu" in msg
    assert "NumPy arrays are float64 unless converted" in msg
    assert "fix: x = x.float()   (or convert the model: model.double())" in msg


def test_uint8_images_into_a_linear_layer_suggest_scaling_to_float():
    fc = glassgrad.Linear(4, 2)
    with pytest.raises(glassgrad.DTypeError, match=r"(?s)^Linear: the input is uint8 .*fix: x = x\.float\(\) / 255"):
        fc(_images(3, 4, dtype=np.uint8))


def test_batchnorm_checks_the_input_dtype_with_its_path():
    model = ResNetLike()
    model.layer1[0].conv1 = glassgrad.Conv2D(3, 8, 3, padding=1)
    model.layer1[0].conv1.double()
    with pytest.raises(glassgrad.DTypeError, match=r"^BatchNorm2d 'layer1\.0\.bn1': the input is float64"):
        model(_images(2, 3, 8, 8, dtype=np.float64))


def test_linear_feature_mismatch_names_the_path_and_suggests_flatten():
    model = glassgrad.Sequential(glassgrad.Flatten(start_dim=2), glassgrad.Linear(7, 3))
    with pytest.raises(glassgrad.ShapeError) as e:
        model(_images(2, 3, 4))
    msg = str(e.value)
    assert msg.startswith("Linear '1' got input of shape [2, 3, 4] but expects 7 features in the last axis")
    assert "fix: build the layer as Linear(4, 3)" in msg


def test_a_device_mismatch_names_the_op_layer_every_input_and_device():
    # Graph-level (no GPU needed): the check the tracer runs at record time for every op.
    g = glassgrad._C.Graph()
    x = g.add_leaf("x", [2, 3], "float32", "cpu")
    w = g.add_leaf("fc.weight", [3, 4], "float32", "cuda:0", "parameter", True)
    with pytest.raises(glassgrad.DeviceError) as e:
        g.add("MatMul", [x, w], {}, "layer2.0.fc")
    msg = str(e.value)
    assert msg.startswith("MatMul 'layer2.0.fc': inputs are on different devices")
    assert "[2, 3] float32 on cpu" in msg and "[3, 4] float32 on cuda:0" in msg
    assert "fix: move everything to one device" in msg


# ---- labels (docs/debugging.md section 3) ----------------------------------------------------------------

def test_int32_numpy_labels_are_refused_by_cross_entropy_with_the_astype_fix():
    logits = _images(4, 10)
    with pytest.raises(glassgrad.DTypeError) as e:
        glassgrad.cross_entropy(logits, np.array([1, 2, 3, 4], np.int32))
    msg = str(e.value)
    assert msg.startswith("CrossEntropy: labels must be int64 (or uint8) class indices, got a NumPy array of int32 [4]")
    assert "logits: [4, 10] float32 cpu" in msg and "fix: y.astype(np.int64)" in msg


def test_int32_label_tensors_are_refused_by_the_losses_as_pytorch_refuses_them():
    labels = glassgrad.tensor(np.arange(4, dtype=np.int32))  # an int32 tensor is fine in itself
    assert labels.dtype == glassgrad.int32
    for loss in (glassgrad.nn.functional.cross_entropy, glassgrad.nn.functional.nll_loss):
        with pytest.raises(glassgrad.DTypeError, match=r"(?s)labels must be int64.*int32.*fix:"):
            loss(_images(4, 10), labels)


def test_unsigned_wide_arrays_are_refused_when_made_into_a_tensor():
    with pytest.raises(glassgrad.DTypeError,
                       match=r"(?s)NumPy dtype uint32 is not supported.*fix: y\.astype\(np\.int64\)"):
        glassgrad.tensor(np.arange(4, dtype=np.uint32))


def test_float_label_tensors_are_refused_inside_a_model_scope():
    class WithLoss(glassgrad.Module):
        def __init__(self):
            super().__init__()
            self.fc = glassgrad.Linear(3, 10)

        def forward(self, x, y):
            return glassgrad.cross_entropy(self.fc(x), y)

    with pytest.raises(glassgrad.DTypeError) as e:
        WithLoss()(_images(4, 3), glassgrad.tensor(np.arange(4, dtype=np.float32)))
    msg = str(e.value)
    assert msg.startswith("CrossEntropy 'WithLoss': labels must be int64 (or uint8) class indices, got float32 [4]")
    assert "fix: y.astype(np.int64)" in msg


def test_nll_loss_refuses_labels_that_are_not_int64_with_cross_entropys_words():
    logp = _images(4, 10).log_softmax(1)
    with pytest.raises(glassgrad.DTypeError) as e:
        glassgrad.nll_loss(logp, glassgrad.tensor(np.arange(4, dtype=np.float32)))
    assert str(e.value).startswith("nll_loss: labels must be int64 (or uint8) class indices, got float32 [4]")
    with pytest.raises(glassgrad.DTypeError) as e:
        glassgrad.nll_loss(logp, np.arange(4, dtype=np.int16))
    msg = str(e.value)
    assert msg.startswith("nll_loss: labels must be int64 (or uint8) class indices, got a NumPy array of int16 [4]")
    assert "logits: [4, 10] float32 cpu" in msg and "fix: y.astype(np.int64)" in msg


# ---- grouped and dilated convolutions: the layer and the shape rules say what does not fit ------

def test_groups_that_do_not_divide_the_channels_are_refused_when_the_layer_is_built():
    with pytest.raises(glassgrad.InvalidArgumentError) as e:
        glassgrad.Conv2D(16, 30, 3, groups=4)
    msg = str(e.value)
    assert msg.startswith("Conv2d(16, 30, 3, groups=4): out_channels must be divisible by groups")  # PyTorch's
    assert "out_channels=30 is not divisible by groups=4" in msg
    assert "fix: choose groups dividing both 16 and 30" in msg


def test_functional_grouped_conv_with_a_weight_for_other_channels_names_the_groups():
    x, w = _images(1, 6, 8, 8), _images(4, 3, 3, 3)
    with pytest.raises(glassgrad.ShapeError) as e:
        glassgrad.conv2d(x, w, groups=3)
    msg = str(e.value)
    assert "with groups=3 its weight expects 9 input channels (3 per group)" in msg
    assert "fix:" in msg
    with pytest.raises(glassgrad.ShapeError, match="groups=3 does not divide the 4 output channels"):
        glassgrad.conv2d(_images(1, 3, 8, 8), _images(4, 1, 3, 3), groups=3)


def test_dilated_and_grouped_layers_have_pytorch_shapes():
    conv = glassgrad.Conv2D(8, 16, 3, padding="same", dilation=2, groups=4)
    assert conv.weight.shape == (16, 2, 3, 3)
    assert conv(_images(2, 8, 9, 9)).shape == (2, 16, 9, 9)  # 'same' pads dilation * (k - 1) = 4
    assert "dilation=(2, 2), groups=4" in repr(conv)
    depthwise = glassgrad.Conv2D(8, 8, 3, stride=2, padding=1, groups=8)
    assert depthwise(_images(1, 8, 9, 9)).shape == (1, 8, 5, 5)


def test_padding_same_keeps_the_size_for_odd_and_even_kernels():
    x = _images(1, 3, 7, 8)
    assert glassgrad.Conv2D(3, 4, 3, padding="same")(x).shape == (1, 4, 7, 8)
    assert glassgrad.Conv2D(3, 4, (2, 4), padding="same")(x).shape == (1, 4, 7, 8)
    with pytest.raises(RuntimeError, match="not supported for strided convolutions"):  # as PyTorch
        glassgrad.conv2d(x, _images(4, 3, 3, 3), stride=2, padding="same")


def test_a_dilated_kernel_larger_than_the_padded_input_names_its_span():
    with pytest.raises(glassgrad.ShapeError) as e:
        glassgrad.conv2d(_images(1, 2, 4, 4), _images(2, 2, 3, 3), dilation=2)
    msg = str(e.value)
    assert "the 3x3 kernel (dilation [2, 2] spans 5x5) is larger than the padded input (4x4)" in msg
    assert "fix: use padding 'same' (here [2, 2, 2, 2])" in msg


def test_a_kernel_larger_than_the_shrunk_image_says_what_to_change():
    class Deep(glassgrad.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = glassgrad.Conv2D(1, 4, 3)
            self.conv2 = glassgrad.Conv2D(4, 4, 5)

        def forward(self, x):
            x = glassgrad.max_pool2d(glassgrad.relu(self.conv1(x)), 2)
            x = glassgrad.max_pool2d(x, 2)
            return self.conv2(x)

    with pytest.raises(glassgrad.ShapeError) as e:
        Deep()(_images(1, 1, 12, 12))
    msg = str(e.value)
    assert msg.startswith("Conv2D 'conv2': the 5x5 kernel is larger than the padded input (2x2)")
    assert "input:   [1, 4, 2, 2]" in msg and "weight:  [4, 4, 5, 5]" in msg
    assert "fix: use padding 'same' (here [2, 2, 2, 2]), a smaller kernel, or less downsampling" in msg


def test_an_empty_image_axis_is_named_with_the_layer():
    conv = glassgrad.Sequential(glassgrad.Conv2D(1, 4, 3))
    with pytest.raises(glassgrad.ShapeError) as e:
        conv(_images(2, 1, 0, 8))
    msg = str(e.value)
    assert msg.startswith("Conv2d '0': the input [2, 1, 0, 8] is empty along C, H or W")
    assert "fix: give the layer [N, 1, H, W] input with H >= 3 and W >= 3" in msg


def test_an_empty_batch_is_fine():
    out = glassgrad.Conv2D(1, 4, 3)(_images(0, 1, 8, 8))
    assert out.detach().numpy().shape == (0, 4, 6, 6)
