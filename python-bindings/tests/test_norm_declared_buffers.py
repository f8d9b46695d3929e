"""Normalization layers without track_running_stats (BatchNorm*'s option, InstanceNorm*'s default)
declare running_mean, running_var and num_batches_tracked as buffers holding None, as PyTorch's
register_buffer(name, None) does: `_buffers` lists the three names, state_dict(), buffers() and
named_buffers() leave them out, get_buffer returns None, and a tensor assigned to one of the
names later becomes that buffer (and enters state_dict)."""
import copy

import numpy as np
import pytest

import glassgrad as gg

_NAMES = ["running_mean", "running_var", "num_batches_tracked"]

_LAYERS = [
    lambda nn: nn.BatchNorm1d(3, track_running_stats=False),
    lambda nn: nn.BatchNorm2d(3, track_running_stats=False),
    lambda nn: nn.BatchNorm3d(3, track_running_stats=False, affine=False),
    lambda nn: nn.InstanceNorm1d(3),
    lambda nn: nn.InstanceNorm2d(3, affine=True),
    lambda nn: nn.InstanceNorm3d(3),
    lambda nn: nn.SyncBatchNorm(3, track_running_stats=False),
]


@pytest.mark.parametrize("make", _LAYERS)
def test_the_three_buffers_are_declared_as_none(make):
    m = make(gg.nn)
    assert list(m._buffers) == _NAMES and all(v is None for v in m._buffers.values())
    assert all(name not in m.__dict__ for name in _NAMES)  # found through the table, not as attributes
    assert m.running_mean is None and m.get_buffer("running_var") is None
    assert list(m.buffers()) == [] and list(m.named_buffers(remove_duplicate=False)) == []
    assert [k for k in m.state_dict() if k in _NAMES] == []


def test_a_tensor_assigned_later_becomes_the_buffer():
    bn = gg.nn.BatchNorm1d(3, track_running_stats=False)
    bn.running_mean = gg.zeros(3)
    assert list(bn._buffers) == _NAMES and "running_mean" not in bn.__dict__
    assert list(bn.state_dict()) == ["weight", "bias", "running_mean"]
    with pytest.raises(TypeError, match="cannot assign 'int' as buffer 'running_var'"):
        bn.running_var = 5


def test_copies_conversions_and_loading_keep_the_declared_names():
    bn = gg.nn.BatchNorm1d(3, track_running_stats=False)
    for m in (copy.deepcopy(bn), bn.to(gg.float64)):
        assert list(m._buffers) == _NAMES and all(v is None for v in m._buffers.values())
    assert repr(bn.load_state_dict(bn.state_dict())) == "<All keys matched successfully>"
    x = gg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]], dtype=gg.float64)
    expected = (x.numpy() - x.numpy().mean(0)) / np.sqrt(x.numpy().var(0) + 1e-5)
    np.testing.assert_allclose(bn(x).detach().numpy(), expected, rtol=1e-12)
    bn.eval()  # batch statistics in eval mode too
    np.testing.assert_allclose(bn(x).detach().numpy(), expected, rtol=1e-12)


def test_lazy_and_converted_layers_declare_them_too():
    lazy = gg.nn.LazyBatchNorm1d(track_running_stats=False)
    lazy(gg.ones(4, 3))
    assert list(lazy._buffers) == _NAMES and list(lazy.state_dict()) == ["weight", "bias"]
    seq = gg.nn.SyncBatchNorm.convert_sync_batchnorm(gg.nn.Sequential(gg.nn.BatchNorm1d(3, track_running_stats=False)))
    assert list(seq[0]._buffers) == _NAMES and all(v is None for v in seq[0]._buffers.values())


def test_get_parameter_of_a_none_parameter_still_refuses():
    bn = gg.nn.BatchNorm1d(3, affine=False)
    with pytest.raises(AttributeError, match="`weight` is not an nn.Parameter"):
        bn.get_parameter("weight")


@pytest.mark.parametrize("make", _LAYERS[:6])
def test_as_torch(make):
    torch = pytest.importorskip("torch")
    ours, theirs = make(gg.nn), make(torch.nn)
    assert dict(ours._buffers) == dict(theirs._buffers)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert ours.get_buffer("running_mean") is theirs.get_buffer("running_mean") is None
