"""The losses and distances composed in glassgrad/_regression_losses.py, _margin_losses.py and
_distances.py against PyTorch's CPU functions and modules: values and input gradients for every
reduction (float64, the same data), the arguments' variants, and the errors PyTorch raises.
Skipped when torch is not importable (CI never installs it; tools/torch_differential.sh runs it)."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

REDUCTIONS = ("mean", "sum", "none")
_rng = np.random.default_rng(7)
X = _rng.standard_normal((4, 5))
Y = _rng.standard_normal((4, 5))
Z = _rng.standard_normal((4, 5))
SIGNS = np.where(_rng.standard_normal((4, 5)) > 0, 1.0, -1.0)
POS = _rng.uniform(0.1, 2.0, (4, 5))
PROBS = _rng.dirichlet(np.ones(5), 4)
LABELS = np.array([1, 0, 4, 2])

# name -> (glassgrad fn, torch fn, arrays, index of the arrays that get gradients, kwargs)
CASES = {
    "smooth_l1_loss": (F.smooth_l1_loss, TF.smooth_l1_loss, (X, Y), (0, 1), {}),
    "smooth_l1_loss-beta0": (F.smooth_l1_loss, TF.smooth_l1_loss, (X, Y), (0, 1), {"beta": 0.0}),
    "smooth_l1_loss-beta": (F.smooth_l1_loss, TF.smooth_l1_loss, (X, Y), (0, 1), {"beta": 0.4}),
    "huber_loss": (F.huber_loss, TF.huber_loss, (X, Y), (0, 1), {"delta": 0.6}),
    "huber_loss-weight": (F.huber_loss, TF.huber_loss, (X, Y), (0, 1), {"weight": POS}),
    "kl_div": (F.kl_div, TF.kl_div, (X, PROBS), (0, 1), {}),
    "kl_div-log_target": (F.kl_div, TF.kl_div, (X, Y), (0, 1), {"log_target": True}),
    "poisson_nll_loss": (F.poisson_nll_loss, TF.poisson_nll_loss, (X, POS * 2), (0,), {}),
    "poisson_nll_loss-full-rate": (F.poisson_nll_loss, TF.poisson_nll_loss, (POS, POS * 2), (0,),
                                   {"log_input": False, "full": True}),
    "gaussian_nll_loss": (F.gaussian_nll_loss, TF.gaussian_nll_loss, (X, Y, POS), (0, 1, 2), {"full": True}),
    "gaussian_nll_loss-last-dim-left-out": (F.gaussian_nll_loss, TF.gaussian_nll_loss, (X, Y, POS[:, 0]), (0, 1, 2),
                                            {}),
    "gaussian_nll_loss-one-dim-1": (F.gaussian_nll_loss, TF.gaussian_nll_loss, (X, Y, POS[:1]), (0, 2),
                                    {"eps": 0.5}),
    "soft_margin_loss": (F.soft_margin_loss, TF.soft_margin_loss, (X * 10, SIGNS), (0,), {}),
    "margin_ranking_loss": (F.margin_ranking_loss, TF.margin_ranking_loss, (X[0], Y[0], SIGNS[0]), (0, 1),
                            {"margin": 0.2}),
    "hinge_embedding_loss": (F.hinge_embedding_loss, TF.hinge_embedding_loss, (X, SIGNS), (0,), {"margin": 0.5}),
    "cosine_embedding_loss": (F.cosine_embedding_loss, TF.cosine_embedding_loss, (X, Y, SIGNS[:, 0]), (0, 1),
                              {"margin": -0.2}),
    "cosine_embedding_loss-1d": (F.cosine_embedding_loss, TF.cosine_embedding_loss, (X[0], Y[0], SIGNS[0, 0]),
                                 (0, 1), {}),
    "triplet_margin_loss": (F.triplet_margin_loss, TF.triplet_margin_loss, (X, Y, Z), (0, 1, 2), {"margin": 2.0}),
    "triplet_margin_loss-p1-swap": (F.triplet_margin_loss, TF.triplet_margin_loss, (X, Y, Z), (0, 1, 2),
                                    {"p": 1, "swap": True}),
    "multilabel_soft_margin_loss": (F.multilabel_soft_margin_loss, TF.multilabel_soft_margin_loss,
                                    (X * 5, SIGNS > 0), (0,), {}),
    "multilabel_soft_margin_loss-weight": (F.multilabel_soft_margin_loss, TF.multilabel_soft_margin_loss,
                                           (X, SIGNS > 0), (0,), {"weight": POS[0]}),
    "multi_margin_loss": (F.multi_margin_loss, TF.multi_margin_loss, (X, LABELS), (0,), {}),
    "multi_margin_loss-p2-weight": (F.multi_margin_loss, TF.multi_margin_loss, (X, LABELS), (0,),
                                    {"p": 2, "margin": 0.7, "weight": POS[0]}),
}
NO_REDUCTION = {"gaussian_nll_loss-one-dim-1"}


def _as_gg(a, grad):
    if isinstance(a, np.ndarray) and a.dtype == bool:
        return gg.tensor(a.astype(np.float64))
    if isinstance(a, np.ndarray) and a.dtype.kind == "i":
        return gg.tensor(a)
    return gg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def _as_torch(a, grad):
    if isinstance(a, np.ndarray) and a.dtype == bool:
        return torch.tensor(a.astype(np.float64))
    if isinstance(a, np.ndarray) and a.dtype.kind == "i":
        return torch.tensor(a)
    return torch.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def _kw(kwargs, make):
    return {k: make(v, False) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}


def _compare(ours, theirs, arrays, grads, kwargs):
    a = [_as_gg(x, i in grads) for i, x in enumerate(arrays)]
    b = [_as_torch(x, i in grads) for i, x in enumerate(arrays)]
    got, want = ours(*a, **_kw(kwargs, _as_gg)), theirs(*b, **_kw(kwargs, _as_torch))
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
    seed = np.random.default_rng(3).standard_normal(tuple(want.shape))
    (got * gg.tensor(seed)).sum().backward()
    (want * torch.tensor(seed)).sum().backward()
    for i in grads:
        np.testing.assert_allclose(a[i].grad.numpy(), b[i].grad.numpy(), rtol=1e-9, atol=1e-12,
                                   err_msg=f"gradient of argument {i}")


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", list(CASES))
def test_loss_and_its_gradients_match_torch(name, reduction):
    ours, theirs, arrays, grads, kwargs = CASES[name]
    if name in NO_REDUCTION and reduction != "none":
        pytest.skip("one reduction is enough for this shape case")
    _compare(ours, theirs, arrays, grads, dict(kwargs, reduction=reduction))


def test_kl_div_batchmean_and_its_mean_warning_match_torch():
    _compare(F.kl_div, TF.kl_div, (X, PROBS), (0, 1), {"reduction": "batchmean"})
    with pytest.warns(UserWarning, match="batchmean"):
        F.kl_div(gg.tensor(X), gg.tensor(PROBS))
    ours = nn.KLDivLoss(reduction="batchmean")(gg.tensor(X), gg.tensor(PROBS))
    theirs = TF.kl_div(torch.tensor(X), torch.tensor(PROBS), reduction="batchmean")
    assert ours.dtype == gg.float64 and theirs.dtype == torch.float64
    assert gg.isclose(ours, gg.tensor(theirs.item(), dtype=gg.float64)).item()  # isclose wants one dtype, as torch's


def test_gaussian_nll_loss_takes_a_float_variance():
    _compare(F.gaussian_nll_loss, TF.gaussian_nll_loss, (X, Y), (0, 1), {"var": 0.3})


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_distances_match_torch(dim):
    _compare(lambda a, b: F.cosine_similarity(a, b, dim), lambda a, b: TF.cosine_similarity(a, b, dim), (X, Y), (0, 1),
             {})
    _compare(lambda a: F.normalize(a, dim=dim), lambda a: TF.normalize(a, dim=dim), (X,), (0,), {})
    _compare(lambda a: F.normalize(a, 3.0, dim), lambda a: TF.normalize(a, 3.0, dim), (X,), (0,), {})
    _compare(F.pairwise_distance, TF.pairwise_distance, (X, Y), (0, 1), {"p": 1.5, "keepdim": dim == 0})
    _compare(lambda a, b: F.cosine_similarity(a, b), lambda a, b: TF.cosine_similarity(a, b), (X, Y[:1]), (0, 1), {})


def test_modules_have_torchs_defaults_and_give_its_values():
    pairs = [(nn.SmoothL1Loss(beta=0.3), torch.nn.SmoothL1Loss(beta=0.3), (X, Y)),
             (nn.HuberLoss(delta=0.5), torch.nn.HuberLoss(delta=0.5), (X, Y)),
             (nn.KLDivLoss(reduction="sum", log_target=True), torch.nn.KLDivLoss(reduction="sum", log_target=True),
              (X, Y)),
             (nn.PoissonNLLLoss(), torch.nn.PoissonNLLLoss(), (X, POS)),
             (nn.SoftMarginLoss(), torch.nn.SoftMarginLoss(), (X, SIGNS)),
             (nn.MarginRankingLoss(0.1), torch.nn.MarginRankingLoss(0.1), (X[0], Y[0], SIGNS[0])),
             (nn.HingeEmbeddingLoss(), torch.nn.HingeEmbeddingLoss(), (X, SIGNS)),
             (nn.CosineEmbeddingLoss(), torch.nn.CosineEmbeddingLoss(), (X, Y, SIGNS[:, 0])),
             (nn.TripletMarginLoss(margin=0.5, p=1.0), torch.nn.TripletMarginLoss(margin=0.5, p=1.0), (X, Y, Z)),
             (nn.MultiLabelSoftMarginLoss(), torch.nn.MultiLabelSoftMarginLoss(), (X, SIGNS > 0)),
             (nn.MultiMarginLoss(), torch.nn.MultiMarginLoss(), (X, LABELS)),
             (nn.CosineSimilarity(dim=0), torch.nn.CosineSimilarity(dim=0), (X, Y)),
             (nn.PairwiseDistance(), torch.nn.PairwiseDistance(), (X, Y))]
    for ours, theirs, arrays in pairs:
        got = ours(*[_as_gg(a, False) for a in arrays]).numpy()
        want = theirs(*[_as_torch(a, False) for a in arrays]).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12, err_msg=type(ours).__name__)
    g = nn.GaussianNLLLoss()
    assert (g.full, g.eps, g.reduction) == (False, 1e-6, "mean")


def test_invalid_arguments_raise_as_torchs_do():
    x, y = gg.tensor(X), gg.tensor(Y)
    cases = [(lambda: F.smooth_l1_loss(x, y, beta=-1.0), lambda: TF.smooth_l1_loss(torch.tensor(X), torch.tensor(Y),
                                                                                 beta=-1.0)),
             (lambda: F.huber_loss(x, y, delta=0.0), lambda: TF.huber_loss(torch.tensor(X), torch.tensor(Y), delta=0.0)),
             (lambda: F.gaussian_nll_loss(x, y, gg.tensor(-POS)),
              lambda: TF.gaussian_nll_loss(torch.tensor(X), torch.tensor(Y), torch.tensor(-POS))),
             (lambda: F.gaussian_nll_loss(x, y, gg.tensor(POS[:2, :2])),
              lambda: TF.gaussian_nll_loss(torch.tensor(X), torch.tensor(Y), torch.tensor(POS[:2, :2]))),
             (lambda: F.multi_margin_loss(x, gg.tensor(LABELS), p=3),
              lambda: TF.multi_margin_loss(torch.tensor(X), torch.tensor(LABELS), p=3)),
             (lambda: F.triplet_margin_loss(x, y, y, margin=0.0),
              lambda: TF.triplet_margin_loss(torch.tensor(X), torch.tensor(Y), torch.tensor(Y), margin=0.0))]
    for ours, theirs in cases:
        with pytest.raises((ValueError, RuntimeError)):
            theirs()
        with pytest.raises(ValueError):
            ours()
