"""BatchNorm running statistics that are views of another tensor (m.running_mean = buf[0],
register_buffer of a slice) are updated in place, through to their base, as PyTorch's kernel
writes them (docs/inplace-and-views.md, "Writing stored tensors in their own buffers"; the
runtime's update_stored_stats leaves views to that path). Expected values: the module's
formula in NumPy."""
import numpy as np

import glassgrad as gg


X = np.arange(12.0, dtype=np.float32).reshape(3, 4)


def updated(mean, var, x, momentum=0.1):
    return ((1 - momentum) * mean + momentum * x.mean(0),
            (1 - momentum) * var + momentum * x.var(0, ddof=1))


def test_statistics_assigned_as_views_write_their_base():
    m = gg.nn.BatchNorm1d(4)
    buf = gg.zeros(2, 4)
    m.running_mean = buf[0]
    m.running_var = buf[1]
    with gg.no_grad():
        m.running_var.fill_(1.0)
    m(gg.tensor(X))
    m(gg.tensor(X + 1))
    mean, var = updated(np.zeros(4), np.ones(4), X)
    mean, var = updated(mean, var, X + 1)
    np.testing.assert_allclose(buf.numpy(), np.stack([mean, var]), rtol=1e-6)
    np.testing.assert_allclose(m.running_mean.numpy(), mean, rtol=1e-6)
    assert m.num_batches_tracked.item() == 2


def test_a_registered_slice_writes_its_base_and_the_other_statistic_stays_stored():
    m = gg.nn.BatchNorm1d(4)
    big = gg.zeros(8)
    del m.running_mean
    m.register_buffer("running_mean", big[2:6])
    m(gg.tensor(X))
    mean, var = updated(np.zeros(4), np.ones(4), X)
    np.testing.assert_allclose(big.numpy(), np.concatenate([[0, 0], mean, [0, 0]]), rtol=1e-6)
    np.testing.assert_allclose(m.running_var.numpy(), var, rtol=1e-6)


def test_cumulative_momentum_writes_a_strided_view():
    m = gg.nn.BatchNorm1d(4, momentum=None)
    base = gg.zeros(4, 2)
    m.running_mean = base[:, 0]
    m(gg.tensor(X))
    m(gg.tensor(X + 1))
    expected = (X.mean(0) + (X + 1).mean(0)) / 2  # momentum 1 / num_batches_tracked
    np.testing.assert_allclose(base.numpy(), np.stack([expected, np.zeros(4)], 1), rtol=1e-6)
    assert m.num_batches_tracked.item() == 2


def test_functional_batch_norm_writes_view_statistics():
    stats = gg.zeros(2, 4)
    stats[1] = 1.0
    gg.nn.functional.batch_norm(gg.tensor(X), stats[0], stats[1], training=True, momentum=0.5)
    mean, var = updated(np.zeros(4), np.ones(4), X, momentum=0.5)
    np.testing.assert_allclose(stats.numpy(), np.stack([mean, var]), rtol=1e-6)
