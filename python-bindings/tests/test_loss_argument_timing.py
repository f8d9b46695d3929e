"""A loss module keeps reduction and label_smoothing as given and its forward refuses a bad one, as
PyTorch's does ('bad is not a valid value for reduction', a ValueError at the call, not at
construction), so `loss_fn = nn.MSELoss(reduction='bad')` builds and `loss_fn(x, y)` raises
(docs/porting.md, "What maps to what")."""
import warnings

import pytest

import glassgrad as gg
from glassgrad import nn
import glassgrad.nn.functional as F

X = gg.ones(2, 3) * 0.5
Y = gg.tensor([0, 1])
S = gg.tensor([1.0, -1.0])
CALLS = {
    "L1Loss": lambda m: m(X, X), "MSELoss": lambda m: m(X, X), "CrossEntropyLoss": lambda m: m(X, Y),
    "NLLLoss": lambda m: m(X, Y), "BCELoss": lambda m: m(X, X), "BCEWithLogitsLoss": lambda m: m(X, X),
    "KLDivLoss": lambda m: m(X, X), "SmoothL1Loss": lambda m: m(X, X), "HuberLoss": lambda m: m(X, X),
    "SoftMarginLoss": lambda m: m(X, X), "MultiMarginLoss": lambda m: m(X, Y),
    "MultiLabelMarginLoss": lambda m: m(X, gg.tensor([[0, -1, 1], [1, -1, 0]])),
    "HingeEmbeddingLoss": lambda m: m(X, gg.ones(2, 3)), "CosineEmbeddingLoss": lambda m: m(X, X, S),
    "MarginRankingLoss": lambda m: m(X[0], X[1], gg.ones(3)), "TripletMarginLoss": lambda m: m(X, X, X),
    "TripletMarginWithDistanceLoss": lambda m: m(X, X, X), "PoissonNLLLoss": lambda m: m(X, X),
    "CTCLoss": lambda m: m(gg.zeros(5, 1, 4).log_softmax(2), gg.ones(1, 2, dtype=gg.long), gg.tensor([5]),
                           gg.tensor([2])),
}
NOT_VALID = {"MultiLabelSoftMarginLoss": lambda m: m(X, X), "GaussianNLLLoss": lambda m: m(X, X, gg.ones(2, 3))}


@pytest.mark.parametrize("name", list(CALLS))
def test_a_bad_reduction_is_refused_by_the_forward(name):
    loss_fn = getattr(nn, name)(reduction="bad")
    assert loss_fn.reduction == "bad"
    with pytest.raises(ValueError, match="bad is not a valid value for reduction"):
        CALLS[name](loss_fn)


@pytest.mark.parametrize("name", list(NOT_VALID))
def test_the_losses_pytorch_words_otherwise(name):
    loss_fn = getattr(nn, name)(reduction="bad")
    with pytest.raises(ValueError, match="bad is not valid"):
        NOT_VALID[name](loss_fn)


def test_the_functions_say_pytorch_s_sentence():
    with pytest.raises(ValueError, match=r"^mse_loss: bad is not a valid value for reduction"):
        F.mse_loss(X, X, reduction="bad")
    with pytest.raises(ValueError, match="None is not a valid value for reduction"):
        F.cross_entropy(X, Y, reduction=None)


def test_a_good_reduction_and_the_deprecated_one_still_work():
    assert nn.MSELoss(reduction="sum")(X, gg.zeros(2, 3)).item() == pytest.approx(1.5)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert nn.L1Loss(reduction="elementwise_mean")(X, gg.zeros(2, 3)).item() == pytest.approx(0.5)
    assert any("elementwise_mean" in str(x.message) for x in w)


def test_label_smoothing_is_refused_by_the_forward():
    loss_fn = nn.CrossEntropyLoss(label_smoothing=1.5)
    assert loss_fn.label_smoothing == 1.5
    with pytest.raises(RuntimeError, match="label_smoothing must be between 0.0 and 1.0. Got: 1.5"):
        loss_fn(X, Y)
    with pytest.raises(TypeError):
        nn.CrossEntropyLoss(label_smoothing="x")(X, Y)
    assert nn.CrossEntropyLoss(label_smoothing=0.1)(X, Y).item() == pytest.approx(1.0986, abs=1e-4)


def test_torch_agrees():
    torch = pytest.importorskip("torch")
    loss_fn = torch.nn.MSELoss(reduction="bad")
    with pytest.raises(ValueError, match="bad is not a valid value for reduction"):
        loss_fn(torch.ones(2), torch.ones(2))
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=1.5)
    with pytest.raises(RuntimeError, match="label_smoothing must be between 0.0 and 1.0. Got: 1.5"):
        loss_fn(torch.ones(2, 3), torch.tensor([0, 1]))
