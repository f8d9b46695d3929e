"""Layer and function arguments PyTorch declares `float`: its argument parser converts a bool and
takes inf and nan as values, so scripts pad attention masks with float('-inf') and leave bounds
open with inf (glassgrad._args.real(..., as_float=True)). Expected values by the documented
formulas (checked against PyTorch 2.14)."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F

INF = float("inf")
X = np.array([0.5, -1.25, 2.0, 0.75, -0.5, 1.5], dtype=np.float32)


def test_constant_padding_layers_take_minus_inf_and_bools():
    out = nn.ConstantPad1d(1, -INF)(gg.tensor(X).view(1, 2, 3))
    np.testing.assert_array_equal(out.numpy()[0, 0], [-INF, 0.5, -1.25, 2.0, -INF])
    mask = nn.ConstantPad2d(1, True)(gg.tensor(X).view(1, 2, 3) > 0)
    assert mask.dtype == gg.bool and mask.numpy()[0].tolist()[0] == [True] * 5


def test_threshold_and_hardtanh_with_infinite_bounds():
    np.testing.assert_array_equal(F.threshold(gg.tensor(X), 0.0, -INF).numpy(), np.where(X > 0, X, -INF))
    np.testing.assert_array_equal(nn.Threshold(0.0, -INF)(gg.tensor(X)).numpy(), np.where(X > 0, X, -INF))
    np.testing.assert_array_equal(F.hardtanh(gg.tensor(X), -INF, 1.0).numpy(), np.minimum(X, 1.0))
    np.testing.assert_array_equal(nn.Hardtanh(-1.0, INF)(gg.tensor(X)).numpy(), np.maximum(X, -1.0))


def test_bool_and_infinite_scalars_of_activations():
    # elu(alpha=True) is alpha 1; leaky_relu(x, True) a slope of 1 (the identity)
    np.testing.assert_allclose(F.elu(gg.tensor(X), alpha=True).numpy(), np.where(X > 0, X, np.expm1(X)), rtol=1e-6)
    np.testing.assert_array_equal(F.leaky_relu(gg.tensor(X), True).numpy(), X)
    # softplus never switches to the identity with threshold=inf
    np.testing.assert_allclose(F.softplus(gg.tensor(X), threshold=INF).numpy(), np.log1p(np.exp(X)), rtol=1e-6)


def test_infinity_norms_of_embedding_max_norm_and_triplet_margin_loss():
    emb = nn.Embedding(3, 2, max_norm=1.0, norm_type=INF)
    with gg.no_grad():
        emb.weight.copy_(gg.tensor([[3.0, -4.0], [0.5, 0.25], [2.0, 1.0]]))
    out = emb(gg.tensor([0, 1])).detach().numpy()
    # rows whose largest |value| exceeds 1 are scaled to it (PyTorch's renorm adds 1e-7 to the norm)
    np.testing.assert_allclose(out, [[0.75, -1.0], [0.5, 0.25]], rtol=1e-5)
    a = gg.tensor(X).view(3, 2)
    loss = nn.TripletMarginLoss(p=INF, margin=1.0)(a, a + 1, a - 2)
    # d(a, a+1) and d(a, a-2) in the infinity norm (PyTorch's pairwise_distance adds eps=1e-6)
    assert loss.item() == pytest.approx(max(0.0, (1 - 1e-6) - (2 + 1e-6) + 1.0), abs=1e-5)


def test_strings_are_still_refused():
    with pytest.raises(TypeError, match="pad: value must be a number"):
        F.pad(gg.zeros(2), (1, 0), value="a")
    with pytest.raises(TypeError, match="threshold: value must be a number"):
        F.threshold(gg.tensor(X), 0.0, "x")


def test_layers_given_a_bool_where_they_take_a_float():
    # nn.LeakyReLU(True), written for inplace=True as nn.ReLU(True) takes it, is a slope of 1 in
    # PyTorch (the identity), and prints the argument as given; nn.ELU(True) is alpha 1
    layer = nn.LeakyReLU(True)
    assert repr(layer) == "LeakyReLU(negative_slope=True)" and not layer.inplace
    np.testing.assert_array_equal(layer(gg.tensor(X)).numpy(), X)
    assert repr(nn.ELU(True)) == "ELU(alpha=True)"
    np.testing.assert_allclose(nn.ELU(True)(gg.tensor(X)).numpy(), np.where(X > 0, X, np.expm1(X)), rtol=1e-6)
    drop = nn.Dropout(False)
    assert repr(drop) == "Dropout(p=False, inplace=False)"
    np.testing.assert_array_equal(drop.train()(gg.tensor(X)).numpy(), X)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got nan"):
        F.dropout(gg.tensor(X), p=float("nan"))


def test_infinite_shrink_and_margin():
    np.testing.assert_array_equal(nn.Hardshrink(INF)(gg.tensor(X)).numpy(), np.zeros(6))
    loss = nn.MarginRankingLoss(margin=-INF)(gg.tensor(X), gg.zeros(6), gg.tensor(np.sign(X)))
    assert loss.item() == 0.0


def test_huber_loss_with_infinite_delta_is_the_halved_squared_error_and_its_gradient():
    # PyTorch 2.14: huber_loss([0.5, -3], 0, delta=inf) = 2.3125, gradient [0.25, -1.5]
    for loss_of in (lambda x: F.huber_loss(x, gg.zeros(2), delta=INF), lambda x: nn.HuberLoss(delta=INF)(x, gg.zeros(2))):
        x = gg.tensor([0.5, -3.0], requires_grad=True)
        loss = loss_of(x)
        loss.backward()
        assert loss.item() == pytest.approx(2.3125)
        np.testing.assert_allclose(x.grad.numpy(), [0.25, -1.5])
