"""Losses as PyTorch documents them (torch.nn.functional and torch.nn): cross_entropy's reduction,
ignore_index (default -100), label_smoothing, class weights, (N, C, d1, ...) inputs and
probability targets; nll_loss, mse_loss, l1_loss, binary_cross_entropy(_with_logits); the loss
modules. Checked against NumPy restatements of the documented formulas (always), float64 finite
differences, and torch.nn.functional (when PyTorch is installed)."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F
from glassgrad import nn

RNG = np.random.default_rng(0)
X = RNG.standard_normal((6, 5))
Y = RNG.integers(0, 5, 6)
Y_IGN = Y.copy()
Y_IGN[2] = -100
W = RNG.uniform(0.5, 2, 5)
X4 = RNG.standard_normal((2, 5, 3, 4))
Y4 = RNG.integers(0, 5, (2, 3, 4))
P = RNG.dirichlet(np.ones(5), 6)
T = RNG.standard_normal((6, 5))
TB = RNG.uniform(0, 1, (6, 5))
XB = RNG.standard_normal((6, 5)) * 30   # large logits: the stable form must not overflow


def _log_softmax(x, axis=1):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def ce_numpy(x, y, w=None, reduction="mean", ignore_index=-100, label_smoothing=0.0):
    """PyTorch's documented cross_entropy with class indices, for (N, C) scores."""
    lsm = _log_softmax(x)
    n, c = x.shape
    w = np.ones(c) if w is None else w
    keep = y != ignore_index
    safe = np.where(keep, y, 0)
    nll = -w[safe] * lsm[np.arange(n), safe]
    smooth = -(lsm * w).sum(1)
    loss = np.where(keep, (1 - label_smoothing) * nll + label_smoothing / c * smooth, 0.0)
    if reduction == "none":
        return loss
    return loss.sum() / (np.where(keep, w[safe], 0).sum() if reduction == "mean" else 1)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("opts", [{}, {"weight": W}, {"label_smoothing": 0.2}, {"weight": W, "label_smoothing": 0.1}],
                         ids=["plain", "weight", "smoothing", "weight-smoothing"])
def test_cross_entropy_follows_the_documented_formula(reduction, opts):
    kw = dict(opts)
    if "weight" in kw:
        kw["weight"] = gg.tensor(kw["weight"])
    got = F.cross_entropy(gg.tensor(X), gg.tensor(Y_IGN), reduction=reduction, **kw).numpy()
    want = ce_numpy(X, Y_IGN, opts.get("weight"), reduction, label_smoothing=opts.get("label_smoothing", 0.0))
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_cross_entropy_ignores_minus_100_by_default_and_any_ignore_index_given():
    loss = F.cross_entropy(gg.tensor(X), gg.tensor(Y_IGN))
    np.testing.assert_allclose(loss.numpy(), ce_numpy(X[Y_IGN >= 0], Y_IGN[Y_IGN >= 0]), rtol=1e-12)
    y = Y.copy()
    y[0] = 3
    loss = F.cross_entropy(gg.tensor(X), gg.tensor(y), ignore_index=3, reduction="sum")
    np.testing.assert_allclose(loss.numpy(), ce_numpy(X[y != 3], y[y != 3], reduction="sum"), rtol=1e-12)


def test_cross_entropy_on_n_c_h_w_scores_is_per_pixel():
    got = F.cross_entropy(gg.tensor(X4), gg.tensor(Y4), reduction="none").numpy()
    rows = X4.transpose(0, 2, 3, 1).reshape(-1, 5)
    assert got.shape == (2, 3, 4)
    np.testing.assert_allclose(got.reshape(-1), ce_numpy(rows, Y4.reshape(-1), reduction="none"), rtol=1e-12)
    mean = F.cross_entropy(gg.tensor(X4), gg.tensor(Y4)).numpy()
    np.testing.assert_allclose(mean, ce_numpy(rows, Y4.reshape(-1)), rtol=1e-12)


def test_cross_entropy_with_probability_targets():
    got = F.cross_entropy(gg.tensor(X), gg.tensor(P), label_smoothing=0.1).numpy()
    target = P * 0.9 + 0.1 / 5
    np.testing.assert_allclose(got, (-(target * _log_softmax(X)).sum(1)).mean(), rtol=1e-12)


