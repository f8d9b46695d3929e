"""User-facing errors of the pooling, batch-norm, softmax/cross-entropy and optimizer ops: each
message names the op and layer, the shapes/dtypes involved, and a fix that can be copied."""
import numpy as np
import pytest

import glassgrad
from glassgrad import kernels as K


def _run(op, *inputs, scope="", **attrs):
    return K.run(op, *inputs, scope=scope, **attrs)


def _logits(n=32, c=10):
    return np.zeros((n, c), np.float32)


# ---- cross-entropy labels -------------------------------------------------------------------

def test_cross_entropy_refuses_int32_labels_with_the_astype_fix():
    labels = np.arange(32, dtype=np.int32) % 10
    with pytest.raises(glassgrad.DTypeError) as e:
        _run("CrossEntropy", _logits(), labels)
    assert "int32" in str(e.value) and "y.astype(np.int64)" in str(e.value)


def test_cross_entropy_refuses_uint8_labels_naming_the_dtype_and_layer():
    with pytest.raises(glassgrad.DTypeError) as e:
        _run("CrossEntropy", _logits(), np.zeros(32, np.uint8), scope="loss")
    msg = str(e.value)
    assert msg.startswith("CrossEntropy 'loss': labels must be int64")
    assert "got uint8 [32]" in msg and "fix: y.astype(np.int64)" in msg


def test_cross_entropy_refuses_float_labels():
    with pytest.raises(glassgrad.DTypeError) as e:
        _run("CrossEntropy", _logits(), np.zeros(32, np.float32))
    msg = str(e.value)
    assert "got float32 [32]" in msg and "fix: y.astype(np.int64)" in msg


def test_cross_entropy_float_labels_shaped_like_logits_suggest_argmax_of_one_hot():
    with pytest.raises(glassgrad.DTypeError, match=r"one-hot.*y\.argmax\(axis=1\)\.astype\(np\.int64\)"):
        _run("CrossEntropy", _logits(), np.eye(10, dtype=np.float32)[np.arange(32) % 10])


def test_cross_entropy_label_out_of_range_names_label_position_and_classes():
    labels = np.array([0, 3, 10, 2, 11], np.int64)
    with pytest.raises(glassgrad.GlassgradIndexError) as e:
        _run("CrossEntropy", _logits(5), labels, scope="head")
    msg = str(e.value)
    assert msg.startswith("CrossEntropy 'head': label 10 at position 2 is out of range for 10 classes")
    assert "labels must be in [0, 10); 2 of 5 labels are outside" in msg
    assert "counted from 1" in msg and "fix:" in msg
    assert isinstance(e.value, IndexError)


def test_cross_entropy_negative_label_is_reported():
    with pytest.raises(IndexError, match=r"label -1 at position 1 is out of range for 10 classes"):
        _run("CrossEntropy", _logits(3), np.array([0, -1, 2], np.int64))


def test_cross_entropy_backward_also_checks_labels():
    with pytest.raises(IndexError, match=r"CrossEntropy: label 7 at position 0 is out of range for 7 classes"):
        _run("CrossEntropyBackward", np.float32(1.0), _logits(2, 7), np.array([7, 0], np.int64))


def test_cross_entropy_backward_without_reading_the_loss_reports_a_bad_label():
    # PyTorch raises in the forward; the loss value is never computed here, only its gradient
    # (labels known on the host are checked by the loss function, others by the kernels)
    logits = glassgrad.tensor(_logits(3, 5), requires_grad=True)
    labels = glassgrad.tensor(np.array([0, 5, 1])) * 1
    with pytest.raises(glassgrad.GlassgradIndexError, match=r"(CrossEntropy: label|cross_entropy: target) 5 at "
                       r"position 1 is out of range for 5 classes"):
        glassgrad.nn.functional.cross_entropy(logits, labels).backward()
        logits.grad.numpy()


def test_cross_entropy_batch_mismatch_names_both_shapes():
    with pytest.raises(glassgrad.ShapeError) as e:
        _run("CrossEntropy", _logits(32), np.zeros(16, np.int64))
    msg = str(e.value)
    assert "logits have 32 rows but labels have 16 entries" in msg
    assert "[32, 10] float32" in msg and "[16] int64" in msg and "fix:" in msg


def test_cross_entropy_labels_with_a_trailing_axis_suggest_reshape():
    with pytest.raises(glassgrad.ShapeError, match=r"(?s)\[32, 1\].*fix: labels\.reshape\(-1\)"):
        _run("CrossEntropy", _logits(), np.zeros((32, 1), np.int64))


@pytest.mark.parametrize("shape,fix", [((10,), "logits.reshape(1, -1)"),
                                       ((32, 10, 2, 2), "x.reshape(x.shape[0], -1)")])
