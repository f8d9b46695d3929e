"""On/off arguments PyTorch reads by their truth value (`if bias:`): a module constructor's bias,
affine, elementwise_affine, track_running_stats, inplace, batch_first, norm_first, add_bias_kv,
..., an activation's or dropout's inplace, max pooling's return_indices, a loss's legacy
size_average / reduce take 0, 1, None (docs/porting.md, "What maps to what"). Those PyTorch hands
to its C++ ops (RNN's bias and batch_first, KLDivLoss's log_target, dropout's training) stay bools."""
import warnings

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F


@pytest.mark.parametrize("make", [lambda b: nn.Linear(3, 4, bias=b), lambda b: nn.Conv2d(3, 4, 3, bias=b),
                                  lambda b: nn.ConvTranspose1d(3, 4, 3, bias=b), lambda b: nn.Bilinear(3, 3, 2, bias=b),
                                  lambda b: nn.LSTMCell(3, 4, bias=b), lambda b: nn.LayerNorm(4, bias=b),
                                  lambda b: nn.GroupNorm(2, 4, bias=b), lambda b: nn.BatchNorm2d(4, bias=b)])
@pytest.mark.parametrize("value,has_bias", [(0, False), (None, False), (1, True), ("yes", True)])
def test_bias_is_read_by_its_truth_value(make, value, has_bias):
    names = {name for name, _ in make(value).named_parameters()}
    assert any("bias" in n for n in names) == has_bias


@pytest.mark.parametrize("make,param", [(lambda v: nn.BatchNorm1d(3, affine=v), "weight"),
                                        (lambda v: nn.GroupNorm(1, 3, affine=v), "weight"),
                                        (lambda v: nn.InstanceNorm1d(3, affine=v), "weight"),
                                        (lambda v: nn.LayerNorm(3, elementwise_affine=v), "weight"),
                                        (lambda v: nn.RMSNorm(3, elementwise_affine=v), "weight"),
                                        (lambda v: nn.MultiheadAttention(4, 2, add_bias_kv=v), "bias_k")])
def test_affine_switches_are_read_by_their_truth_value(make, param):
    assert getattr(make(0), param, None) is None
    assert getattr(make(1), param) is not None


def test_track_running_stats_none_keeps_no_statistics():
    assert nn.BatchNorm2d(3, track_running_stats=None).running_mean is None
    assert nn.BatchNorm2d(3, track_running_stats=1).running_mean is not None


@pytest.mark.parametrize("make", [lambda: nn.ReLU(inplace=1), lambda: nn.LeakyReLU(inplace=1), lambda: nn.ELU(inplace=1),
                                  lambda: nn.SiLU(inplace=1), lambda: nn.Hardtanh(inplace=1), lambda: nn.ReLU6(inplace=1),
                                  lambda: nn.SELU(inplace=1), lambda: nn.CELU(inplace=1),
                                  lambda: nn.Threshold(0.5, 7.0, inplace=1)])
def test_inplace_1_writes_the_input(make):
    x = gg.tensor([-1.0, 0.25, 2.0])
    y = make()(x)
    assert y is x


@pytest.mark.parametrize("fn", [lambda x: F.relu(x, inplace=1), lambda x: F.silu(x, inplace=1),
                                lambda x: F.elu(x, inplace=1), lambda x: F.hardtanh(x, inplace=1),
                                lambda x: F.dropout(x, 0.0, inplace=1)])
def test_functional_inplace_is_read_by_its_truth_value(fn):
    x = gg.tensor([-1.0, 0.25, 2.0])
    assert fn(x) is x


def test_functional_inplace_0_or_none_returns_a_new_tensor():
    x = gg.tensor([-1.0, 0.25, 2.0])
    assert F.relu(x, inplace=0) is not x and F.leaky_relu(x, inplace=None) is not x
    assert x.tolist() == [-1.0, 0.25, 2.0]


def test_dropout_module_inplace_1():
    x = gg.ones(4)
    assert nn.Dropout(0.0, inplace=1)(x) is x