def test_cross_entropy_unbatched_scores():
    got = F.cross_entropy(gg.tensor(X[0]), gg.tensor(np.array(3)), reduction="none")
    assert got.shape == ()
    np.testing.assert_allclose(got.numpy(), -_log_softmax(X[:1])[0, 3], rtol=1e-12)


def test_cross_entropy_gradients_match_finite_differences():
    w = gg.tensor(W)
    gg.debug.gradcheck(lambda x: F.cross_entropy(x, gg.tensor(Y_IGN), weight=w, label_smoothing=0.3), [X])
    gg.debug.gradcheck(lambda x: (F.cross_entropy(x, gg.tensor(Y4), reduction="none") ** 2).sum(), [X4])
    gg.debug.gradcheck(lambda x: F.cross_entropy(x, gg.tensor(P)), [X])


def test_nll_loss_picks_minus_the_target_log_probability():
    lp = _log_softmax(X)
    got = F.nll_loss(gg.tensor(lp), gg.tensor(Y_IGN), weight=gg.tensor(W)).numpy()
    keep = Y_IGN >= 0
    want = -(W[Y_IGN[keep]] * lp[keep][np.arange(keep.sum()), Y_IGN[keep]]).sum() / W[Y_IGN[keep]].sum()
    np.testing.assert_allclose(got, want, rtol=1e-12)
    none = F.nll_loss(gg.tensor(X4), gg.tensor(Y4), reduction="none").numpy()
    assert none.shape == (2, 3, 4)
    np.testing.assert_allclose(none, -np.take_along_axis(X4, Y4[:, None], 1)[:, 0], rtol=1e-12)
    gg.debug.gradcheck(lambda x: F.nll_loss(x, gg.tensor(Y_IGN), weight=gg.tensor(W)), [lp])


def test_nll_loss_names_an_out_of_range_target():
    with pytest.raises(gg.GlassgradIndexError, match="target 7 at position 1 is out of range for 5 classes"):
        F.nll_loss(gg.tensor(X), gg.tensor(np.array([0, 7, 1, 2, 3, 4])))


def test_regression_and_binary_losses_follow_their_formulas():
    np.testing.assert_allclose(F.mse_loss(gg.tensor(X), gg.tensor(T)).numpy(), ((X - T) ** 2).mean(), rtol=1e-12)
    np.testing.assert_allclose(F.l1_loss(gg.tensor(X), gg.tensor(T), reduction="sum").numpy(), np.abs(X - T).sum(),
                               rtol=1e-12)
    w = np.abs(T)
    np.testing.assert_allclose(F.mse_loss(gg.tensor(X), gg.tensor(T), weight=gg.tensor(w)).numpy(),
                               (w * (X - T) ** 2).sum() / w.sum(), rtol=1e-12)
    pw = W[::-1].copy()
    # -[pw t log sigmoid(x) + (1 - t) log sigmoid(-x)], log sigmoid(x) = -log(1 + exp(-x)), exactly
    want = pw * TB * np.logaddexp(0, -XB) + (1 - TB) * np.logaddexp(0, XB)
    got = F.binary_cross_entropy_with_logits(gg.tensor(XB), gg.tensor(TB), pos_weight=gg.tensor(pw),
                                             reduction="none").numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    p = RNG.uniform(0.01, 0.99, (6, 5))
    np.testing.assert_allclose(F.binary_cross_entropy(gg.tensor(p), gg.tensor(TB)).numpy(),
                               (-(TB * np.log(p) + (1 - TB) * np.log(1 - p))).mean(), rtol=1e-12)
    edge = F.binary_cross_entropy(gg.tensor(np.array([0.0, 1.0])), gg.tensor(np.array([1.0, 0.0])), reduction="none")
    np.testing.assert_array_equal(edge.numpy(), [100.0, 100.0])  # logs clamped at -100, as PyTorch
    gg.debug.gradcheck(lambda x: F.binary_cross_entropy_with_logits(x, gg.tensor(TB), gg.tensor(W)), [X])
    gg.debug.gradcheck(lambda x: F.mse_loss(x, gg.tensor(T)) + F.l1_loss(x, gg.tensor(T)), [X])


