"""The losses with an inference-tensor target, as PyTorch's: a loss whose backward node saves its
target (mse_loss, smooth_l1_loss, huber_loss, binary_cross_entropy[_with_logits], nll_loss,
cross_entropy, kl_div, soft_margin_loss, ...) refuses one while autograd records it ("Inference
tensors cannot be saved for backward"); one computed from ops that save nothing of it (l1_loss,
margin_ranking_loss, ...) accepts it; with no gradient recorded every loss takes it. Compared
with torch; skipped without it."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as gF

torch = pytest.importorskip("torch")
tF = torch.nn.functional

LOSSES = {
    "mse_loss": lambda F, p, t, lab, w: F.mse_loss(p, t),
    "l1_loss": lambda F, p, t, lab, w: F.l1_loss(p, t),
    "smooth_l1_loss": lambda F, p, t, lab, w: F.smooth_l1_loss(p, t),
    "huber_loss": lambda F, p, t, lab, w: F.huber_loss(p, t, delta=0.5),
    "binary_cross_entropy": lambda F, p, t, lab, w: F.binary_cross_entropy(p, t),
    "binary_cross_entropy weight": lambda F, p, t, lab, w: F.binary_cross_entropy(p, t.detach() * 0 + 0.5, weight=w),
    "binary_cross_entropy_with_logits": lambda F, p, t, lab, w: F.binary_cross_entropy_with_logits(p, t),
    "nll_loss": lambda F, p, t, lab, w: F.nll_loss(p, lab),
    "cross_entropy": lambda F, p, t, lab, w: F.cross_entropy(p, lab),
    "kl_div": lambda F, p, t, lab, w: F.kl_div(p, t, reduction="batchmean"),
    "soft_margin_loss": lambda F, p, t, lab, w: F.soft_margin_loss(p, t),
    "multilabel_soft_margin_loss": lambda F, p, t, lab, w: F.multilabel_soft_margin_loss(p, t),
    "poisson_nll_loss": lambda F, p, t, lab, w: F.poisson_nll_loss(p, t),
    "margin_ranking_loss": lambda F, p, t, lab, w: F.margin_ranking_loss(p[:, 0], p[:, 1], t[:, 0]),
    "hinge_embedding_loss": lambda F, p, t, lab, w: F.hinge_embedding_loss(p, t),
}


def _operands(lib, inference: bool):
    rng = np.random.default_rng(5)
    p = lib.tensor(rng.uniform(0.1, 0.9, (5, 3)), requires_grad=True)
    ctx = lib.inference_mode() if inference else lib.no_grad()
    with ctx:
        t = lib.tensor(rng.uniform(0.1, 0.9, (5, 3)))
        lab = lib.tensor([0, 2, 1, 1, 0])
        w = lib.tensor(rng.uniform(0.1, 0.9, (5, 3)))
    return p, t, lab, w


def _outcome(fn):
    try:
        fn()
    except RuntimeError as e:
        assert "Inference tensors cannot be saved for backward" in str(e)
        return "refused"
    return "ok"


@pytest.mark.parametrize("name", list(LOSSES))
def test_an_inference_target_is_refused_where_torchs_loss_saves_it(name):
    loss = LOSSES[name]
    theirs = _outcome(lambda: loss(tF, *_operands(torch, True)))
    ours = _outcome(lambda: loss(gF, *_operands(gg, True)))
    assert ours == theirs


@pytest.mark.parametrize("name", list(LOSSES))
def test_without_recording_every_loss_takes_an_inference_target(name):
    loss = LOSSES[name]
    p, t, lab, w = _operands(gg, True)
    with gg.no_grad():
        loss(gF, p, t, lab, w)
    loss(gF, p.detach(), t, lab, w)  # nothing requires grad: nothing is saved


@pytest.mark.parametrize("name", ["mse_loss", "smooth_l1_loss", "nll_loss", "binary_cross_entropy"])
def test_an_ordinary_target_gives_torchs_value_and_gradient(name):
    loss = LOSSES[name]
    ours, theirs = _operands(gg, False), _operands(torch, False)
    a, b = loss(gF, *ours), loss(tF, *theirs)
    a.backward()
    b.backward()
    np.testing.assert_allclose(a.item(), b.item(), rtol=1e-12)
    np.testing.assert_allclose(ours[0].grad.numpy(), theirs[0].grad.numpy(), rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("input_shape,target_shape", [((3, 4), (2,)), ((3, 4, 5), (2, 5)), ((2, 4), ())])
def test_nll_loss_of_another_batch_size_raises_torchs_value_error(input_shape, target_shape):
    target = np.zeros(target_shape, np.int64)
    with pytest.raises(ValueError, match="Expected input batch_size"):
        tF.nll_loss(torch.zeros(input_shape), torch.tensor(target))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(\d\) to match target batch_size(?s:.*)fix: "):
        gF.nll_loss(gg.zeros(input_shape), gg.tensor(target))
