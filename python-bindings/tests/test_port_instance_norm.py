"""InstanceNorm1d / InstanceNorm2d and F.instance_norm as PyTorch defines them: each (sample,
channel) normalized over its spatial values, the affine parameters, running statistics (the
batch's average of the pairs' statistics, unbiased variance), eval mode, unbatched input and
PyTorch's checks; against a NumPy restatement and, where installed, torch."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F


def _instance_norm_numpy(x, w=None, b=None, eps=1e-5):
    axes = tuple(range(2, x.ndim))
    y = (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + eps)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    if w is not None:
        y = y * w.reshape(shape)
    if b is not None:
        y = y + b.reshape(shape)
    return y


@pytest.mark.parametrize("shape", [(3, 4, 7), (2, 3, 5, 6), (1, 2, 9)])
def test_instance_norm_matches_numpy_with_gradients(shape):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape) * 3 + 1
    w, b = rng.standard_normal(shape[1]), rng.standard_normal(shape[1])
    got = F.instance_norm(gg.tensor(x), weight=gg.tensor(w), bias=gg.tensor(b)).numpy()
    np.testing.assert_allclose(got, _instance_norm_numpy(x, w, b), rtol=1e-10, atol=1e-12)
    assert gg.debug.gradcheck(lambda t, ww, bb: F.instance_norm(t, weight=ww, bias=bb),
                              [x, w, b])


def test_running_statistics_average_the_pairs_statistics():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 3, 5, 6))
    layer = gg.nn.InstanceNorm2d(3, momentum=0.3, track_running_stats=True).double()
    layer(gg.tensor(x))
    mean = x.mean((2, 3)).mean(0)
    var = x.var((2, 3), ddof=1).mean(0)
    np.testing.assert_allclose(layer.running_mean.numpy(), 0.3 * mean, rtol=1e-12)
    np.testing.assert_allclose(layer.running_var.numpy(), 0.7 + 0.3 * var, rtol=1e-12)
    assert int(layer.num_batches_tracked.numpy()) == 0  # InstanceNorm never counts, as PyTorch's
    layer.eval()  # now the running statistics normalize
    y = layer(gg.tensor(x)).numpy()
    want = (x - layer.running_mean.numpy().reshape(1, 3, 1, 1)) / np.sqrt(
        layer.running_var.numpy().reshape(1, 3, 1, 1) + 1e-5)
    np.testing.assert_allclose(y, want, rtol=1e-10)


def test_without_running_statistics_eval_normalizes_each_sample():
    x = np.random.default_rng(2).standard_normal((2, 3, 8))
    layer = gg.nn.InstanceNorm1d(3).double().eval()
    np.testing.assert_allclose(layer(gg.tensor(x)).numpy(), _instance_norm_numpy(x), rtol=1e-10, atol=1e-12)
    assert layer.running_mean is None and list(layer.state_dict()) == []


def test_unbatched_input_and_state_dict_keys_match_torch(torch):
    x = np.random.default_rng(3).standard_normal((3, 5, 4))
    mine = gg.nn.InstanceNorm2d(3, affine=True, track_running_stats=True).double()
    theirs = torch.nn.InstanceNorm2d(3, affine=True, track_running_stats=True).double()
    assert list(mine.state_dict()) == list(theirs.state_dict())
    assert repr(mine) == repr(theirs)
    np.testing.assert_allclose(mine(gg.tensor(x)).detach().numpy(), theirs(torch.tensor(x)).detach().numpy(), rtol=1e-10)
    for k, v in theirs.state_dict().items():
        np.testing.assert_allclose(mine.state_dict()[k], v.numpy(), rtol=1e-12)
    assert repr(gg.nn.InstanceNorm1d(4, affine=True, bias=False)) == \
        repr(torch.nn.InstanceNorm1d(4, affine=True, bias=False))


def test_instance_norm_checks_as_pytorch():
    with pytest.raises(gg.ShapeError, match=r"expected 3D or 4D input \(got 2D input"):
        gg.nn.InstanceNorm2d(3)(gg.tensor(np.zeros((3, 4))))
    with pytest.raises(gg.ShapeError, match=r"size at dim=1 to match num_features \(4\), but got: 3"):
        gg.nn.InstanceNorm1d(4, affine=True)(gg.tensor(np.zeros((2, 3, 5), np.float32)))
    with pytest.warns(UserWarning, match="does not match num_features"):
        gg.nn.InstanceNorm1d(4)(gg.tensor(np.random.rand(2, 3, 5).astype(np.float32)))
    with pytest.raises(gg.ShapeError, match="more than 1 spatial element when training"):
        F.instance_norm(gg.tensor(np.zeros((2, 3, 1))))
    with pytest.raises(gg.InvalidArgumentError, match="running_mean and running_var to be defined"):
        F.instance_norm(gg.tensor(np.zeros((2, 3, 4))), use_input_stats=False)