@pytest.mark.parametrize("loss", [F.mse_loss, F.l1_loss, F.smooth_l1_loss, F.huber_loss, F.soft_margin_loss,
                                  F.binary_cross_entropy_with_logits])
def test_the_mean_of_an_empty_loss_is_nan_as_pytorchs(loss):
    out = loss(gg.zeros(0), gg.zeros(0))
    assert out.shape == () and np.isnan(out.item())
    assert loss(gg.zeros(0), gg.zeros(0), reduction="sum").item() == 0.0


def test_cross_entropy_with_probability_targets_refuses_an_ignore_index():
    x = gg.tensor(np.zeros((2, 3), np.float32))
    p = gg.tensor(np.full((2, 3), 1 / 3, np.float32))
    with pytest.raises(RuntimeError, match="ignore_index is not supported for floating point target"):
        F.cross_entropy(x, p, ignore_index=0)
    with pytest.raises(RuntimeError, match="ignore_index is not supported"):
        nn.CrossEntropyLoss(ignore_index=1)(x, p)
    assert abs(F.cross_entropy(x, p).item() - np.log(3)) < 1e-6   # the default -100 is no ignore_index


def test_margin_ranking_loss_wants_inputs_and_target_of_one_rank():
    a, b = gg.tensor([1.0, 2.0]), gg.tensor([2.0, 0.0])
    with pytest.raises(RuntimeError, match="All input tensors should have same dimension"):
        F.margin_ranking_loss(a, b, gg.tensor(1.0))
    # max(0, -y (a - b) + margin): y = [1, 1] gives [max(0, 1 + 0.5), max(0, -2 + 0.5)]
    assert F.margin_ranking_loss(a, b, gg.tensor([1.0, 1.0]), margin=0.5, reduction="none").tolist() == [1.5, 0.0]


