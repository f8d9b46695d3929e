"""torch.<loss>, torch.embedding, torch.instance_norm, torch.constant_pad_nd and the dropout
variants in ATen's signatures (int reduction 0/1/2, the weight first in torch.embedding, train
required), each called as a ported script calls them and compared with PyTorch's values and
gradients (float64, odd sizes, random data)."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.torch as gtorch
from torch_compare import compare

torch = pytest.importorskip("torch")
rng = np.random.default_rng(11)


@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_pair_losses_match_torch(reduction):
    x, y = rng.standard_normal((5, 3)), rng.standard_normal((5, 3))
    t = rng.uniform(0.1, 0.9, (5, 3))
    w, pw = rng.uniform(0.5, 2, (3,)), rng.uniform(0.5, 2, (3,))
    compare(lambda a, b, c, d: gtorch.binary_cross_entropy_with_logits(a, b, c, d, reduction),
            lambda a, b, c, d: torch.binary_cross_entropy_with_logits(a, b, c, d, reduction), [x, t, w, pw], (0,))
    logp = np.log(rng.dirichlet(np.ones(3), 5))
    compare(lambda a, b: gtorch.kl_div(a, b, reduction), lambda a, b: torch.kl_div(a, b, reduction), [logp, t], (0,))
    compare(lambda a, b: gtorch.kl_div(a, b, reduction, log_target=True),
            lambda a, b: torch.kl_div(a, b, reduction, log_target=True), [logp, np.log(t)], (0, 1))
    sign = np.where(rng.random(5) > 0.5, 1.0, -1.0)
    compare(lambda a, b, c: gtorch.cosine_embedding_loss(a, b, c, 0.1, reduction),
            lambda a, b, c: torch.cosine_embedding_loss(a, b, c, 0.1, reduction), [x, y, sign], (0, 1))
    compare(lambda a, b: gtorch.hinge_embedding_loss(a, b, 0.7, reduction),
            lambda a, b: torch.hinge_embedding_loss(a, b, 0.7, reduction), [x[:, 0], sign], (0,))
    compare(lambda a, b, c: gtorch.margin_ranking_loss(a, b, c, 0.2, reduction),
            lambda a, b, c: torch.margin_ranking_loss(a, b, c, 0.2, reduction), [x[:, 0], y[:, 0], sign], (0, 1))
    z = rng.standard_normal((5, 3))
    compare(lambda a, b, c: gtorch.triplet_margin_loss(a, b, c, 0.5, 2.0, 1e-6, True, reduction),
            lambda a, b, c: torch.triplet_margin_loss(a, b, c, 0.5, 2.0, 1e-6, True, reduction), [x, y, z], (0, 1, 2))
    counts = rng.poisson(2.0, (5, 3)).astype(np.float64)
    for log_input, full in ((True, False), (False, True)):
        inp = x if log_input else np.abs(x) + 0.1
        compare(lambda a, b: gtorch.poisson_nll_loss(a, b, log_input, full, 1e-8, reduction),
                lambda a, b: torch.poisson_nll_loss(a, b, log_input, full, 1e-8, reduction), [inp, counts], (0,))


@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_ctc_loss_matches_torch(reduction):
    log_probs = np.log(rng.dirichlet(np.ones(5), (7, 2)))  # (T, N, C)
    targets = rng.integers(1, 5, (2, 3))
    compare(lambda a, b: gtorch.ctc_loss(a, b, [7, 6], [3, 2], 0, reduction, False),
            lambda a, b: torch.ctc_loss(a, b, [7, 6], [3, 2], 0, reduction, False), [log_probs, targets], (0,),
            rtol=1e-8)


def test_reduction_must_be_aten_int():
    x = gg.randn(3)
    with pytest.raises(TypeError, match="reduction.*0 for 'none'"):
        gtorch.hinge_embedding_loss(x, x.sign(), 1.0, 3)
    assert gtorch.hinge_embedding_loss(x, x.sign(), 1.0, "sum").shape == ()  # F's spelling kept


def test_embedding_takes_the_weight_first():
    w = rng.standard_normal((6, 3))
    idx = np.array([[1, 4, 0], [5, 1, 1]])
    compare(lambda a, b: gtorch.embedding(a, b), lambda a, b: torch.embedding(a, b), [w, idx], (0,))
    compare(lambda a, b: gtorch.embedding(a, b, 1), lambda a, b: torch.embedding(a, b, 1), [w, idx], (0,))
    compare(lambda a, b: gtorch.embedding(a, b, -1, True), lambda a, b: torch.embedding(a, b, -1, True), [w, idx], (0,))


def test_instance_norm_in_aten_order():
    x, w, b = rng.standard_normal((2, 3, 5)), rng.uniform(0.5, 2, 3), rng.standard_normal(3)
    compare(lambda a, c, d: gtorch.instance_norm(a, c, d, None, None, True, 0.1, 1e-5, False),
            lambda a, c, d: torch.instance_norm(a, c, d, None, None, True, 0.1, 1e-5, False), [x, w, b], (0, 1, 2),
            rtol=1e-8)
    rm, rv = rng.standard_normal(3), rng.uniform(0.5, 2, 3)
    compare(lambda a, c, d, e, f: gtorch.instance_norm(a, c, d, e, f, False, 0.1, 1e-5, False),
            lambda a, c, d, e, f: torch.instance_norm(a, c, d, e, f, False, 0.1, 1e-5, False), [x, w, b, rm, rv],
            (0, 1, 2), rtol=1e-8)


def test_constant_pad_nd_matches_torch():
    x = rng.standard_normal((2, 3, 5))
    for pad in ([1, 2], [0, 1, 2, 0], [-1, 2, 1, 1, 0, 1]):
        compare(lambda a: gtorch.constant_pad_nd(a, pad, 0.5), lambda a: torch.constant_pad_nd(a, pad, 0.5), [x], (0,))


@pytest.mark.parametrize("name", ["alpha_dropout", "feature_alpha_dropout", "feature_dropout"])
def test_dropout_variants_are_the_identity_when_not_training(name):
    x = gg.randn(2, 3, 4)
    assert getattr(gtorch, name)(x, 0.5, False) is x
    assert getattr(torch, name)(torch.randn(2, 3, 4), 0.5, False).shape == (2, 3, 4)
    with pytest.raises(TypeError):
        getattr(gtorch, name)(x, 0.5)  # train is required, as in PyTorch


@pytest.mark.parametrize("lib", [gtorch, torch], ids=["glassgrad", "torch"])
def test_feature_dropout_drops_whole_channels(lib):
    lib.manual_seed(0)
    x = lib.rand(6, 5, 3, 2, dtype=lib.float64) + 1
    y = lib.feature_dropout(x, 0.5, True)
    ratio = (y / x).detach().numpy().reshape(6, 5, -1)
    assert np.all((ratio == 0) | np.isclose(ratio, 2.0))
    assert np.all(ratio.min(-1) == ratio.max(-1))  # one decision per (sample, channel)
    assert 0 < (ratio[..., 0] == 0).sum() < 30
    z = x.clone()
    assert lib.feature_dropout_(z, 0.5, True) is z
    with pytest.raises(RuntimeError):
        lib.feature_dropout(lib.rand(4), 0.5, True)


def test_dropout_in_place_and_rrelu():
    x = gg.randn(4, 5)
    assert gtorch.dropout_(x, 0.3, True) is x
    a = rng.standard_normal((4, 5))
    compare(lambda t: gtorch.rrelu(t), lambda t: torch.rrelu(t), [a], (0,))
    compare(lambda t: gtorch.rrelu(t, 0.1, 0.3, False), lambda t: torch.rrelu(t, 0.1, 0.3, False), [a], (0,))
    gg.manual_seed(1)
    y = gtorch.rrelu(gg.tensor(-np.abs(a) - 0.1), 0.1, 0.3, True)
    slopes = y.numpy() / (-np.abs(a) - 0.1)
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0
    z = gg.tensor(a)
    assert gtorch.rrelu_(z) is z
    with pytest.raises(gg.UnsupportedError, match="generator"):
        gtorch.rrelu(z, generator=gg.Generator())


def test_pooling_with_indices_in_aten_signatures():
    a = rng.standard_normal((2, 3, 11))
    for args in ((3,), (3, 2), (3, 2, 1), (2, (), 0, 2, True)):
        ours, theirs = gtorch.max_pool1d_with_indices(gg.tensor(a), *args), torch.max_pool1d_with_indices(
            torch.tensor(a), *args)
        np.testing.assert_array_equal(ours[0].numpy(), theirs[0].numpy())
        np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())
    for size in (1, 4, 7):
        ours, theirs = gtorch.adaptive_max_pool1d(gg.tensor(a), size), torch.adaptive_max_pool1d(torch.tensor(a), size)
        np.testing.assert_array_equal(ours[0].numpy(), theirs[0].numpy())
        np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())
    compare(lambda x: gtorch.adaptive_max_pool1d(x, 4)[0], lambda x: torch.adaptive_max_pool1d(x, 4)[0], [a], (0,))