def test_cross_entropy_logits_must_be_two_dimensional(shape, fix):
    with pytest.raises(glassgrad.ShapeError) as e:
        _run("CrossEntropy", np.zeros(shape, np.float32), np.zeros(shape[0], np.int64))
    msg = str(e.value)
    assert "logits must be 2-d [N, classes]" in msg and fix in msg


def test_cross_entropy_unknown_reduction():
    with pytest.raises(glassgrad.ShapeError, match=r'reduction must be "mean", "sum" or "none", got "average"'):
        _run("CrossEntropy", _logits(), np.zeros(32, np.int64), reduction="average")
    with pytest.raises(glassgrad.InvalidArgumentError, match="reduction must be 'mean', 'sum' or 'none'"):
        glassgrad.cross_entropy(glassgrad.tensor(_logits()), np.zeros(32, np.int64), reduction="average")


def test_cross_entropy_options_are_checked():
    with pytest.raises(glassgrad.ShapeError, match=r"label_smoothing must be in \[0, 1\], got 1.5"):
        _run("CrossEntropy", _logits(), np.zeros(32, np.int64), label_smoothing=1.5)
    with pytest.raises(glassgrad.ShapeError, match=r"(?s)weight must hold one value per class, shape \[10\], got \[3\]"):
        _run("CrossEntropy", _logits(), np.zeros(32, np.int64), np.ones(3, np.float32))


def test_cross_entropy_ignores_minus_100_but_names_other_bad_labels():
    labels = np.zeros(32, np.int64)
    labels[5] = -100
    assert np.isfinite(_run("CrossEntropy", _logits(), labels)[0].numpy())
    labels[7] = -1
    with pytest.raises(glassgrad.GlassgradIndexError, match=r"(?s)label -1 at position 7 .*ignore_index=-100"):
        _run("CrossEntropy", _logits(), labels)


# ---- pooling attributes ---------------------------------------------------------------------

def _images(*shape):
    return np.zeros(shape, np.float32)


def test_pool_padding_larger_than_half_the_window():
    with pytest.raises(glassgrad.ShapeError) as e:
        _run("MaxPool2D", _images(1, 1, 8, 8), kernel=[3, 3], padding=[2, 2], scope="pool1")
    msg = str(e.value)
    assert msg.startswith("MaxPool2D 'pool1': padding [2, 2] is too large for the 3x3 window")
    assert "at most [1, 1]" in msg and "fix: padding=[1, 1]" in msg


def test_pool_window_larger_than_the_input():
    with pytest.raises(glassgrad.ShapeError) as e:
        _run("AvgPool2D", _images(2, 4, 3, 3), kernel=[5, 5])
    msg = str(e.value)
    assert "the 5x5 window does not fit in the 3x3 input" in msg and "[2, 4, 3, 3]" in msg and "fix:" in msg


def test_pool_stride_must_be_positive():
    with pytest.raises(glassgrad.ShapeError, match=r"stride must be at least \[1, 1\], got \[0, 2\]"):
        _run("MaxPool2D", _images(1, 1, 4, 4), kernel=[2, 2], stride=[0, 2])


def test_pool_kernel_must_be_a_pair():
    with pytest.raises(glassgrad.ShapeError, match=r"kernel must be a pair \[rows, cols\], got \[2\]"):
        _run("MaxPool2D", _images(1, 1, 4, 4), kernel=[2])


def test_pool_input_without_batch_axis_suggests_reshape():
    with pytest.raises(glassgrad.ShapeError, match=r"(?s)expected a 4-d NCHW tensor, got 3-d.*reshape"):
        _run("MaxPool2D", _images(1, 4, 4), kernel=[2, 2])


def test_max_pool_backward_grad_shape_must_match_the_pooled_shape():
    with pytest.raises(glassgrad.ShapeError, match=r"grad_y has shape \[1, 1, 3, 3\], the pooled output of "
                                                   r"\[1, 1, 4, 4\] has shape \[1, 1, 2, 2\]"):
        _run("MaxPool2DBackward", _images(1, 1, 3, 3), _images(1, 1, 4, 4), kernel=[2, 2])


# ---- batch norm -----------------------------------------------------------------------------

def test_batchnorm_gamma_with_the_wrong_channel_count_suggests_the_layer():
    with pytest.raises(glassgrad.ShapeError) as e:
        _run("BatchNorm2DTrain", _images(8, 16, 5, 5), np.ones(32, np.float32), np.zeros(32, np.float32),
             scope="bn1")
    msg = str(e.value)
    assert msg.startswith("BatchNorm2DTrain 'bn1': gamma has shape [32], expected [16]")
    assert "fix: build the layer as BatchNorm2D(16)" in msg


