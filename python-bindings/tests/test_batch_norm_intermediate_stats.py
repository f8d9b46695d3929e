"""F.batch_norm(training=True) given running statistics that are computed tensors, not buffers:
PyTorch updates them in place all the same (eriklindernoren/PyTorch-GAN's munit.py, whose AdaIN
layer passes `self.running_mean.repeat(b)`); the buffers they came from stay as they were."""
import numpy as np
import pytest

import glassgrad.torch as gtorch


def _adain(torch, momentum):
    """An AdaIN-style call on fixed data; returns the output, the updated computed statistics and
    the buffers, as arrays."""
    rng = np.random.default_rng(5)
    x = torch.tensor(rng.normal(size=(2, 3, 4, 5)), dtype=torch.float32)
    mean_buf, var_buf = torch.tensor([0.5, -1.0, 2.0]), torch.tensor([1.0, 2.0, 0.5])
    w, b = torch.tensor(rng.normal(size=6), dtype=torch.float32), torch.tensor(rng.normal(size=6), dtype=torch.float32)
    running_mean, running_var = mean_buf.repeat(2), var_buf.repeat(2)
    out = torch.nn.functional.batch_norm(x.contiguous().view(1, 6, 4, 5), running_mean, running_var, w, b, True,
                                         momentum, 1e-5)
    return [t.numpy() for t in (out, running_mean, running_var, mean_buf, var_buf)]


@pytest.mark.parametrize("momentum", [0.1, 0.5])
def test_computed_running_statistics_are_updated_in_place(momentum):
    mine = _adain(gtorch, momentum)
    np.testing.assert_array_equal(mine[3], [0.5, -1.0, 2.0])  # the buffers: not written
    np.testing.assert_array_equal(mine[4], [1.0, 2.0, 0.5])
    assert not np.allclose(mine[1], np.tile([0.5, -1.0, 2.0], 2))  # the computed statistics moved
    torch = pytest.importorskip("torch")
    theirs = _adain(torch, momentum)
    for a, b in zip(mine, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
