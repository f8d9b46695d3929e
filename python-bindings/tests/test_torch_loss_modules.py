"""Every nn.*Loss module against PyTorch's: built with each legacy size_average/reduce combination
and each reduction (the modules that take them), the reduction it resolves to, its printed form
(PyTorch prints a loss as its name alone, or with its child modules) and its value and input
gradient on the same float64 data. Skipped when torch is not importable (CI never installs it;
tools/torch_differential.sh runs it)."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
from torch_compare import compare

torch = pytest.importorskip("torch")

_rng = np.random.default_rng(0)
N, C = 4, 5
X, Y, Z = (_rng.standard_normal((N, C)) for _ in range(3))
P, T01, POS = _rng.uniform(0.05, 0.95, (N, C)), _rng.uniform(0, 1, (N, C)), _rng.uniform(0.1, 2, (N, C))
LABELS = _rng.integers(0, C, N)
SIGN = np.where(_rng.standard_normal(N) > 0, 1.0, -1.0)
SIGNS = np.where(X > 0, 1.0, -1.0)
W = _rng.uniform(0.2, 2, C)
MULTI = -np.ones((N, C), dtype=np.int64)
MULTI[:, 0], MULTI[:, 1] = LABELS, (LABELS + 1) % C

# name -> (arrays, tensor constructor arguments)
CASES = {"L1Loss": ([X, Y], {}), "MSELoss": ([X, Y], {}), "CrossEntropyLoss": ([X, LABELS], dict(weight=W)),
         "NLLLoss": ([X, LABELS], dict(weight=W)), "BCELoss": ([P, T01], dict(weight=W)),
         "BCEWithLogitsLoss": ([X, T01], dict(weight=W, pos_weight=W)), "KLDivLoss": ([X, P], {}),
         "PoissonNLLLoss": ([X, POS], {}), "GaussianNLLLoss": ([X, Y, POS], {}),
         "HingeEmbeddingLoss": ([X, SIGNS], {}), "SmoothL1Loss": ([X, Y], {}), "HuberLoss": ([X, Y], {}),
         "SoftMarginLoss": ([X, SIGNS], {}), "MultiLabelSoftMarginLoss": ([X, (SIGNS > 0) * 1.0], dict(weight=W)),
         "CosineEmbeddingLoss": ([X, Y, SIGN], {}), "MarginRankingLoss": ([X[:, 0], Y[:, 0], SIGN], {}),
         "MultiMarginLoss": ([X, LABELS], dict(weight=W)), "TripletMarginLoss": ([X, Y, Z], {}),
         "MultiLabelMarginLoss": ([X, MULTI], {}), "TripletMarginWithDistanceLoss": ([X, Y, Z], {})}
NO_LEGACY = ("GaussianNLLLoss", "HuberLoss", "TripletMarginWithDistanceLoss")   # PyTorch's take reduction only
VARIANTS = [dict(), dict(size_average=False), dict(reduce=False), dict(size_average=True, reduce=True),
            dict(size_average=False, reduce=False), dict(reduction="sum"), dict(reduction="none")]


PAIRS = [(name, v) for name in CASES for v in VARIANTS
         if name not in NO_LEGACY or not ("size_average" in v or "reduce" in v)]


@pytest.mark.filterwarnings("ignore:size_average and reduce args")
@pytest.mark.parametrize("name,variant", PAIRS, ids=[f"{n}-{v}" for n, v in PAIRS])
def test_loss_module_matches_torchs(name, variant):
    arrays, tensors = CASES[name]
    theirs = getattr(torch.nn, name)(**variant, **{k: torch.tensor(v) for k, v in tensors.items()})
    ours = getattr(nn, name)(**variant, **{k: gg.tensor(v) for k, v in tensors.items()})
    assert ours.reduction == theirs.reduction
    assert repr(ours) == repr(theirs)
    compare(ours, theirs, arrays, (0,))


def _warned(build):
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        build()
    return [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
def test_legacy_arguments_warn_as_torchs(variant):
    # PyTorch's deprecation warning for size_average/reduce, word for word (none for reduction=),
    # from the modules and from the functions (course scripts call F.binary_cross_entropy(...,
    # size_average=False)).
    assert _warned(lambda: nn.MSELoss(**variant)) == _warned(lambda: torch.nn.MSELoss(**variant))
    p, t = P[:2], T01[:2]
    assert _warned(lambda: nn.functional.binary_cross_entropy(gg.tensor(p), gg.tensor(t), **variant)) == \
        _warned(lambda: torch.nn.functional.binary_cross_entropy(torch.tensor(p), torch.tensor(t), **variant))


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
@pytest.mark.parametrize("shapes", [((3, 1), (3,)), ((3,), (3,)), ((2, 3), (3,))])
def test_a_broadcast_target_warns_as_torchs(name, shapes):
    # F.mse_loss(out [N, 1], y [N]) computes an [N, N] loss: PyTorch warns, and so does glassgrad.
    a, b = _rng.standard_normal(shapes[0]), _rng.standard_normal(shapes[1])
    ours, our_warned = _value_and_warnings(lambda: getattr(nn.functional, name)(gg.tensor(a), gg.tensor(b)))
    theirs, their_warned = _value_and_warnings(lambda: getattr(torch.nn.functional, name)(torch.tensor(a),
                                                                                          torch.tensor(b)))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    assert [c for c, _ in our_warned] == [c for c, _ in their_warned]
    assert all("target size" in text and "broadcasting" in text for _, text in our_warned)


def _value_and_warnings(fn):
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = fn()
    return value, [(w.category, str(w.message)) for w in caught]