def test_batchnorm_training_with_one_value_per_channel_is_refused():
    with pytest.raises(glassgrad.ShapeError) as e:
        _run("BatchNorm2DTrain", _images(1, 4, 1, 1), np.ones(4, np.float32), np.zeros(4, np.float32))
    msg = str(e.value)
    assert "more than 1 value per channel" in msg and "[1, 4, 1, 1]" in msg and "model.eval()" in msg


def test_batchnorm_parameters_must_match_the_input_dtype():
    with pytest.raises(glassgrad.DTypeError, match=r"different dtypes: float32 and float64"):
        _run("BatchNorm2DInference", _images(2, 3, 2, 2), np.ones(3), np.zeros(3), np.zeros(3), np.ones(3))


def test_batchnorm_update_stats_needs_a_count_of_at_least_two():
    v = np.zeros(3, np.float32)
    with pytest.raises(glassgrad.ShapeError, match=r"count must be >= 2"):
        _run("BatchNormUpdateStats", v, v.copy(), v, v, momentum=0.1, count=1)


def _t(*shape, value=0.0):
    return glassgrad.tensor(np.full(shape, value, np.float32), device="cpu")


@pytest.mark.parametrize("training, momentum", [(True, 0.1), (True, "tensor"), (False, 0.1)])
def test_functional_batch_norm_names_a_running_statistic_of_the_wrong_length_and_its_fix(training, momentum):
    """The shape rules check the running statistics (BatchNorm2DInference's inputs; in training
    BatchNormUpdateStats against the batch mean, and the same check for the update with a tensor
    momentum, which is composed from elementwise ops)."""
    if momentum == "tensor":
        momentum = glassgrad.tensor(np.float32(0.5), device="cpu")
    x = _t(2, 3, 4, 4, value=1.0)
    with pytest.raises(glassgrad.ShapeError) as e:
        glassgrad.functional.batch_norm(x, _t(4), _t(3, value=1.0), training=training, momentum=momentum)
    msg = str(e.value)
    assert "running_mean has shape [4]" in msg and "[3]" in msg
    assert "give running_mean shape [3]" in msg


def test_a_batchnorm_layer_without_affine_or_statistics_still_compares_the_input_with_the_layer():
    bn = glassgrad.nn.BatchNorm1d(3, affine=False, track_running_stats=False)
    with pytest.raises(glassgrad.ShapeError, match=r"(?s)^BatchNorm1d: the input has 5 channels .* normalizes 3.*"
                                                   r"fix: build the layer as BatchNorm1d\(5\)"):
        bn(_t(4, 5))


def test_a_refused_batchnorm_forward_leaves_num_batches_tracked_as_it_was():
    bn = glassgrad.nn.BatchNorm2d(3, momentum=None).to("cpu")
    with pytest.raises(glassgrad.ShapeError, match="the input has 4 channels"):
        bn(_t(2, 4, 3, 3))
    assert bn.num_batches_tracked.item() == 0
    bn(_t(2, 3, 3, 3))
    assert bn.num_batches_tracked.item() == 1


def test_sync_batchnorm_s_composed_path_uses_the_rules_channel_check():
    """SyncBatchNorm's training path (several ranks) is built from primitives: it calls the
    BatchNorm rules' check itself (batchnorm_checks.h)."""
    x = _t(2, 5, 3)
    with pytest.raises(glassgrad.ShapeError) as e:
        glassgrad._C.check_batchnorm_channels("SyncBatchNorm 'bn'", x._h, 3)
    msg = str(e.value)
    assert msg.startswith("SyncBatchNorm 'bn': the input has 5 channels (axis 1) but the layer normalizes 3")
    assert "input: [2, 5, 3] float32 cpu" in msg and "fix: build the layer as SyncBatchNorm(5)" in msg
    glassgrad._C.check_batchnorm_channels("SyncBatchNorm 'bn'", x._h, 5)  # the layer's channels: no error


# ---- softmax --------------------------------------------------------------------------------

def test_softmax_dim_out_of_range_names_the_shape():
    with pytest.raises(glassgrad.GlassgradIndexError, match=r"Softmax: dim 2 is out of range for a 2-d input \[4, 5\]"):
        _run("Softmax", np.zeros((4, 5), np.float32), dim=2)


# ---- optimizers -----------------------------------------------------------------------------

def _lr(dtype=np.float32):
    return np.asarray(0.1, dtype)


def test_optimizer_grad_shape_must_match_the_parameter():
    with pytest.raises(glassgrad.ShapeError) as e:
        _run("SGDUpdate", np.zeros((4, 3), np.float32), np.zeros((3, 4), np.float32), _lr(), scope="fc.weight")
    msg = str(e.value)
    assert msg.startswith("SGDUpdate 'fc.weight': grad has shape [3, 4] but the parameter has shape [4, 3]")
    assert "fix:" in msg


