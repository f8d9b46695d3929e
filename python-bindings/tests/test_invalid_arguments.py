"""An argument value glassgrad does not accept raises a GlassgradError that names the argument and
says what is supported: never a raw TypeError from deep inside, never a silently truncated or
ignored value (Linear(3.7, 2) is refused, not built as Linear(3, 2))."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad import nn

F = nn.functional
S = gg.optim.lr_scheduler
X = np.ones((1, 3, 6, 6), np.float32)

BAD = [
    # (call, the argument the message must name)
    (lambda: nn.Conv2d(3, 4, 0)(gg.tensor(X)), "kernel_size"),  # PyTorch builds it; its call refuses
    (lambda: nn.Conv2d(3, 4, 2.5), "kernel_size"),
    (lambda: nn.Conv2d(3, 4, (3, 3, 3))(gg.tensor(X)), "kernel_size"),  # builds, as PyTorch's; its call refuses
    (lambda: nn.Conv2d(3.0, 4, 3), "in_channels"),
    (lambda: nn.LSTM(3, 4, bias="yes"), "bias"),
    (lambda: nn.Conv2d(3, -4, 3), "out_channels"),
    (lambda: nn.Conv2d(3, 4, 3, stride=0)(gg.tensor(X)), "stride"),
    (lambda: nn.Conv2d(3, 4, 3, stride=1.5)(gg.tensor(X)), "stride"),
    (lambda: nn.Conv2d(3, 4, 3, padding=-1)(gg.tensor(X)), "padding"),
    (lambda: nn.Conv2d(3, 4, 3, padding="full"), "padding"),
    (lambda: nn.Conv2d(3, 4, 3, padding=1.5)(gg.tensor(X)), "padding"),
    (lambda: nn.Conv2d(3, 4, 3, dilation=0)(gg.tensor(X)), "dilation"),
    (lambda: nn.Conv2d(3, 4, 3, groups=0), "groups"),
    (lambda: nn.Conv2d(3, 4, 3, groups=2), "groups"),
    (lambda: nn.Linear(3.7, 2), "in_features"),
    (lambda: nn.Linear(3, -1), "out_features"),  # 0 is allowed, as PyTorch allows it
    (lambda: nn.LayerNorm(-1), "normalized_shape"),  # 0 is allowed, as PyTorch allows it
    (lambda: nn.LayerNorm(4, eps=-1.0), "eps"),
    (lambda: nn.LayerNorm(4, eps=float("nan")), "eps"),
    (lambda: nn.Dropout(1.5), "p"),
    (lambda: nn.Dropout("half"), "p"),
    (lambda: nn.LeakyReLU("0.1"), "negative_slope"),
    (lambda: nn.MaxPool2d(0)(gg.tensor(X)), "kernel_size"),
    (lambda: nn.MaxPool2d(2, stride=0)(gg.tensor(X)), "stride"),
    (lambda: nn.MaxPool2d(2, padding=2)(gg.tensor(X)), "padding"),
    (lambda: nn.AvgPool2d(3, count_include_pad="yes")(gg.tensor(X)), "count_include_pad"),
    (lambda: nn.Flatten(1.0), "start_dim"),
    (lambda: F.max_pool2d(gg.tensor(X), 3, padding=2), "padding"),
    (lambda: F.avg_pool2d(gg.tensor(X), (2, 2, 2)), "kernel_size"),
    (lambda: F.conv2d(gg.tensor(X), gg.tensor(np.ones((2, 3, 3, 3), np.float32)), stride=0), "stride"),
    (lambda: F.conv2d(gg.tensor(X), gg.tensor(np.ones((2, 3, 3, 3), np.float32)), groups=1.0), "groups"),
    (lambda: F.cross_entropy(gg.tensor(np.ones((2, 3), np.float32)), gg.tensor(np.array([0, 1])),
                             reduction="avg"), "reduction"),
    (lambda: F.cross_entropy(gg.tensor(np.ones((2, 3), np.float32)), gg.tensor(np.array([0, 1])),
                             label_smoothing="some"), "label_smoothing"),
    (lambda: gg.optim.SGD(nn.Linear(2, 2).parameters(), lr=-0.1), "lr"),
    (lambda: gg.optim.SGD(nn.Linear(2, 2).parameters(), lr="fast"), "lr"),
    (lambda: gg.optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1, momentum=-1), "momentum"),
    (lambda: gg.optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1, momentum=None), "momentum"),
    (lambda: gg.optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1, nesterov=True), "nesterov"),
    (lambda: gg.optim.Adam(nn.Linear(2, 2).parameters(), betas=(0.9, 1.0)), "betas"),
    (lambda: gg.optim.Adam(nn.Linear(2, 2).parameters(), betas=(0.9,)), "betas"),
    (lambda: gg.optim.Adam(nn.Linear(2, 2).parameters(), eps=-1e-8), "eps"),
    (lambda: gg.optim.RMSprop(nn.Linear(2, 2).parameters(), alpha=-0.5), "alpha"),
    (lambda: gg.set_memory_limit("lots"), "lots"),
    # Layers, functions and schedulers that came with the PyTorch-port work.
    (lambda: nn.BatchNorm2d(2, momentum="x"), "momentum"),
    (lambda: nn.BatchNorm2d(2, eps=None), "eps"),
    (lambda: nn.BatchNorm2d(2.0), "num_features"),
    (lambda: nn.GELU(approximate="fast")(gg.tensor(X)), "approximate"),
    (lambda: nn.ELU(alpha=None), "alpha"),
    (lambda: nn.Softplus(beta=None), "beta"),
    (lambda: F.softplus(gg.tensor(X), threshold="high"), "threshold"),
    (lambda: F.leaky_relu(gg.tensor(X), None), "negative_slope"),
    (lambda: nn.MaxPool2d(2, ceil_mode="yes")(gg.tensor(X)), "ceil_mode"),
    (lambda: nn.AvgPool2d(2, ceil_mode="yes")(gg.tensor(X)), "ceil_mode"),
    (lambda: F.avg_pool2d(gg.tensor(X), 2, divisor_override=0), "divisor_override"),
    (lambda: F.dropout(gg.tensor(X), None), "p"),
    (lambda: gg.optim.lr_scheduler.StepLR(gg.optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1), step_size=None),
     "step_size"),
    (lambda: gg.optim.lr_scheduler.StepLR(gg.optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1), 2, gamma="x"), "gamma"),
    # Loss modules check their arguments when they are built, not at the first batch.
    (lambda: nn.CrossEntropyLoss(label_smoothing=2)(gg.ones(2, 3), gg.tensor([0, 1])), "label_smoothing"),
    (lambda: nn.CrossEntropyLoss(ignore_index=1.5), "ignore_index"),
    (lambda: nn.CrossEntropyLoss(weight=[1.0, 2.0]), "weight"),
    (lambda: nn.NLLLoss(ignore_index="a"), "ignore_index"),
    (lambda: nn.NLLLoss(reduction="avg")(gg.ones(2, 3), gg.tensor([0, 1])), "reduction"),
    (lambda: nn.MSELoss(reduction=None)(gg.ones(2), gg.ones(2)), "reduction"),
    (lambda: nn.BCEWithLogitsLoss(pos_weight="2"), "pos_weight"),
    # one_hot's num_classes: an int >= 0, or -1.
    (lambda: F.one_hot(gg.tensor(np.array([0, 2])), "3"), "num_classes"),
    (lambda: F.one_hot(gg.tensor(np.array([0, 2])), True), "num_classes"),
    (lambda: F.one_hot(gg.tensor(np.array([0, 2])), 3.0), "num_classes"),
    (lambda: F.one_hot(gg.tensor(np.array([0, 2])), -2), "num_classes"),
    (lambda: F.one_hot(gg.tensor(np.array([0, 2])), 2), "num_classes"),
    # Adaptive pooling's output_size: an int >= 0 or (H, W), None in the pair keeping that size
    # (0 pools to PyTorch's empty result).
    (lambda: nn.AdaptiveAvgPool2d(None), "output_size"),
    (lambda: nn.AdaptiveAvgPool2d(-1), "output_size"),
    (lambda: nn.AdaptiveAvgPool2d(2.0), "output_size"),
    (lambda: nn.AdaptiveAvgPool2d((2,)), "output_size"),
    (lambda: nn.AdaptiveAvgPool2d((None, -2)), "output_size"),
    (lambda: nn.AdaptiveAvgPool2d("3"), "output_size"),
    (lambda: F.adaptive_avg_pool2d(gg.tensor(X), None), "output_size"),
    (lambda: F.interpolate(gg.tensor(X), size=(2.5, 3)), "size"),
    # nn.Upsample keeps its arguments and its call refuses them, as PyTorch's.
    (lambda: nn.Upsample()(gg.tensor(X)), "either size or scale_factor"),
    (lambda: nn.Upsample(size=4, scale_factor=2)(gg.tensor(X)), "only one of size or scale_factor"),
    (lambda: nn.Upsample(scale_factor=0)(gg.tensor(X)), "scale_factor"),  # 0 is None, as PyTorch keeps it
    (lambda: nn.Upsample(scale_factor=-2.0)(gg.tensor(X)), "scale_factor"),
    (lambda: nn.Upsample(scale_factor=float("inf"))(gg.tensor(X)), "scale_factor"),
    (lambda: nn.Upsample(scale_factor=(2, 2, 2, 2))(gg.tensor(X)), "scale_factor"),
    (lambda: nn.Upsample(size=0)(gg.tensor(X)), "size"),
    (lambda: nn.Upsample(size=(4, -1))(gg.tensor(X)), "size"),
    (lambda: nn.Upsample(size=2.5)(gg.tensor(X)), "size"),
    (lambda: nn.Upsample(scale_factor=2, mode="cubic")(gg.tensor(X)), "mode 'cubic'"),
    (lambda: nn.Upsample(scale_factor=2, mode=None)(gg.tensor(X)), "mode"),
    (lambda: nn.Upsample(scale_factor=2, align_corners=True)(gg.tensor(X)), "align_corners"),
    (lambda: nn.Upsample(scale_factor=2, mode="nearest-exact", align_corners=False)(gg.tensor(X)), "align_corners"),
    (lambda: nn.Upsample(scale_factor=2, mode="bilinear", align_corners="yes")(gg.tensor(X)), "align_corners"),
    (lambda: nn.Upsample(size=4, recompute_scale_factor=True)(gg.tensor(X)), "recompute_scale_factor"),
    (lambda: nn.Upsample(scale_factor=2, recompute_scale_factor=1)(gg.tensor(X)), "recompute_scale_factor"),
    (lambda: nn.Softmax(dim="1"), "dim"),
    (lambda: nn.LogSoftmax(dim=1.0), "dim"),
    (lambda: nn.Unflatten(1.0, (2, 3)), "dim"),
    (lambda: nn.Unflatten(1, 6), "unflattened_size"),
    (lambda: nn.Unflatten(1, (2, -2)), "unflattened_size"),  # 0 is a size, as PyTorch takes it
    (lambda: nn.Unflatten(1, (-1, 2, -1)), "unflattened_size"),
    (lambda: nn.Unflatten(1, (2, 1.5)), "unflattened_size[1]"),
    (lambda: nn.MaxPool2d(2, dilation=0)(gg.tensor(X)), "dilation"),
    (lambda: nn.MaxPool2d(2, dilation=(1, -1))(gg.tensor(X)), "dilation"),
    (lambda: nn.MaxUnpool2d(0), "kernel_size"),
    (lambda: nn.MaxUnpool1d(2, stride=0), "stride"),
    (lambda: nn.AvgPool2d(2, divisor_override=0)(gg.tensor(X)), "divisor_override"),
    (lambda: nn.AvgPool2d(2, divisor_override=2.0)(gg.tensor(X)), "divisor_override"),
    (lambda: nn.Sequential(nn.Linear(2, 2), F.relu), "layer '1'"),
    (lambda: nn.Sequential(nn.ReLU), "layer '0'"),
    (lambda: nn.Sequential(nn.Linear(2, 2), None), "layer '1'"),
    # Every learning-rate scheduler, as PyTorch documents its arguments.
    (lambda: S.StepLR(object(), 2), "optimizer"),
    (lambda: S.StepLR(_opt(), 2, last_epoch=-2), "last_epoch"),
    (lambda: S.LambdaLR(_opt(), lr_lambda=0.5), "lr_lambda"),
    (lambda: S.LambdaLR(_opt(), [lambda e: 1.0, lambda e: 1.0]), "lr_lambda"),
    (lambda: S.LambdaLR(object(), lambda e: 1.0), "optimizer"),
    (lambda: S.MultiplicativeLR(_opt(), lr_lambda="x"), "lr_lambda"),
    (lambda: S.MultiStepLR(_opt(), milestones=30), "milestones"),
    (lambda: S.MultiStepLR(_opt(), [10], gamma=None), "gamma"),
    (lambda: S.ConstantLR(_opt(), factor=2), "factor"),
    (lambda: S.LinearLR(_opt(), start_factor=0), "start_factor"),
    (lambda: S.LinearLR(_opt(), end_factor=1.5), "end_factor"),
    (lambda: S.ExponentialLR(_opt(), gamma="0.9"), "gamma"),
    (lambda: S.CosineAnnealingLR(_opt(), T_max=None), "T_max"),
    (lambda: S.OneCycleLR(_opt(), max_lr=0.1), "total_steps"),
    (lambda: S.OneCycleLR(_opt(), max_lr=0.1, total_steps=10.0), "total_steps"),
    (lambda: S.OneCycleLR(_opt(), max_lr=0.1, epochs=0, steps_per_epoch=5), "epochs"),
    (lambda: S.OneCycleLR(_opt(), max_lr=None, total_steps=10), "max_lr"),
    (lambda: S.OneCycleLR(_opt(), max_lr=[0.1, 0.2], total_steps=10), "max_lr"),
    (lambda: S.OneCycleLR(_opt(), max_lr=0.1, total_steps=10, pct_start=1.5), "pct_start"),
    (lambda: S.OneCycleLR(_opt(), max_lr=0.1, total_steps=10, anneal_strategy="cosine"), "anneal_strategy"),
    (lambda: S.OneCycleLR(_opt(), max_lr=0.1, total_steps=10, cycle_momentum="yes"), "cycle_momentum"),
    (lambda: S.OneCycleLR(_opt(), max_lr=0.1, total_steps=10, base_momentum="x"), "base_momentum"),
    (lambda: S.OneCycleLR(_opt(), max_lr=0.1, total_steps=10, three_phase=None), "three_phase"),
    (lambda: S.SequentialLR(_opt(), [], []), "schedulers"),
    (lambda: S.SequentialLR(_opt(), [object()], []), "schedulers[0]"),
    (lambda: _sequential(milestones=[]), "milestones"),
    (lambda: _sequential(milestones=["5"]), "milestones[0]"),
    (lambda: S.PolynomialLR(object()), "optimizer"),
    (lambda: S.CosineAnnealingWarmRestarts(_opt(), T_0=0), "T_0"),
    (lambda: S.CosineAnnealingWarmRestarts(_opt(), T_0=2.5), "T_0"),
    (lambda: S.CosineAnnealingWarmRestarts(_opt(), 10, T_mult=0), "T_mult"),
    (lambda: S.CosineAnnealingWarmRestarts(_opt(), 10, T_mult=1.5), "T_mult"),
    (lambda: S.CosineAnnealingWarmRestarts(_opt(), 10, eta_min="0"), "eta_min"),
    (lambda: S.CosineAnnealingWarmRestarts(_opt(), 10, last_epoch=-3), "last_epoch"),
    (lambda: S.ChainedScheduler(None), "schedulers"),
    (lambda: S.ChainedScheduler([S.StepLR(_opt(), 2)], optimizer="sgd"), "optimizer"),
    (lambda: S.ReduceLROnPlateau(_opt(), factor=1.0), "factor"),
    (lambda: S.ReduceLROnPlateau(_opt(), mode="minimum"), "mode"),
    (lambda: S.ReduceLROnPlateau(_opt(), threshold_mode="relative"), "threshold_mode"),
    (lambda: S.ReduceLROnPlateau(_opt(), min_lr=[0.0, 0.0]), "min_lr"),
    (lambda: S.ReduceLROnPlateau(_opt(), min_lr=[None]), "min_lr[0]"),
    (lambda: S.ReduceLROnPlateau(_opt(), eps=float("nan")), "eps"),
    (lambda: S.ReduceLROnPlateau(object()), "optimizer"),
]


def _opt():
    return gg.optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1, momentum=0.9)


def _sequential(milestones):
    opt = _opt()
    return S.SequentialLR(opt, [S.LinearLR(opt, 0.1, total_iters=5), S.ExponentialLR(opt, 0.9)], milestones)


@pytest.mark.parametrize("call,argument", BAD, ids=[f"{i}-{a}" for i, (_, a) in enumerate(BAD)])
def test_an_unsupported_argument_value_raises_a_glassgrad_error_naming_it(call, argument):
    with pytest.raises(gg.GlassgradError) as e:
        call()
    assert argument in str(e.value), str(e.value)


def test_numpy_integers_and_floats_are_accepted_where_python_ones_are():
    layer = nn.Conv2d(np.int64(3), np.int64(4), np.int64(3), stride=np.int32(1))
    assert layer(gg.tensor(X)).shape == (1, 4, 4, 4)
    assert nn.Dropout(np.float32(0.25)).p == pytest.approx(0.25)


def test_a_scheduler_given_something_else_than_an_optimizer_raises_a_type_error_too():
    # PyTorch raises TypeError there; the GlassgradError is one as well, so either except clause works.
    with pytest.raises(TypeError, match="optimizer must be a glassgrad.optim optimizer, got Linear"):
        S.StepLR(nn.Linear(2, 2), 2)


def test_one_hot_refuses_class_values_it_cannot_place_instead_of_writing_zero_rows():
    with pytest.raises(gg.GlassgradError, match="class values must be non-negative, got -1"):
        F.one_hot(gg.tensor(np.array([0, -1])))
    with pytest.raises(gg.GlassgradError, match=r"smaller than num_classes \(2\), got 2"):
        F.one_hot(gg.tensor(np.array([0, 2])), 2)
    np.testing.assert_array_equal(F.one_hot(gg.tensor(np.array([[0], [2]])), np.int64(4)).numpy(),
                                  [[[1, 0, 0, 0]], [[0, 0, 1, 0]]])
    # An empty input gives no classes to count: PyTorch refuses it unless num_classes is given.
    with pytest.raises(gg.GlassgradError, match="Can not infer total number of classes from empty tensor"):
        F.one_hot(gg.tensor(np.zeros(0, np.int64)))
    assert F.one_hot(gg.tensor(np.zeros(0, np.int64)), 3).shape == (0, 3)


def test_adaptive_pooling_keeps_the_input_size_where_output_size_says_none():
    x = gg.tensor(np.arange(2 * 6 * 9, dtype=np.float64).reshape(1, 2, 6, 9))
    assert nn.AdaptiveAvgPool2d((None, 3))(x).shape == (1, 2, 6, 3)
    assert F.adaptive_avg_pool2d(x, [2, None]).shape == (1, 2, 2, 9)
    np.testing.assert_allclose(F.adaptive_avg_pool2d(x, (None, None)).numpy(), x.numpy())


@pytest.mark.filterwarnings("ignore:size_average and reduce args")
def test_loss_modules_accept_what_their_functions_accept():
    w = gg.tensor(np.array([1.0, 2.0, 0.5], np.float32))
    assert nn.CrossEntropyLoss(weight=w, ignore_index=np.int64(1), label_smoothing=np.float32(0.1)).ignore_index == 1
    assert nn.NLLLoss(weight=w.numpy(), reduction="sum").reduction == "sum"
    assert nn.MSELoss(size_average=False).reduction == "sum"
    assert nn.L1Loss(reduce=False).reduction == "none"


WRONG_TYPE = [  # PyTorch raises TypeError for these; glassgrad's error is one too (and a ValueError)
    lambda: nn.Linear(3.7, 2),
    lambda: nn.Conv2d(3, 4, 2.5),
    lambda: nn.LSTM(3, 4, bias="yes"),
    lambda: nn.Dropout("half"),
    lambda: F.one_hot(gg.tensor(np.array([0, 2])), "3"),
    lambda: nn.CrossEntropyLoss(weight=[1.0, 2.0]),
    lambda: S.LambdaLR(_opt(), lr_lambda=0.5),
    lambda: S.MultiStepLR(_opt(), milestones=30),
    lambda: S.StepLR(object(), 2),
    lambda: nn.Upsample(scale_factor=2, mode="bilinear", align_corners="yes")(gg.tensor(X)),
    lambda: nn.Softmax(dim="1"),
    lambda: nn.Unflatten(1, 6),
    lambda: nn.Sequential(nn.Linear(2, 2), F.relu),
    lambda: S.CosineAnnealingWarmRestarts(_opt(), T_0=2.5),
    lambda: S.ReduceLROnPlateau(_opt(), patience="2"),
    lambda: S.ReduceLROnPlateau(object()),
    lambda: S.ChainedScheduler([object()]),
]
WRONG_VALUE = [  # PyTorch raises ValueError (or accepts); glassgrad's error is a ValueError, not a TypeError
    lambda: nn.Linear(3, -1),
    lambda: nn.Dropout(1.5),
    lambda: F.one_hot(gg.tensor(np.array([0, 2])), -2),
    lambda: S.ConstantLR(_opt(), factor=2),
    lambda: S.ReduceLROnPlateau(_opt(), factor=1.0),   # PyTorch: ValueError('Factor should be < 1.0.')
    lambda: S.ReduceLROnPlateau(_opt(), mode="minimum"),
]


@pytest.mark.parametrize("call", WRONG_TYPE)
def test_an_argument_of_the_wrong_type_is_also_a_type_error(call):
    with pytest.raises(TypeError) as e:
        call()
    assert isinstance(e.value, gg.InvalidArgumentError) and isinstance(e.value, ValueError)
    assert isinstance(e.value, gg.InvalidArgumentTypeError)


@pytest.mark.parametrize("call", WRONG_VALUE)
def test_an_argument_of_the_right_type_but_a_wrong_value_is_a_value_error_only(call):
    with pytest.raises(gg.InvalidArgumentError) as e:
        call()
    assert not isinstance(e.value, TypeError)


UPSAMPLE_BAD = [dict(), dict(size=4, scale_factor=2), dict(scale_factor=(2, 2, 2, 2)), dict(size=(4, 0)),
                dict(scale_factor=2, mode="box"), dict(scale_factor=2, align_corners=True),
                dict(size=4, recompute_scale_factor=True), dict(scale_factor=2, mode="bilinear", align_corners=1)]


@pytest.mark.parametrize("kwargs", UPSAMPLE_BAD, ids=[str(k) for k in UPSAMPLE_BAD])
def test_upsample_builds_and_its_call_refuses_what_interpolate_refuses(kwargs):
    # As PyTorch's: the layer keeps its arguments; its call is interpolate's, with its error and message.
    layer = nn.Upsample(**kwargs)
    with pytest.raises(gg.GlassgradError) as built:
        layer(gg.tensor(X))
    with pytest.raises(gg.GlassgradError) as called:
        F.interpolate(gg.tensor(X), layer.size, layer.scale_factor, layer.mode, layer.align_corners,
                      layer.recompute_scale_factor)
    assert type(built.value) is type(called.value) and str(built.value) == str(called.value)


def test_upsample_keeps_its_scale_factor_as_pytorch_s():
    assert nn.Upsample(scale_factor="2").scale_factor == 2.0  # float(scale_factor), as PyTorch's
    assert nn.Upsample(size=3, scale_factor=0).scale_factor is None  # a false scale_factor is None
    assert repr(nn.Upsample()) == "Upsample(size=None, mode='nearest')"
    assert repr(nn.Upsample(size=2, scale_factor=3)) == "Upsample(scale_factor=3.0, mode='nearest')"
    with pytest.raises(TypeError, match="float"):
        nn.Upsample(scale_factor=[2, 2])  # PyTorch converts a tuple's items only


def test_upsample_arguments_that_interpolate_accepts_build_and_run():
    x = gg.tensor(X)
    for kwargs in (dict(scale_factor=2), dict(size=(4, 9)), dict(size=3, mode="nearest-exact"),
                   dict(scale_factor=(1.5, 0.5), mode="bilinear", align_corners=True),
                   dict(scale_factor=np.float32(1.5), recompute_scale_factor=True)):
        np.testing.assert_array_equal(nn.Upsample(**kwargs)(x).numpy(), F.interpolate(x, **kwargs).numpy())


def test_sequential_takes_an_ordered_dict_of_named_layers_as_pytorch_does():
    from collections import OrderedDict
    model = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 3)), ("act", nn.ReLU())]))
    assert list(model.state_dict()) == ["fc.weight", "fc.bias"] and len(model) == 2
