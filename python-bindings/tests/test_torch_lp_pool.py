"""F.lp_pool1d / lp_pool2d (nn.LPPool1d / LPPool2d) and F.adaptive_avg_pool3d
(nn.AdaptiveAvgPool3d) against PyTorch on random shapes and arguments (values, input gradients,
repr), NumPy references and finite differences. Skipped when torch is not importable (CI never
installs it; tools/torch_differential.sh runs it)."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F
from torch_compare import compare

torch = pytest.importorskip("torch")
TF = torch.nn.functional


@pytest.mark.parametrize("seed", range(20))
def test_lp_pool_matches_torch(seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.1, 2.0, (2, 3, int(rng.integers(3, 8)), int(rng.integers(3, 8))))
    k = tuple(int(v) for v in rng.integers(1, 4, 2))
    stride, ceil_mode = [None, 1, 2, (1, 2)][seed % 4], bool(seed % 2)
    for p in (1.0, 1.5, 2.0, 3.0):
        kw = dict(norm_type=p, kernel_size=k, stride=stride, ceil_mode=ceil_mode)
        compare(F.lp_pool2d, TF.lp_pool2d, [x], (0,), kw)
        compare(F.lp_pool2d, TF.lp_pool2d, [x[0]], (0,), kw)
        compare(nn.LPPool2d(**kw), torch.nn.LPPool2d(**kw), [x], (0,))
        assert repr(nn.LPPool2d(**kw)) == repr(torch.nn.LPPool2d(**kw))
        kw1 = dict(kw, kernel_size=k[0], stride=2 if isinstance(stride, tuple) else stride)
        compare(F.lp_pool1d, TF.lp_pool1d, [x[:, :, 0]], (0,), kw1)
        compare(nn.LPPool1d(**kw1), torch.nn.LPPool1d(**kw1), [x[:, :, 0]], (0,))
    compare(F.lp_pool2d, TF.lp_pool2d, [rng.standard_normal(x.shape)], (0,), dict(norm_type=2, kernel_size=k))


@pytest.mark.parametrize("output_size", [1, 2, 5, (2, 3, 4), (None, 2, 7), (3, None, None), (4, 5, 6)])
def test_adaptive_avg_pool3d_matches_torch(output_size):
    v = np.random.default_rng(3).standard_normal((2, 3, 4, 5, 6))
    compare(F.adaptive_avg_pool3d, TF.adaptive_avg_pool3d, [v], (0,), dict(output_size=output_size))
    compare(F.adaptive_avg_pool3d, TF.adaptive_avg_pool3d, [v[0]], (0,), dict(output_size=output_size))
    compare(nn.AdaptiveAvgPool3d(output_size), torch.nn.AdaptiveAvgPool3d(output_size), [v], (0,))
    assert repr(nn.AdaptiveAvgPool3d(output_size)) == repr(torch.nn.AdaptiveAvgPool3d(output_size))


def test_lp_pool_and_adaptive_avg_pool3d_match_numpy_and_finite_differences():
    rng = np.random.default_rng(4)
    x = rng.uniform(0.1, 2.0, (1, 2, 4, 6))
    ref = ((x.reshape(1, 2, 2, 2, 3, 2) ** 3).sum(axis=(3, 5))) ** (1 / 3)
    np.testing.assert_allclose(F.lp_pool2d(gg.tensor(x), 3, 2).numpy(), ref, rtol=1e-12)
    assert gg.debug.gradcheck(lambda t: F.lp_pool2d(t, 3, (2, 3), 1).sum(), [x])
    v = rng.standard_normal((1, 2, 4, 6, 2))
    np.testing.assert_allclose(F.adaptive_avg_pool3d(gg.tensor(v), (2, 3, 1)).numpy(),
                               v.reshape(1, 2, 2, 2, 3, 2, 1, 2).mean(axis=(3, 5, 7)), rtol=1e-12, atol=1e-14)
    assert gg.debug.gradcheck(lambda t: (F.adaptive_avg_pool3d(t, (3, 4, 2)) ** 2).sum(), [v])


@pytest.mark.parametrize("seed", range(8))
def test_lp_pool3d_matches_torch(seed):
    rng = np.random.default_rng(40 + seed)
    x = rng.uniform(0.1, 2.0, (2, 2, *(int(v) for v in rng.integers(3, 6, 3))))
    k = tuple(int(v) for v in rng.integers(1, 3, 3))
    stride, ceil_mode = [None, 1, 2, (1, 2, 1)][seed % 4], bool(seed % 2)
    for p in (1.0, 2, 3.0):
        kw = dict(norm_type=p, kernel_size=k, stride=stride, ceil_mode=ceil_mode)
        compare(F.lp_pool3d, TF.lp_pool3d, [x], (0,), kw)
        compare(F.lp_pool3d, TF.lp_pool3d, [x[0]], (0,), kw)
        compare(nn.LPPool3d(**kw), torch.nn.LPPool3d(**kw), [x], (0,))
        assert repr(nn.LPPool3d(**kw)) == repr(torch.nn.LPPool3d(**kw))
    assert repr(nn.LPPool3d(2, 3)) == repr(torch.nn.LPPool3d(2, 3))


def test_lp_pool3d_matches_numpy_and_finite_differences():
    rng = np.random.default_rng(5)
    x = rng.uniform(0.1, 2.0, (1, 2, 4, 2, 6))
    ref = ((x.reshape(1, 2, 2, 2, 1, 2, 3, 2) ** 3).sum(axis=(3, 5, 7))) ** (1 / 3)
    np.testing.assert_allclose(F.lp_pool3d(gg.tensor(x), 3, 2).numpy(), ref, rtol=1e-12)
    assert gg.debug.gradcheck(lambda t: F.lp_pool3d(t, 3, (2, 1, 3), 1).sum(), [x])
    with pytest.raises(ValueError, match="lp_pool3d"):
        F.lp_pool3d(gg.tensor(x), 2, 0)
