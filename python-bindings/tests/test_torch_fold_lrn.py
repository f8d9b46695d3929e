"""F.unfold / F.fold (nn.Unfold / nn.Fold) and F.local_response_norm (nn.LocalResponseNorm)
against PyTorch on random shapes and arguments (values, input gradients, the errors torch
raises), against NumPy references (windows read by loops; the channel-window sum), with
finite-difference gradients and fold as unfold's adjoint. Skipped when torch is not importable
(CI never installs it; tools/torch_differential.sh runs it)."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F
from torch_compare import compare

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _fold_cases(count):
    rng = np.random.default_rng(11)
    for _ in range(count):
        pick = lambda lo, hi: tuple(int(v) for v in rng.integers(lo, hi, 2))
        yield (int(rng.integers(3, 8)), int(rng.integers(3, 8))), dict(kernel_size=pick(1, 4), dilation=pick(1, 3),
                                                                       padding=pick(0, 3), stride=pick(1, 3))


FOLD_CASES = list(_fold_cases(60))


@pytest.mark.parametrize("hw,kw", FOLD_CASES)
def test_unfold_and_fold_match_torch(hw, kw):
    x = np.random.default_rng(hw[0] * 10 + hw[1]).standard_normal((2, 3) + hw)
    if compare(F.unfold, TF.unfold, [x], (0,), kw) is not None:
        return   # the kernel does not fit: both refused
    compare(F.unfold, TF.unfold, [x[0]], (0,), kw)
    compare(nn.Unfold(**kw), torch.nn.Unfold(**kw), [x], (0,))
    cols = TF.unfold(torch.tensor(x), **kw).numpy()
    compare(F.fold, TF.fold, [cols], (0,), dict(output_size=hw, **kw))
    compare(F.fold, TF.fold, [cols[0]], (0,), dict(output_size=hw, **kw))
    compare(nn.Fold(hw, **kw), torch.nn.Fold(hw, **kw), [cols], (0,))
    assert compare(F.fold, TF.fold, [cols[:, :, 1:]], (0,), dict(output_size=hw, **kw)) is not None


def test_unfold_reads_the_windows_a_loop_reads_and_fold_is_its_adjoint():
    rng = np.random.default_rng(12)
    x = rng.standard_normal((2, 2, 6, 5))
    k, d, p, s = (2, 3), (2, 1), (1, 0), (2, 1)
    cols = F.unfold(gg.tensor(x), k, d, p, s).numpy()
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    bh, bw = (6 + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1, (5 + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    ref = np.zeros((2, 2 * k[0] * k[1], bh * bw))
    for c in range(2):
        for i in range(k[0]):
            for j in range(k[1]):
                for r in range(bh):
                    for q in range(bw):
                        ref[:, (c * k[0] + i) * k[1] + j, r * bw + q] = xp[:, c, r * s[0] + i * d[0], q * s[1] + j * d[1]]
    np.testing.assert_array_equal(cols, ref)
    y = rng.standard_normal(cols.shape)
    back = F.fold(gg.tensor(y), (6, 5), k, d, p, s).numpy()
    assert np.isclose((cols * y).sum(), (x * back).sum(), rtol=1e-12)
    assert gg.debug.gradcheck(lambda t: (F.unfold(t, k, d, p, s) ** 2).sum(), [x])
    assert gg.debug.gradcheck(lambda t: (F.fold(t, (6, 5), k, d, p, s) ** 2).sum(), [y])


LRN = [(size, a, b, k) for size in (1, 2, 3, 4, 5, 7) for a, b, k in ((1e-4, 0.75, 1.0), (0.5, 0.5, 2.0),
                                                                     (1.0, 1.3, 0.5))]


@pytest.mark.parametrize("size,alpha,beta,k", LRN)
def test_local_response_norm_matches_torch(size, alpha, beta, k):
    rng = np.random.default_rng(size)
    for shape in [(2, 5, 4), (1, 3, 2, 3), (2, 6, 2, 2, 3), (3, 1, 4)]:
        x = rng.standard_normal(shape)
        compare(F.local_response_norm, TF.local_response_norm, [x], (0,), dict(size=size, alpha=alpha, beta=beta, k=k))
        compare(nn.LocalResponseNorm(size, alpha, beta, k), torch.nn.LocalResponseNorm(size, alpha, beta, k), [x],
                (0,))
    assert compare(F.local_response_norm, TF.local_response_norm, [rng.standard_normal((2, 3))], (0,),
                   dict(size=size)) is not None
    assert repr(nn.LocalResponseNorm(size, alpha, beta, k)) == repr(torch.nn.LocalResponseNorm(size, alpha, beta, k))


def test_local_response_norm_matches_numpy_and_finite_differences():
    x = np.random.default_rng(13).standard_normal((2, 6, 3))
    size, alpha, beta, k = 3, 0.2, 0.75, 1.5
    sq = np.pad(x * x, ((0, 0), (size // 2, (size - 1) // 2), (0, 0)))
    window = sum(sq[:, s:s + 6] for s in range(size))
    np.testing.assert_allclose(F.local_response_norm(gg.tensor(x), size, alpha, beta, k).numpy(),
                               x / (k + alpha / size * window) ** beta, rtol=1e-12)
    assert gg.debug.gradcheck(lambda t: (F.local_response_norm(t, size, alpha, beta, k) ** 2).sum(), [x])


@pytest.mark.parametrize("channels", [1, 2, 5, 8])
@pytest.mark.parametrize("size", [1, 2, 3, 4, 7])
def test_cross_map_lrn2d_matches_torch_and_numpy(channels, size):
    x = np.random.default_rng(channels * 10 + size).standard_normal((2, channels, 3, 2))
    ours = nn.CrossMapLRN2d(size, alpha=0.5, beta=0.75, k=2)
    theirs = torch.nn.CrossMapLRN2d(size, alpha=0.5, beta=0.75, k=2)
    assert repr(ours) == repr(theirs)
    got = ours(gg.tensor(x)).numpy()
    np.testing.assert_allclose(got, theirs(torch.tensor(x)).numpy(), rtol=1e-12, atol=1e-14)
    # the legacy window: the first (size - 1) // 2 + 1 channels, then a running window that adds
    # channel c + pre_pad - 1 and drops c - pre_pad from c = pre_pad + 1 on (channel 0 is never dropped)
    pre = int((size - 1) / 2 + 1)
    ref = np.empty_like(x)
    for c in range(channels):
        members = set(range(min(pre, channels)))
        for cc in range(1, c + 1):
            if cc < channels - pre + 1:
                members.add(cc + pre - 1)
            if cc > pre:
                members.discard(cc - pre)
        sums = sum(x[:, j] ** 2 for j in members)
        ref[:, c] = x[:, c] * (2 + 0.5 / size * sums) ** -0.75
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    assert gg.debug.gradcheck(lambda t: nn.CrossMapLRN2d(size, alpha=0.5, beta=0.75, k=2)(t), [x])


def test_cross_map_lrn2d_refuses_other_ranks():
    with pytest.raises(gg.ShapeError, match="Expected input to be 4D, got 3D"):
        nn.CrossMapLRN2d(3)(gg.ones(2, 3, 4))