def test_optimizer_lr_must_be_a_scalar_tensor():
    with pytest.raises(glassgrad.ShapeError) as e:
        _run("SGDUpdate", np.zeros(3, np.float32), np.zeros(3, np.float32), np.array([0.1], np.float32))
    msg = str(e.value)
    assert "lr must be a 0-d float32 tensor, got [1] float32" in msg
    assert "fix: lr = np.array(0.01, dtype=np.float32)" in msg


def test_optimizer_lr_dtype_must_match_the_parameter():
    with pytest.raises(glassgrad.DTypeError, match=r"lr must be a 0-d float32 tensor, got \[\] float64"):
        _run("SGDUpdate", np.zeros(3, np.float32), np.zeros(3, np.float32), _lr(np.float64))


def test_nesterov_needs_zero_dampening():
    z = np.zeros(3)
    with pytest.raises(glassgrad.ShapeError, match=r"dampening must be 0 with nesterov=True"):
        _run("SGDMomentumUpdate", z, z, _lr(np.float64), z, _lr(np.float64), dampening=0.5, nesterov=True)
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        glassgrad.SGD([glassgrad.Parameter(z)], lr=0.1, momentum=0.0, nesterov=True)


def test_momentum_must_be_a_scalar_tensor_of_the_parameter_s_dtype():
    z = np.zeros(3)
    with pytest.raises(glassgrad.DTypeError) as e:
        _run("SGDMomentumUpdate", z, z, _lr(np.float64), z, _lr(np.float32))
    assert "momentum must be a 0-d float64 tensor, got [] float32" in str(e.value)
    assert "a schedule that changes it does not recompile the step" in str(e.value)


def test_adam_betas_must_be_below_one():
    z = np.zeros(3)
    with pytest.raises(glassgrad.ShapeError, match=r"beta2 must be in \[0, 1\), got 1"):
        _run("AdamUpdate", z, z, _lr(np.float64), _lr(np.float64), z, z, np.asarray(0, np.int64), beta2=1.0)
    with pytest.raises(ValueError, match=r"betas must be in \[0, 1\)"):
        glassgrad.Adam([glassgrad.Parameter(z)], betas=(1.0, 0.999))


def test_adam_step_must_be_a_float_or_int64_scalar():
    # float32 is PyTorch's step (float64 under a float64 default dtype); int64 is still taken.
    z = np.zeros(3)
    for dtype in (np.float32, np.float64, np.int64):
        _run("AdamUpdate", z, z, _lr(np.float64), _lr(np.float64), z, z, np.asarray(0, dtype))
    with pytest.raises(glassgrad.ShapeError, match=r"step must be a 0-d float32, float64 or int64 tensor, got \[1\]"):
        _run("AdamUpdate", z, z, _lr(np.float64), _lr(np.float64), z, z, np.zeros(1, np.float32))


def test_adam_state_shape_must_match_the_parameter():
    z = np.zeros(3)
    with pytest.raises(glassgrad.ShapeError, match=r"(?s)v has shape \[4\] but the parameter has shape \[3\].*"
                                                   r"optimizer state was created for another parameter"):
        _run("AdamUpdate", z, z, _lr(np.float64), _lr(np.float64), z, np.zeros(4), np.asarray(0, np.int64))
    with pytest.raises(glassgrad.ShapeError, match=r"v_max has shape \[2\] but the parameter has shape \[3\]"):
        _run("AdamAMSGradUpdate", z, z, _lr(np.float64), _lr(np.float64), z, z, np.zeros(2),
             np.asarray(0, np.int64))


def test_assign_needs_the_target_s_shape_and_dtype():
    with pytest.raises(glassgrad.ShapeError, match=r"Assign: value has shape \[2\] but the target has shape \[3\]"):
        _run("Assign", np.zeros(3), np.zeros(2))
    with pytest.raises(glassgrad.DTypeError):
        _run("Assign", np.zeros(3), np.zeros(3, np.float32))


# ---- double backward ------------------------------------------------------------------------

def test_double_backward_through_an_op_without_a_rule_names_it():
    from glassgrad import _C
    g = _C.Graph()
    x = g.add_leaf("x", [2, 4], "float64", "cpu", "input", requires_grad=True)
    (y,) = g.add("CumProd", [x], {"dim": 1})
    loss = g.add("Sum", [g.add("Mul", [y, y])[0]], {"dims": [], "keepdim": False})[0]
    (dx,) = g.backward(loss, [x])
    loss2 = g.add("Sum", [g.add("Mul", [dx, dx])[0]], {"dims": [], "keepdim": False})[0]
    with pytest.raises(glassgrad.UnsupportedError, match=r"CumProdBackward: this op has no gradient rule"):
        g.backward(loss2, [x])
