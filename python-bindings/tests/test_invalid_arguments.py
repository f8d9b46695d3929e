"""An argument value glassgrad does not accept raises a GlassgradError that names the argument and
says what is supported: never a raw TypeError from deep inside, never a silently truncated or
ignored value (Linear(3.7, 2) is refused, not built as Linear(3, 2))."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad import nn

F = nn.functional
X = np.ones((1, 3, 6, 6), np.float32)

BAD = [
    # (call, the argument the message must name)
    (lambda: nn.Conv2d(3, 4, 0), "kernel_size"),
    (lambda: nn.Conv2d(3, 4, 2.5), "kernel_size"),
    (lambda: nn.Conv2d(3, 4, (3, 3, 3)), "kernel_size"),
    (lambda: nn.Conv2d(3.0, 4, 3), "in_channels"),
    (lambda: nn.Conv2d(3, -4, 3), "out_channels"),
    (lambda: nn.Conv2d(3, 4, 3, stride=0), "stride"),
    (lambda: nn.Conv2d(3, 4, 3, stride=1.5), "stride"),
    (lambda: nn.Conv2d(3, 4, 3, padding=-1), "padding"),
    (lambda: nn.Conv2d(3, 4, 3, padding="full"), "padding"),
    (lambda: nn.Conv2d(3, 4, 3, padding=1.5), "padding"),
    (lambda: nn.Conv2d(3, 4, 3, dilation=0), "dilation"),
    (lambda: nn.Conv2d(3, 4, 3, groups=0), "groups"),
    (lambda: nn.Conv2d(3, 4, 3, groups=2), "groups"),
    (lambda: nn.Conv2d(3, 4, 3, bias="yes"), "bias"),
    (lambda: nn.Linear(3.7, 2), "in_features"),
    (lambda: nn.Linear(3, 0), "out_features"),
    (lambda: nn.Linear(3, 2, bias=None), "bias"),
    (lambda: nn.LayerNorm(0), "normalized_shape"),
    (lambda: nn.LayerNorm(4, eps=-1.0), "eps"),
    (lambda: nn.LayerNorm(4, eps=float("nan")), "eps"),
    (lambda: nn.LayerNorm(4, elementwise_affine="no"), "elementwise_affine"),
    (lambda: nn.Dropout(1.5), "p"),
    (lambda: nn.Dropout("half"), "p"),
    (lambda: nn.LeakyReLU("0.1"), "negative_slope"),
    (lambda: nn.MaxPool2d(0), "kernel_size"),
    (lambda: nn.MaxPool2d(2, stride=0), "stride"),
    (lambda: nn.MaxPool2d(2, padding=2), "padding"),
    (lambda: nn.AvgPool2d(3, count_include_pad="yes"), "count_include_pad"),
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
    (lambda: nn.BatchNorm2d(2, affine="no"), "affine"),
    (lambda: nn.GELU(approximate="fast"), "approximate"),
    (lambda: nn.ELU(alpha=None), "alpha"),
    (lambda: nn.Softplus(beta=None), "beta"),
    (lambda: nn.Softplus(beta=0.0), "beta"),
    (lambda: F.softplus(gg.tensor(X), threshold="high"), "threshold"),
    (lambda: F.leaky_relu(gg.tensor(X), None), "negative_slope"),
    (lambda: nn.MaxPool2d(2, ceil_mode="yes"), "ceil_mode"),
    (lambda: nn.AvgPool2d(2, ceil_mode="yes"), "ceil_mode"),
    (lambda: F.avg_pool2d(gg.tensor(X), 2, divisor_override=0), "divisor_override"),
    (lambda: F.dropout(gg.tensor(X), None), "p"),
    (lambda: gg.optim.lr_scheduler.StepLR(gg.optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1), step_size=None),
     "step_size"),
    (lambda: gg.optim.lr_scheduler.StepLR(gg.optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1), 2, gamma="x"), "gamma"),
]


@pytest.mark.parametrize("call,argument", BAD, ids=[f"{i}-{a}" for i, (_, a) in enumerate(BAD)])
def test_an_unsupported_argument_value_raises_a_glassgrad_error_naming_it(call, argument):
    with pytest.raises(gg.GlassgradError) as e:
        call()
    assert argument in str(e.value), str(e.value)


def test_numpy_integers_and_floats_are_accepted_where_python_ones_are():
    layer = nn.Conv2d(np.int64(3), np.int64(4), np.int64(3), stride=np.int32(1))
    assert layer(gg.tensor(X)).shape == (1, 4, 4, 4)
    assert nn.Dropout(np.float32(0.25)).p == pytest.approx(0.25)