def test_return_indices_1_returns_the_indices():
    x = gg.arange(16.0).reshape(1, 1, 4, 4)
    values, indices = nn.MaxPool2d(2, return_indices=1)(x)
    np.testing.assert_array_equal(indices.numpy().ravel(), [5, 7, 13, 15])
    assert isinstance(F.max_pool1d(x[0], 2, return_indices=1), tuple)
    assert isinstance(F.adaptive_max_pool2d(x, 2, return_indices=1), tuple)
    assert isinstance(nn.AdaptiveMaxPool1d(2, return_indices=1)(x[0]), tuple)
    assert not isinstance(F.max_pool2d(x, 2, return_indices=None), tuple)


def test_batch_first_1_and_norm_first_1():
    attn = nn.MultiheadAttention(4, 2, batch_first=1)
    q = gg.ones(3, 5, 4)
    assert attn(q, q, q)[0].shape == (3, 5, 4)
    layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.0, batch_first=1, norm_first=1)
    assert layer.norm_first and layer(q).shape == (3, 5, 4)


def test_legacy_size_average_0_sums():
    x, y = gg.tensor([1.0, 3.0]), gg.zeros(2)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert F.mse_loss(x, y, size_average=0).item() == 10.0
        assert nn.MSELoss(reduce=0)(x, y).shape == (2,)


@pytest.mark.parametrize("make,text", [(lambda: nn.LSTM(3, 4, bias=0), "bias should be of type bool, got: int"),
                                       (lambda: nn.GRU(3, 4, batch_first=None),
                                        "batch_first should be of type bool, got: NoneType"),
                                       (lambda: nn.KLDivLoss(log_target=1, reduction="batchmean")(gg.zeros(2), gg.zeros(2)), "log_target"),
                                       (lambda: F.dropout(gg.ones(2), 0.5, training=1), "training")])
def test_arguments_pytorch_reads_as_bools_stay_type_errors(make, text):
    with pytest.raises(TypeError, match=text):
        make()


@pytest.mark.parametrize("make,shown", [
    (lambda m: m.LSTMCell(3, 4, bias=1), "LSTMCell(3, 4, bias=1)"),
    (lambda m: m.GRUCell(3, 4, bias=None), "GRUCell(3, 4, bias=None)"),
    (lambda m: m.BatchNorm1d(3, affine=1), "BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=1, bias=True, "
                                           "track_running_stats=True)"),
    (lambda m: m.BatchNorm1d(3, track_running_stats=None), "BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, "
                                                           "bias=True, track_running_stats=None)"),
    (lambda m: m.InstanceNorm1d(3, affine=None), "InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=None, bias=False, "
                                                 "track_running_stats=False)"),
    (lambda m: m.GroupNorm(1, 3, affine=0), "GroupNorm(1, 3, eps=1e-05, affine=0, bias=False)"),
    (lambda m: m.LayerNorm(3, elementwise_affine=1), "LayerNorm((3,), eps=1e-05, elementwise_affine=1, bias=True)"),
    (lambda m: m.RMSNorm(3, elementwise_affine=None), "RMSNorm((3,), eps=None, elementwise_affine=None)"),
    (lambda m: m.Dropout(inplace=1), "Dropout(p=0.5, inplace=1)"),
    (lambda m: m.Dropout2d(inplace=None), "Dropout2d(p=0.5, inplace=None)"),
])
def test_the_repr_shows_a_switch_as_given(make, shown):
    assert repr(make(nn)) == shown


@pytest.mark.parametrize("make,shown", [(lambda m: m.LSTMCell(3, 4, bias=1), "LSTMCell(3, 4, bias=1)"),
                                        (lambda m: m.GroupNorm(1, 3, affine=0),
                                         "GroupNorm(1, 3, eps=1e-05, affine=0, bias=False)"),
                                        (lambda m: m.Dropout(inplace=1), "Dropout(p=0.5, inplace=1)")])
def test_torch_shows_them_so(make, shown):
    torch = pytest.importorskip("torch")
    assert repr(make(torch.nn)) == shown


def test_torch_agrees():
    torch = pytest.importorskip("torch")
    assert torch.nn.Linear(3, 4, bias=0).bias is None
    assert torch.nn.BatchNorm1d(3, affine=0).weight is None
    x = torch.tensor([-1.0, 2.0])
    assert torch.nn.ReLU(inplace=1)(x) is x
    assert isinstance(torch.nn.MaxPool2d(2, return_indices=1)(torch.ones(1, 1, 4, 4)), tuple)
    with pytest.raises(TypeError, match="bias should be of type bool, got: int"):
        torch.nn.LSTM(3, 4, bias=0)