def test_binary_cross_entropy_refuses_targets_outside_0_1_and_of_another_dtype():
    # PyTorch's CPU kernel checks the target's values as the input's, and promotes neither
    p = gg.tensor(np.array([0.2, 0.5, 0.7], np.float32))
    with pytest.raises(RuntimeError, match="all elements of target should be between 0 and 1"):
        F.binary_cross_entropy(p, gg.tensor(np.array([0.0, 1.5, 1.0], np.float32)))
    with pytest.raises(RuntimeError, match="Found dtype Double but expected Float"):
        nn.BCELoss()(p, gg.tensor(np.array([0.0, 1.0, 1.0])))
    with pytest.raises(RuntimeError, match="Found dtype Long but expected Float"):
        F.binary_cross_entropy(p, gg.tensor([0, 1, 1]))
    ok = F.binary_cross_entropy(p, gg.tensor(np.array([0.0, 1.0, 0.5], np.float32)), reduction="none")
    want = -np.array([np.log(0.8), np.log(0.5), 0.5 * np.log(0.7) + 0.5 * np.log(0.3)])
    np.testing.assert_allclose(ok.numpy(), want, rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_binary_cross_entropy_gradient_is_finite_where_probabilities_saturate(dtype):
    # A sigmoid that saturates to exactly 0 or 1 (a GAN's discriminator does within a few hundred
    # steps): PyTorch's input gradient is (x - t) / max(x (1 - x), 1e-12), finite; differentiating
    # the clamped logs would give 0 * inf = NaN and end the training.
    p = np.array([0.0, 1.0, 0.0, 1.0, 0.25, 1e-30], dtype)
    t = np.array([1.0, 0.0, 0.0, 1.0, 0.5, 0.0], dtype)
    w = np.array([1.0, 2.0, 0.5, 1.5, 3.0, 1.0], dtype)
    x = gg.tensor(p, requires_grad=True)
    F.binary_cross_entropy(x, gg.tensor(t), gg.tensor(w), reduction="sum").backward()
    want = w * (p.astype(np.float64) - t) / np.maximum(p * (1.0 - p.astype(np.float64)), np.float32(1e-12))
    np.testing.assert_allclose(x.grad.numpy(), want.astype(dtype), rtol=1e-6)
    assert np.isfinite(x.grad.numpy()).all()
    # The value is unchanged by the gradient's term; log(1 - x) is log1p(-x), exact for tiny x.
    value = F.binary_cross_entropy(gg.tensor(p, requires_grad=True), gg.tensor(t), reduction="none").detach().numpy()
    np.testing.assert_allclose(value, [100.0, 100.0, 0.0, 0.0, -np.log(0.25) * 0.5 - np.log(0.75) * 0.5, 1e-30],
                               rtol=1e-6)
    P = RNG.uniform(0.05, 0.95, (4, 3))
    gg.debug.gradcheck(lambda x: F.binary_cross_entropy(x, gg.tensor(TB[:4, :3]), gg.tensor(W[:3])), [P])
    gg.debug.gradcheck(lambda tt: F.binary_cross_entropy(gg.tensor(P), tt), [TB[:4, :3]])

def test_legacy_size_average_and_reduce_arguments():
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated, please use reduction='none'"):
        assert F.mse_loss(gg.tensor(X), gg.tensor(T), reduce=False).shape == X.shape
    with pytest.warns(UserWarning, match="please use reduction='sum' instead"):
        np.testing.assert_allclose(F.mse_loss(gg.tensor(X), gg.tensor(T), size_average=False).numpy(),
                                   ((X - T) ** 2).sum(), rtol=1e-12)


def test_deprecated_elementwise_mean_reduction_is_the_mean():
    # PyTorch 0.4's name for 'mean' (vinhkhuc's PyTorch-Mini-Tutorials write it): read by the losses whose
    # reduction goes through torch.nn._reduction.get_enum, with its deprecation warning
    message = "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead."
    with pytest.warns(UserWarning, match=message.replace("(", r"\(").replace(".", r"\.")):
        np.testing.assert_allclose(F.mse_loss(gg.tensor(X), gg.tensor(T), reduction="elementwise_mean").numpy(),
                                   ((X - T) ** 2).mean(), rtol=1e-12)
    crit = nn.CrossEntropyLoss(reduction="elementwise_mean")
    assert crit.reduction == "elementwise_mean"  # the module keeps it as given; each call warns
    with pytest.warns(UserWarning, match="elementwise_mean' is deprecated"):
        np.testing.assert_allclose(crit(gg.tensor(X), gg.tensor(Y)).numpy(), ce_numpy(X, Y, None, "mean"), rtol=1e-12)
    # the losses that check their reduction themselves refuse it, as PyTorch's do
    for call in (lambda: F.poisson_nll_loss(gg.tensor(X), gg.tensor(TB), reduction="elementwise_mean"),
                 lambda: F.multilabel_soft_margin_loss(gg.tensor(X), gg.tensor(TB), reduction="elementwise_mean"),
                 lambda: nn.PoissonNLLLoss(reduction="elementwise_mean")(gg.tensor(X), gg.tensor(TB))):
        with pytest.raises(ValueError, match="elementwise_mean"):
            call()


def test_loss_modules_hold_their_options_and_weights_as_buffers():
    crit = nn.CrossEntropyLoss(weight=gg.tensor(W), ignore_index=1, label_smoothing=0.1, reduction="sum")
    assert list(crit.state_dict()) == ["weight"] and crit.ignore_index == 1
    np.testing.assert_allclose(crit(gg.tensor(X), gg.tensor(Y)).numpy(),
                               ce_numpy(X, Y, W, "sum", ignore_index=1, label_smoothing=0.1), rtol=1e-12)
    assert nn.CrossEntropyLoss().weight is None and list(nn.CrossEntropyLoss().state_dict()) == []
    assert repr(nn.MSELoss()) == "MSELoss()" and nn.MSELoss().reduction == "mean"   # PyTorch's repr
    for crit, fn, args in ((nn.NLLLoss(), F.nll_loss, (X, Y)), (nn.MSELoss(), F.mse_loss, (X, T)),
                           (nn.L1Loss(), F.l1_loss, (X, T)), (nn.BCEWithLogitsLoss(), F.binary_cross_entropy_with_logits, (X, TB)),
                           (nn.BCELoss(), F.binary_cross_entropy, (TB, TB))):
        np.testing.assert_allclose(crit(*map(gg.tensor, args)).numpy(), fn(*map(gg.tensor, args)).numpy(), rtol=1e-15)
    with pytest.raises(gg.InvalidArgumentError, match="avg is not a valid value for reduction"):
        nn.MSELoss(reduction="avg")(gg.tensor(X), gg.tensor(T))  # refused at the call, as PyTorch's


CASES = [
    ("cross_entropy", (X, Y_IGN), {}),
    ("cross_entropy", (X, Y_IGN, W), {"label_smoothing": 0.2, "reduction": "sum"}),
    ("cross_entropy", (X, Y), {"ignore_index": 1, "reduction": "none"}),
    ("cross_entropy", (X4, Y4), {"label_smoothing": 0.1}),
    ("cross_entropy", (X4, Y4), {"reduction": "none"}),
    ("cross_entropy", (X, P, W), {"label_smoothing": 0.1}),
    ("cross_entropy", (X[0], np.array(3)), {}),
    ("nll_loss", (_log_softmax(X), Y_IGN, W), {}),
    ("nll_loss", (X4, Y4), {"reduction": "none"}),
    ("mse_loss", (X, T), {}),
    ("mse_loss", (X, T), {"weight": np.abs(T)}),
    ("l1_loss", (X, T), {"reduction": "sum"}),
    ("binary_cross_entropy_with_logits", (XB, TB), {}),
    ("binary_cross_entropy_with_logits", (XB, TB, W), {"pos_weight": W[::-1].copy(), "reduction": "none"}),
    ("binary_cross_entropy", (RNG.uniform(0.01, 0.99, (6, 5)), TB), {}),
]


@pytest.mark.parametrize("name,args,kwargs", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_loss_and_gradient_match_torch(torch, name, args, kwargs):
    gx = gg.tensor(args[0], requires_grad=True)
    tx = torch.tensor(args[0], requires_grad=True)
    conv_g = lambda v: gg.tensor(v) if isinstance(v, np.ndarray) else v
    conv_t = lambda v: torch.tensor(v) if isinstance(v, np.ndarray) else v
    gl = getattr(F, name)(gx, *map(conv_g, args[1:]), **{k: conv_g(v) for k, v in kwargs.items()})
    tl = getattr(torch.nn.functional, name)(tx, *map(conv_t, args[1:]), **{k: conv_t(v) for k, v in kwargs.items()})
    np.testing.assert_allclose(gl.detach().numpy(), tl.detach().numpy(), rtol=1e-10, atol=1e-12)
    cot = np.random.default_rng(1).standard_normal(tuple(tl.shape))
    (gl * gg.tensor(cot)).sum().backward()
    (tl * torch.tensor(cot)).sum().backward()
    np.testing.assert_allclose(gx.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_custom_losses_subclass_the_base_classes_of_nn_modules_loss():
    # `from torch.nn.modules.loss import _Loss, _WeightedLoss`: the bases of PyTorch's loss modules,
    # which custom losses (focal losses, ...) subclass for the reduction and weight handling
    from glassgrad.nn.modules.loss import _Loss, _WeightedLoss

    class Focal(_WeightedLoss):
        def __init__(self, weight=None, gamma=2.0, reduction="mean"):
            super().__init__(weight=weight, reduction=reduction)
            self.gamma = gamma

        def forward(self, x, t):
            ce = F.cross_entropy(x, t, weight=self.weight, reduction="none")
            return ((1 - (-ce).exp()) ** self.gamma * ce).sum()

    loss = Focal(weight=gg.tensor([1.0, 2.0]))
    assert list(loss.state_dict()) == ["weight"] and isinstance(nn.CrossEntropyLoss(), _WeightedLoss)
    x = gg.tensor(np.array([[0.0, 0.0]], np.float32))
    # class 1 of weight 2 at probability 1/2: ce = 2 log 2, exp(-ce) = 1/4, (1 - 1/4)^2 * 2 log 2
    assert abs(loss(x, gg.tensor([1])).item() - 0.75 ** 2 * 2 * np.log(2)) < 1e-6
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        assert type("L", (_Loss,), {})(size_average=False).reduction == "sum"
    assert isinstance(nn.MSELoss(), _Loss) and gg.nn.modules.loss._Loss is _Loss
