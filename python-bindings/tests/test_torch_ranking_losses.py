"""F.multilabel_margin_loss (nn.MultiLabelMarginLoss) and F.triplet_margin_with_distance_loss
(nn.TripletMarginWithDistanceLoss) against PyTorch on random shapes, targets and options (values,
input gradients, every reduction, the legacy size_average/reduce, errors), a NumPy loop reference
and finite-difference gradients. Also two gradients fixed against torch: F.normalize's for p other
than 1, 2 and inf at zero elements and zero vectors, and nll_loss's when every target is ignored.
Skipped when torch is not importable (CI never installs it; tools/torch_differential.sh runs it)."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F
from torch_compare import compare

torch = pytest.importorskip("torch")
TF = torch.nn.functional
REDUCTIONS = ("mean", "sum", "none")


def _multilabel_targets(rng, n, c):
    """Rows of class indices, some repeated, each ended by -1 (then anything) or filling the row."""
    t = -np.ones((n, c), dtype=np.int64)
    for i in range(n):
        k = int(rng.integers(0, c + 1))
        t[i, :k] = rng.integers(0, c, k)
        if k + 1 < c:
            t[i, k + 1:] = rng.integers(-1, c, c - k - 1)
    return t


@pytest.mark.filterwarnings("ignore:size_average and reduce args")
@pytest.mark.parametrize("seed", range(30))
def test_multilabel_margin_loss_matches_torch(seed):
    rng = np.random.default_rng(seed)
    n, c = int(rng.integers(1, 5)), int(rng.integers(1, 7))
    x, t = rng.standard_normal((n, c)), _multilabel_targets(rng, n, c)
    for reduction in REDUCTIONS:
        compare(F.multilabel_margin_loss, TF.multilabel_margin_loss, [x, t], (0,), dict(reduction=reduction))
        compare(F.multilabel_margin_loss, TF.multilabel_margin_loss, [x[0], t[0]], (0,), dict(reduction=reduction))
        compare(nn.MultiLabelMarginLoss(reduction=reduction), torch.nn.MultiLabelMarginLoss(reduction=reduction),
                [x, t], (0,))
    for legacy in (dict(size_average=False), dict(reduce=False)):
        compare(nn.MultiLabelMarginLoss(**legacy), torch.nn.MultiLabelMarginLoss(**legacy), [x, t], (0,))
    bad = t.copy()
    bad[0, 0] = c
    assert compare(F.multilabel_margin_loss, TF.multilabel_margin_loss, [x, bad], (0,)) is not None
    assert compare(F.multilabel_margin_loss, TF.multilabel_margin_loss, [x, np.concatenate([t, t], 1)], (0,)) is not None


def test_multilabel_margin_loss_matches_a_numpy_loop_and_finite_differences():
    rng = np.random.default_rng(40)
    x, t = rng.standard_normal((4, 5)), _multilabel_targets(rng, 4, 5)
    ref = []
    for row, tr in zip(x, t):
        targets = list(tr[:list(tr).index(-1)] if -1 in tr else tr)
        ref.append(sum(max(0.0, 1 - (row[j] - row[i])) for j in targets for i in range(5) if i not in targets) / 5)
    got = F.multilabel_margin_loss(gg.tensor(x), gg.tensor(t), reduction="none").numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    assert gg.debug.gradcheck(lambda v: F.multilabel_margin_loss(v, gg.tensor(t)), [x])


DISTANCES = {"default": (None, None),
             "cosine": (lambda u, v: 1 - F.cosine_similarity(u, v), lambda u, v: 1 - TF.cosine_similarity(u, v)),
             "l1": (nn.PairwiseDistance(p=1), torch.nn.PairwiseDistance(p=1))}


@pytest.mark.parametrize("distance", list(DISTANCES))
@pytest.mark.parametrize("seed", range(8))
def test_triplet_margin_with_distance_loss_matches_torch(distance, seed):
    rng = np.random.default_rng(seed)
    shape = (int(rng.integers(1, 5)), int(rng.integers(1, 6)))
    a, p, n = (rng.standard_normal(shape) for _ in range(3))
    ours, theirs = DISTANCES[distance]
    margin = float(rng.uniform(0.1, 2.0))
    for reduction in REDUCTIONS:
        for swap in (False, True):
            kw = dict(distance_function=ours, margin=margin, swap=swap, reduction=reduction)
            tkw = dict(kw, distance_function=theirs)
            compare(lambda *v: F.triplet_margin_with_distance_loss(*v, **kw),
                    lambda *v: TF.triplet_margin_with_distance_loss(*v, **tkw), [a, p, n], (0, 1, 2))
            compare(nn.TripletMarginWithDistanceLoss(**kw), torch.nn.TripletMarginWithDistanceLoss(**tkw),
                    [a, p, n], (0, 1, 2))
            if distance != "cosine":
                compare(lambda *v: F.triplet_margin_with_distance_loss(*v, **kw),
                        lambda *v: TF.triplet_margin_with_distance_loss(*v, **tkw), [a[0], p[0], n[0]], (0, 1, 2))
    for bad in (dict(margin=0.0), dict(margin=-1.0)):
        assert compare(F.triplet_margin_with_distance_loss, TF.triplet_margin_with_distance_loss, [a, p, n], (),
                       bad) is not None
    assert compare(F.triplet_margin_with_distance_loss, TF.triplet_margin_with_distance_loss, [a, p, n[0]],
                   ()) is not None


def test_triplet_margin_with_distance_loss_matches_numpy_and_finite_differences():
    rng = np.random.default_rng(41)
    a, p, n = (rng.standard_normal((5, 3)) for _ in range(3))
    d = lambda u, v: np.sqrt(((u - v + 1e-6) ** 2).sum(-1))
    ref = np.maximum(d(a, p) - np.minimum(d(a, n), d(p, n)) + 0.7, 0).mean()
    got = F.triplet_margin_with_distance_loss(gg.tensor(a), gg.tensor(p), gg.tensor(n), margin=0.7, swap=True)
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-12)
    assert gg.debug.gradcheck(lambda *v: F.triplet_margin_with_distance_loss(*v, margin=0.7, swap=True), [a, p, n])


@pytest.mark.parametrize("p", [0.5, 1.0, 1.5, 2.0, 3.0, float("inf")])
def test_normalize_gradient_at_zero_elements_and_zero_vectors_matches_torch(p):
    x = np.array([[0.0, 1.0, -2.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.5]])
    for dim in (0, 1):
        compare(lambda t: F.normalize(t, p, dim, 1e-3), lambda t: TF.normalize(t, p, dim, 1e-3), [x], (0,))
    compare(lambda t: t.norm(p, 1), lambda t: t.norm(p, 1), [x], (0,))


@pytest.mark.parametrize("weight", [None, np.array([0.5, 2.0, 1.5])])
def test_nll_loss_with_every_target_ignored_is_nan_with_a_zero_gradient(weight):
    x = np.random.default_rng(42).standard_normal((4, 3))
    for target in (np.array([1, 1, 1, 1]), np.array([0, 1, 2, 1])):
        kw = dict(ignore_index=1) if weight is None else dict(ignore_index=1, weight=weight)
        compare(F.nll_loss, TF.nll_loss, [x, target], (0,), kw)
