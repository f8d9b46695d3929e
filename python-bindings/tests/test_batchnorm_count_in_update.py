"""BatchNorm's num_batches_tracked += 1 in the running-statistics update's runtime call
(docs/performance.md, "tenth round"): a training forward with a float momentum records the count
with the statistics, and the count behaves as PyTorch's documented buffer: an int64 that counts
each training forward, read by momentum=None (the cumulative average), kept in state_dict, not
counted in eval mode, absent without track_running_stats, skipped when set to None. Expected
values are NumPy's, from PyTorch's documented update:
running = (1 - momentum) * running + momentum * batch statistic (unbiased variance)."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _batchnorm, _C


def _batches(n, shape=(4, 3, 2, 2), seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(np.float32) for _ in range(n)]


def _expected(batches, momentum):
    """running_mean, running_var after training forwards on `batches` (momentum None: the
    cumulative average, factor 1 / num_batches_tracked)."""
    c = batches[0].shape[1]
    rm, rv = np.zeros(c), np.ones(c)
    for k, x in enumerate(batches, start=1):
        axes = (0,) + tuple(range(2, x.ndim))
        x = x.astype(np.float64)
        n = x.size // c
        f = 1.0 / k if momentum is None else momentum
        rm = (1 - f) * rm + f * x.mean(axis=axes)
        rv = (1 - f) * rv + f * x.var(axis=axes) * n / (n - 1)
    return rm, rv


def _recorded_ops(monkeypatch) -> list:
    """The op names recorded through the two general recording calls and BatchNorm's forward call
    (the forward's op name) from now on."""
    names = []
    for owner, attr in ((_C, "lazy_record_op"), (_C, "lazy_record_op_outputs"), (_batchnorm, "_TRAINING")):
        real = getattr(owner, attr)

        def counting(op, *args, _real=real, **kwargs):
            names.append(str(op))
            return _real(op, *args, **kwargs)

        monkeypatch.setattr(owner, attr, counting)
    return names


def test_count_is_recorded_by_the_statistics_update_call(monkeypatch):
    # Every BatchNorm layer of a training loop: the forward is one recording call, and the
    # statistics update and the count ride along with it.
    x = _batches(1)[0]
    bn = gg.nn.BatchNorm2d(3)
    xt = gg.tensor(x)
    names = _recorded_ops(monkeypatch)
    bn(xt)
    assert names == ["BatchNorm2DTrain"]
    monkeypatch.undo()
    assert int(bn.num_batches_tracked.item()) == 1


def test_count_and_statistics_over_steps():
    batches = _batches(3)
    bn = gg.nn.BatchNorm2d(3)
    for k, x in enumerate(batches, start=1):
        bn(gg.tensor(x))
        assert int(bn.num_batches_tracked.item()) == k
    assert bn.num_batches_tracked.dtype == gg.int64 and bn.num_batches_tracked.shape == ()
    want_mean, want_var = _expected(batches, 0.1)
    np.testing.assert_allclose(bn.running_mean.numpy(), want_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.running_var.numpy(), want_var, rtol=1e-5, atol=1e-6)


def test_count_in_a_training_loop_with_backward_and_step():
    batches = _batches(3, shape=(4, 2, 3, 3), seed=1)
    gg.manual_seed(0)
    model = gg.nn.Sequential(gg.nn.Conv2d(2, 2, 1), gg.nn.BatchNorm2d(2), gg.nn.ReLU())
    opt = gg.SGD(model.parameters(), lr=0.1)
    for x in batches:
        loss = model(gg.tensor(x)).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()
        loss.item()
    assert int(model[1].num_batches_tracked.item()) == 3


def test_cumulative_average_reads_the_count():
    batches = _batches(3, seed=2)
    bn = gg.nn.BatchNorm2d(3, momentum=None)
    for x in batches:
        bn(gg.tensor(x))
    want_mean, want_var = _expected(batches, None)
    np.testing.assert_allclose(bn.running_mean.numpy(), want_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.running_var.numpy(), want_var, rtol=1e-5, atol=1e-6)
    assert int(bn.num_batches_tracked.item()) == 3


def test_eval_mode_does_not_count():
    x = _batches(1)[0]
    bn = gg.nn.BatchNorm2d(3)
    bn(gg.tensor(x))
    bn.eval()
    bn(gg.tensor(x))
    assert int(bn.num_batches_tracked.item()) == 1


def test_without_track_running_stats_there_is_no_count():
    x = _batches(1)[0]
    bn = gg.nn.BatchNorm2d(3, track_running_stats=False)
    y = bn(gg.tensor(x))
    assert bn.num_batches_tracked is None and "num_batches_tracked" not in bn.state_dict()
    axes = (0, 2, 3)
    want = (x - x.mean(axis=axes, keepdims=True)) / np.sqrt(x.var(axis=axes, keepdims=True) + 1e-5)
    np.testing.assert_allclose(y.detach().numpy(), want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("momentum", [0.1, None])
def test_count_set_to_none_is_skipped(momentum):
    # PyTorch's forward counts only a buffer that is not None; momentum=None then uses factor 0.
    x = _batches(1, seed=3)[0]
    bn = gg.nn.BatchNorm2d(3, momentum=momentum)
    bn.num_batches_tracked = None
    bn(gg.tensor(x))
    assert bn.num_batches_tracked is None
    want_mean, want_var = _expected([x], 0.1) if momentum is not None else (np.zeros(3), np.ones(3))
    np.testing.assert_allclose(bn.running_mean.numpy(), want_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.running_var.numpy(), want_var, rtol=1e-5, atol=1e-6)


def test_state_dict_round_trip_keeps_counting():
    batches = _batches(3, seed=4)
    bn = gg.nn.BatchNorm2d(3)
    for x in batches[:2]:
        bn(gg.tensor(x))
    state = bn.state_dict()
    assert int(state["num_batches_tracked"].item()) == 2
    other = gg.nn.BatchNorm2d(3)
    other.load_state_dict(state)
    other(gg.tensor(batches[2]))
    assert int(other.num_batches_tracked.item()) == 3
    assert int(bn.num_batches_tracked.item()) == 2  # the saved entry is not the layer's buffer moved


def test_refused_input_leaves_the_count():
    bn = gg.nn.BatchNorm2d(3)
    with pytest.raises(Exception, match="3"):
        bn(gg.ones(2, 4, 2, 2))  # 4 channels for a layer of 3
    assert int(bn.num_batches_tracked.item()) == 0
    bn(gg.tensor(_batches(1)[0]))
    assert int(bn.num_batches_tracked.item()) == 1


def test_statistics_not_stored_still_count_once():
    # Pending running statistics take update_running_stats' in-place path; the count still moves once.
    x = _batches(1, seed=5)[0]
    bn = gg.nn.BatchNorm2d(3)
    bn.running_mean = gg.zeros(3) + 0.0
    bn.running_var = gg.ones(3) * 1.0
    bn(gg.tensor(x))
    assert int(bn.num_batches_tracked.item()) == 1
    want_mean, want_var = _expected([x], 0.1)
    np.testing.assert_allclose(bn.running_mean.numpy(), want_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.running_var.numpy(), want_var, rtol=1e-5, atol=1e-6)


def test_empty_batch_counts():
    # PyTorch counts before normalizing: an empty batch counts, its statistics leave the running ones.
    bn = gg.nn.BatchNorm2d(3)
    bn(gg.zeros(0, 3, 2, 2))
    assert int(bn.num_batches_tracked.item()) == 1
    np.testing.assert_array_equal(bn.running_mean.numpy(), np.zeros(3, np.float32))


def test_one_value_per_channel_is_refused_without_counting():
    bn = gg.nn.BatchNorm1d(3)
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        bn(gg.ones(1, 3))
    assert int(bn.num_batches_tracked.item()) == 0


def test_saved_tensor_hooks_path_counts_once():
    x = _batches(1, seed=6)[0]
    bn = gg.nn.BatchNorm2d(3)
    with gg.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        bn(gg.tensor(x))
    assert int(bn.num_batches_tracked.item()) == 1
    want_mean, _ = _expected([x], 0.1)
    np.testing.assert_allclose(bn.running_mean.numpy(), want_mean, rtol=1e-5, atol=1e-6)


def test_batchnorm1d_counts():
    x = np.random.default_rng(7).standard_normal((5, 4)).astype(np.float32)
    bn = gg.nn.BatchNorm1d(4)
    bn(gg.tensor(x))
    bn(gg.tensor(x))
    assert int(bn.num_batches_tracked.item()) == 2
    want_mean, want_var = _expected([x, x], 0.1)
    np.testing.assert_allclose(bn.running_mean.numpy(), want_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.running_var.numpy(), want_var, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("momentum", [0.1, None])
def test_matches_pytorch_over_steps(momentum):
    torch = pytest.importorskip("torch")
    batches = _batches(3, seed=8)
    ours = gg.nn.BatchNorm2d(3, momentum=momentum)
    theirs = torch.nn.BatchNorm2d(3, momentum=momentum)
    for x in batches:
        ours(gg.tensor(x))
        theirs(torch.from_numpy(x))
    assert int(ours.num_batches_tracked.item()) == int(theirs.num_batches_tracked)
    np.testing.assert_allclose(ours.running_mean.numpy(), theirs.running_mean.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours.running_var.numpy(), theirs.running_var.numpy(), rtol=1e-5, atol=1e-6)
