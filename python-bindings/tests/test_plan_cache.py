"""The plan cache: a training loop compiles once; cached steps give the same numbers as
freshly compiled ones; changing the learning rate is data, not structure."""
import gc
import re

import numpy as np
import pytest

import glassgrad as gg


@pytest.fixture(autouse=True)
def nothing_pending():
    """The counts are of this test's plans: values another test of this worker left pending
    (alive in a reference cycle not yet collected) would join the first step's plan, a second
    compile. Collect them, then compute what is still pending, before each test."""
    gc.collect()
    gg.realize()


class TinyMLP(gg.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = gg.Linear(8, 16)
        self.fc2 = gg.Linear(16, 4)

    def forward(self, x):
        return self.fc2(gg.relu(self.fc1(x)))


def _data(n=260, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 8)).astype(np.float32), rng.integers(0, 4, n).astype(np.int64)


def _train(steps_per_epoch_data, batch, clear_cache=False, momentum=0.9):
    X, y = steps_per_epoch_data
    gg.manual_seed(3)
    model = TinyMLP()
    opt = gg.SGD(model.parameters(), lr=0.05, momentum=momentum)
    Xt, yt = gg.tensor(X), gg.tensor(y)
    losses = []
    for i in range(0, len(X), batch):
        if clear_cache:
            gg.clear_plan_cache()
        loss = gg.cross_entropy(model(Xt[i:i + batch]), yt[i:i + batch])
        loss.backward()
        opt.step()
        opt.zero_grad()
        losses.append(loss.item())
    return model, losses


def test_a_100_step_loop_compiles_once():
    gg.clear_plan_cache()
    gg.reset_cache_stats()
    _train(_data(n=3200), batch=32)
    stats = gg.cache_stats()
    assert stats["compiles"] == 1, stats
    assert stats["hits"] == 99, stats


def test_a_short_last_batch_compiles_a_second_plan():
    gg.clear_plan_cache()
    gg.reset_cache_stats()
    _train(_data(n=3210), batch=32)
    assert gg.cache_stats()["compiles"] == 2


def test_cached_steps_equal_uncached_steps():
    data = _data()
    m1, l1 = _train(data, 32)
    m2, l2 = _train(data, 32, clear_cache=True)
    np.testing.assert_array_equal(np.array(l1), np.array(l2))
    for (n, a), (_, b) in zip(m1.state_dict().items(), m2.state_dict().items()):
        np.testing.assert_array_equal(a, b, err_msg=n)


def test_loss_falls_when_training():
    _, losses = _train(_data(n=2048, seed=1), 32)
    assert np.mean(losses[-10:]) < np.mean(losses[:10])


def test_changing_the_learning_rate_does_not_recompile():
    X, y = _data()
    model = TinyMLP()
    opt = gg.SGD(model.parameters(), lr=0.1)
    Xt, yt = gg.tensor(X), gg.tensor(y)
    gg.clear_plan_cache()
    gg.reset_cache_stats()
    for step in range(4):
        opt.lr = 0.1 / (step + 1)
        gg.cross_entropy(model(Xt[:32]), yt[:32]).backward()
        opt.step()
        opt.zero_grad()
    assert gg.cache_stats()["compiles"] == 1


def test_step_without_backward_changes_nothing_as_in_pytorch():
    # PyTorch skips parameters whose .grad is None, so scripts call step() without a backward
    # (plotting a learning-rate schedule: optimizer.step(); scheduler.step()); no plan runs.
    model = TinyMLP()
    before = [p.detach().numpy().copy() for p in model.parameters()]
    opt = gg.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = gg.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    for _ in range(3):
        opt.step()
        sched.step()
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1 / 8)
    for p, b in zip(model.parameters(), before):
        np.testing.assert_array_equal(p.detach().numpy(), b)


def test_old_values_are_invalidated_after_an_in_place_update():
    model = TinyMLP()
    opt = gg.SGD(model.parameters(), lr=0.1)
    X, y = _data()
    loss = gg.cross_entropy(model(gg.tensor(X[:8])), gg.tensor(y[:8]))
    loss.backward(retain_graph=True)
    opt.step()
    opt.zero_grad()
    with pytest.raises(gg.GlassgradError) as e:
        loss.backward()  # the backward reads a weight that step() overwrote (the second layer's)
    assert "overwritten in place" in str(e.value)


def test_each_overwritten_value_names_the_update_that_overwrote_it():
    # One step's plan holds several in-place ops (the optimizer's updates, the batch norm's running
    # statistics and batch count, in the layer's scope): each old value names its own op and scope.
    rng = np.random.default_rng(5)
    model = gg.nn.Sequential(gg.nn.Linear(4, 3), gg.nn.BatchNorm1d(3))
    opt = gg.SGD(model.parameters(), lr=0.1)
    x = gg.tensor(rng.standard_normal((6, 4)).astype(np.float32))
    bn = model[1]
    for _ in range(3):  # the reasons are composed once and kept (realize.cpp, overwrite_reason): every step's hold
        old_weight, old_mean, old_count = model[0].weight._h.pin(), bn.running_mean._h.pin(), bn.num_batches_tracked._h.pin()
        model(x).sum().backward()
        opt.step()
        opt.zero_grad()
        for handle, update in ((old_weight, "SGDUpdate ('optimizer')"), (old_mean, "BatchNormUpdateStats ('1')"),
                               (old_count, "AddScalarInPlace ('1')")):
            with pytest.raises(gg.GlassgradError, match=re.escape(f"overwritten in place by {update}")):
                handle.data()
