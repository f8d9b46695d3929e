"""torch.nn.functional names that were missing: conv_tbc (a 1-d convolution in (time, batch,
channels) layout), max_pool3d_with_indices, adaptive_max_pool3d_with_indices and
native_channel_shuffle, against PyTorch (values, indices, input/weight/bias gradients), a NumPy
reference of conv_tbc and a float64 finite-difference check."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F
from glassgrad.debug import gradcheck
from torch_compare import compare

torch = pytest.importorskip("torch")
TF = torch.nn.functional


@pytest.mark.parametrize("pad", [0, 1, 3])
def test_conv_tbc_matches_torch_and_numpy(pad):
    rng = np.random.default_rng(pad)
    x, w, b = rng.standard_normal((6, 2, 3)), rng.standard_normal((3, 3, 4)), rng.standard_normal(4)
    compare(F.conv_tbc, TF.conv_tbc, [x, w, b], (0, 1, 2), dict(pad=pad))
    xp = np.pad(x, ((pad, pad), (0, 0), (0, 0)))
    ref = np.stack([sum(xp[t + j] @ w[j] for j in range(3)) + b for t in range(xp.shape[0] - 2)])
    np.testing.assert_allclose(F.conv_tbc(gg.tensor(x), gg.tensor(w), gg.tensor(b), pad).numpy(), ref, rtol=1e-12)
    assert gradcheck(lambda a, ww, bb: F.conv_tbc(a, ww, bb, pad), [x, w, b])
    with pytest.raises(gg.ShapeError, match="conv_tbc"):
        F.conv_tbc(gg.tensor(x[0]), gg.tensor(w), gg.tensor(b))


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=(2, 3, 2), stride=1, padding=1, ceil_mode=True)])
def test_max_pool3d_with_indices_matches_torch(kw):
    v = np.random.default_rng(1).standard_normal((2, 2, 4, 5, 6))
    a, b = F.max_pool3d_with_indices(gg.tensor(v), **kw), TF.max_pool3d_with_indices(torch.tensor(v), **kw)
    np.testing.assert_array_equal(a[0].numpy(), b[0].numpy())
    np.testing.assert_array_equal(a[1].numpy(), b[1].numpy())


@pytest.mark.parametrize("size", [1, (2, 3, 2), (None, 2, 4)])
def test_adaptive_max_pool3d_with_indices_matches_torch(size):
    v = np.random.default_rng(2).standard_normal((1, 3, 4, 5, 6))
    a, b = F.adaptive_max_pool3d_with_indices(gg.tensor(v), size), TF.adaptive_max_pool3d_with_indices(torch.tensor(v), size)
    np.testing.assert_array_equal(a[0].numpy(), b[0].numpy())
    np.testing.assert_array_equal(a[1].numpy(), b[1].numpy())


def test_native_channel_shuffle_is_channel_shuffle():
    c = np.random.default_rng(3).standard_normal((2, 6, 3, 3))
    compare(lambda t: F.native_channel_shuffle(t, 3), lambda t: TF.native_channel_shuffle(t, 3), [c], ())
