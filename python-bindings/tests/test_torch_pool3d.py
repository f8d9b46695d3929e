"""F.avg_pool3d / max_pool3d / adaptive_max_pool3d (nn.AvgPool3d / MaxPool3d / AdaptiveMaxPool3d)
against PyTorch on random shapes and arguments (kernel, stride, padding, dilation, ceil_mode,
count_include_pad, divisor_override, ties, unbatched): values, indices, input gradients, reprs and
the errors torch raises; NumPy references and finite differences. Skipped when torch is not
importable (CI never installs it; tools/torch_differential.sh runs it)."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F
from torch_compare import compare

torch = pytest.importorskip("torch")
TF = torch.nn.functional


@pytest.mark.parametrize("seed", range(30))
def test_pool3d_matches_torch(seed):
    rng = np.random.default_rng(seed)
    shape = (int(rng.integers(1, 3)), int(rng.integers(1, 3))) + tuple(int(v) for v in rng.integers(2, 8, 3))
    x = rng.standard_normal(shape)
    if seed % 4 == 0:
        x = np.round(x)   # ties: the first maximum wins, as PyTorch's
    k = tuple(int(v) for v in rng.integers(1, 4, 3))
    stride = [None, 1, 2, tuple(int(v) for v in rng.integers(1, 3, 3))][seed % 4]
    padding = tuple(int(rng.integers(0, kk // 2 + 1)) for kk in k)
    dilation = tuple(int(v) for v in rng.integers(1, 3, 3))
    ceil_mode = bool(rng.integers(2))
    for count_include_pad in (True, False):
        for divisor_override in (None, 3):
            kw = dict(kernel_size=k, stride=stride, padding=padding, ceil_mode=ceil_mode,
                      count_include_pad=count_include_pad, divisor_override=divisor_override)
            compare(F.avg_pool3d, TF.avg_pool3d, [x], (0,), kw)
            compare(F.avg_pool3d, TF.avg_pool3d, [x[0]], (0,), kw)
            compare(nn.AvgPool3d(**kw), torch.nn.AvgPool3d(**kw), [x], (0,))
            assert repr(nn.AvgPool3d(**kw)) == repr(torch.nn.AvgPool3d(**kw))
    kw = dict(kernel_size=k, stride=stride, padding=padding, dilation=dilation, ceil_mode=ceil_mode)
    compare(F.max_pool3d, TF.max_pool3d, [x], (0,), kw)
    compare(F.max_pool3d, TF.max_pool3d, [x[0]], (0,), kw)
    compare(lambda a: F.max_pool3d(a, return_indices=True, **kw)[1],
            lambda a: TF.max_pool3d(a, return_indices=True, **kw)[1], [x], ())
    compare(nn.MaxPool3d(**kw), torch.nn.MaxPool3d(**kw), [x], (0,))
    assert repr(nn.MaxPool3d(**kw)) == repr(torch.nn.MaxPool3d(**kw))
    size = [1, 2, (2, 3, 1), (None, 2, 3), 4][seed % 5]
    compare(F.adaptive_max_pool3d, TF.adaptive_max_pool3d, [x], (0,), dict(output_size=size))
    compare(lambda a: F.adaptive_max_pool3d(a, size, True)[1], lambda a: TF.adaptive_max_pool3d(a, size, True)[1],
            [x], ())
    compare(nn.AdaptiveMaxPool3d(size), torch.nn.AdaptiveMaxPool3d(size), [x[0]], (0,))
    assert repr(nn.AdaptiveMaxPool3d(size)) == repr(torch.nn.AdaptiveMaxPool3d(size))


def test_pool3d_matches_numpy_and_finite_differences():
    rng = np.random.default_rng(31)
    x = rng.standard_normal((1, 2, 4, 6, 4))
    blocks = x.reshape(1, 2, 2, 2, 3, 2, 2, 2)
    np.testing.assert_allclose(F.avg_pool3d(gg.tensor(x), 2).numpy(), blocks.mean(axis=(3, 5, 7)), rtol=1e-12)
    np.testing.assert_array_equal(F.max_pool3d(gg.tensor(x), 2).numpy(), blocks.max(axis=(3, 5, 7)))
    assert gg.debug.gradcheck(lambda t: (F.avg_pool3d(t, 3, 2, 1, True, False) ** 2).sum(), [x])
    assert gg.debug.gradcheck(lambda t: (F.max_pool3d(t, 2, 1, 1, (1, 2, 1)) ** 2).sum(), [x])
    assert gg.debug.gradcheck(lambda t: (F.adaptive_max_pool3d(t, (3, 4, 2)) ** 2).sum(), [x])
    for bad in (dict(kernel_size=2, padding=2), dict(kernel_size=(5, 2, 2))):
        assert compare(F.avg_pool3d, TF.avg_pool3d, [x], (), bad) is not None
        assert compare(F.max_pool3d, TF.max_pool3d, [x], (), bad) is not None


@pytest.mark.parametrize("seed", range(8))
def test_max_unpool3d_matches_torch(seed):
    rng = np.random.default_rng(50 + seed)
    x = rng.standard_normal((2, 2) + tuple(int(v) for v in rng.integers(4, 8, 3)))
    k = tuple(int(v) for v in rng.integers(1, 4, 3))
    stride = [None, 2, (1, 2, 2), 1][seed % 4]
    padding = tuple(int(rng.integers(0, kk // 2 + 1)) for kk in k)
    values, indices = TF.max_pool3d(torch.tensor(x), k, stride, padding, return_indices=True)
    kw = dict(kernel_size=k, stride=stride, padding=padding)
    compare(lambda v, i: F.max_unpool3d(v, i, **kw), lambda v, i: TF.max_unpool3d(v, i, **kw),
            [values.numpy(), indices.numpy()], (0,))
    compare(lambda v, i: F.max_unpool3d(v, i, output_size=x.shape[2:], **kw),
            lambda v, i: TF.max_unpool3d(v, i, output_size=x.shape[2:], **kw), [values.numpy(), indices.numpy()], (0,))
    ours, theirs = nn.MaxUnpool3d(**kw), torch.nn.MaxUnpool3d(**kw)
    assert repr(ours) == repr(theirs)
    compare(lambda v, i: ours(v[0], i[0]), lambda v, i: theirs(v[0], i[0]), [values.numpy(), indices.numpy()], (0,))
