"""What the plain training step reads from tensors per layer call (docs/performance.md, "The plain
loop's host work"): each property of a tensor is a call into the runtime, so the common path
reads only what it needs, and the other cases still take their own path. Expected values follow
PyTorch's documented BatchNorm2d update: running = (1 - momentum) * running + momentum * batch
statistic, the unbiased variance for running_var."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad._tensor import Tensor


def _count_dtype_reads(monkeypatch) -> list:
    reads = []
    real = Tensor.dtype

    def counting(self):
        reads.append(1)
        return real.fget(self)

    monkeypatch.setattr(Tensor, "dtype", property(counting))
    return reads


def _expected_stats(x: np.ndarray, momentum: float = 0.1):
    x = x.astype(np.float64)
    n = x.size // x.shape[1]
    mean = x.mean(axis=(0, 2, 3))
    var = x.var(axis=(0, 2, 3)) * n / (n - 1)
    return (1 - momentum) * 0.0 + momentum * mean, (1 - momentum) * 1.0 + momentum * var


def test_batchnorm_training_forward_reads_no_dtype(monkeypatch):
    # float32 statistics, stored, a float momentum: every BatchNorm layer of a training loop
    x = np.random.default_rng(0).standard_normal((4, 3, 2, 2)).astype(np.float32)
    bn = gg.nn.BatchNorm2d(3)
    xt = gg.tensor(x)
    reads = _count_dtype_reads(monkeypatch)
    y = bn(xt)
    assert reads == []
    monkeypatch.undo()
    want_mean, want_var = _expected_stats(x)
    np.testing.assert_allclose(bn.running_mean.numpy(), want_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.running_var.numpy(), want_var, rtol=1e-5, atol=1e-6)
    assert int(bn.num_batches_tracked.item()) == 1 and y.dtype == gg.float32


@pytest.mark.parametrize("dtype", [gg.float16, gg.bfloat16])
def test_batchnorm_half_statistics_still_update_in_their_dtype(dtype):
    # The runtime's update refuses storage types; they are updated in float32 and rounded once.
    x = np.random.default_rng(1).standard_normal((4, 2, 3, 3)).astype(np.float32)
    bn = gg.nn.BatchNorm2d(2)
    bn.running_mean = gg.zeros(2, dtype=dtype)
    bn.running_var = gg.ones(2, dtype=dtype)
    gg.realize(bn.running_mean, bn.running_var)
    bn(gg.tensor(x))
    want_mean, want_var = _expected_stats(x)
    assert bn.running_mean.dtype == dtype and bn.running_var.dtype == dtype
    np.testing.assert_allclose(bn.running_mean.float().numpy(), want_mean, rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(bn.running_var.float().numpy(), want_var, rtol=1e-2, atol=1e-2)
    assert int(bn.num_batches_tracked.item()) == 1


def test_batchnorm_statistics_of_another_float_type_are_still_refused():
    # float64 statistics beside a float32 batch: the update's dtype error, and the statistics kept
    bn = gg.nn.BatchNorm2d(2)
    bn.running_mean = gg.zeros(2, dtype=gg.float64)
    bn.running_var = gg.ones(2, dtype=gg.float64)
    gg.realize(bn.running_mean, bn.running_var)
    with pytest.raises(TypeError, match="BatchNormUpdateStats 'BatchNorm2d': inputs have different dtypes"):
        bn(gg.ones(3, 2, 2, 2))
    assert bn.running_mean.tolist() == [0.0, 0.0] and bn.running_var.tolist() == [1.0, 1.0]
    assert int(bn.num_batches_tracked.item()) == 0  # the count moves with the update or not at all
