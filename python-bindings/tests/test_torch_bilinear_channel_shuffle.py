"""F.bilinear (nn.Bilinear), F.channel_shuffle (nn.ChannelShuffle) and F.pdist against PyTorch on
random shapes (values, gradients of the inputs, weight and bias, reprs, errors), NumPy references
and finite differences. Skipped when torch is not importable (CI never installs it;
tools/torch_differential.sh runs it)."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F
from torch_compare import compare

torch = pytest.importorskip("torch")
TF = torch.nn.functional


@pytest.mark.parametrize("seed", range(12))
def test_bilinear_matches_torch(seed):
    rng = np.random.default_rng(seed)
    lead = tuple(int(v) for v in rng.integers(1, 4, int(rng.integers(0, 3))))
    in1, in2, out = (int(v) for v in rng.integers(1, 5, 3))
    a, b = rng.standard_normal(lead + (in1,)), rng.standard_normal(lead + (in2,))
    w, bias = rng.standard_normal((out, in1, in2)), rng.standard_normal(out)
    compare(F.bilinear, TF.bilinear, [a, b, w, bias], (0, 1, 2, 3))
    compare(F.bilinear, TF.bilinear, [a, b, w], (0, 1, 2))
    theirs = torch.nn.Bilinear(in1, in2, out, bias=bool(seed % 2)).double()
    ours = nn.Bilinear(in1, in2, out, bias=bool(seed % 2)).double()
    assert repr(ours) == repr(theirs)
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    compare(ours, theirs, [a, b], (0, 1))
    for name, p in theirs.named_parameters():
        np.testing.assert_allclose(dict(ours.named_parameters())[name].grad.numpy(), p.grad.numpy(), rtol=1e-10)
    assert compare(F.bilinear, TF.bilinear, [a, b[..., :0], w], ()) is not None


@pytest.mark.parametrize("groups", [1, 2, 3, 4])
def test_channel_shuffle_and_pdist_match_torch(groups):
    x = np.random.default_rng(groups).standard_normal((2, 12, 3, 2))
    compare(F.channel_shuffle, TF.channel_shuffle, [x], (0,), dict(groups=groups))
    compare(nn.ChannelShuffle(groups), torch.nn.ChannelShuffle(groups), [x[:, :, 0]], (0,))
    assert repr(nn.ChannelShuffle(groups)) == repr(torch.nn.ChannelShuffle(groups))
    assert compare(F.channel_shuffle, TF.channel_shuffle, [x], (), dict(groups=5)) is not None
    compare(F.pdist, TF.pdist, [x[0, :, :, 0]], (0,), dict(p=1.0 + groups / 2))


def test_bilinear_and_channel_shuffle_match_numpy_and_finite_differences():
    rng = np.random.default_rng(5)
    a, b, w, bias = rng.standard_normal((4, 3)), rng.standard_normal((4, 2)), rng.standard_normal((5, 3, 2)), \
        rng.standard_normal(5)
    np.testing.assert_allclose(F.bilinear(gg.tensor(a), gg.tensor(b), gg.tensor(w), gg.tensor(bias)).numpy(),
                               np.einsum("ni,oij,nj->no", a, w, b) + bias, rtol=1e-12)
    assert gg.debug.gradcheck(lambda *t: (F.bilinear(*t) ** 2).sum(), [a, b, w, bias])
    x = np.arange(6.0).reshape(1, 6, 1)
    assert F.channel_shuffle(gg.tensor(x), 2).numpy().ravel().tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]


def test_gumbel_softmax_samples_the_softmax_and_its_hard_sample_has_the_soft_gradient():
    import inspect
    params = lambda f: [(p.name, p.default) for p in inspect.signature(f).parameters.values()]
    assert params(F.gumbel_softmax) == params(TF.gumbel_softmax)
    probs = np.array([0.1, 0.2, 0.3, 0.4])
    logits = np.tile(np.log(probs), (20000, 1))
    gg.manual_seed(1)
    draws = gg.empty_like(gg.tensor(logits)).exponential_().numpy()   # the draws gumbel_softmax makes next
    gg.manual_seed(1)
    soft = F.gumbel_softmax(gg.tensor(logits), tau=0.5).numpy()
    z = (logits - np.log(draws)) / 0.5
    np.testing.assert_allclose(soft, np.exp(z - z.max(1, keepdims=True)) / np.exp(z - z.max(1, keepdims=True)).sum(
        1, keepdims=True), rtol=1e-10)
    w = np.random.default_rng(6).standard_normal(logits.shape)
    grads = []
    for hard in (True, False):
        gg.manual_seed(2)
        x = gg.tensor(logits, requires_grad=True)
        y = F.gumbel_softmax(x, hard=hard)
        (y * gg.tensor(w)).sum().backward()
        grads.append(x.grad.numpy())
        if hard:
            assert set(np.unique(y.detach().numpy())) == {0.0, 1.0} and (y.detach().numpy().sum(1) == 1).all()
            freq = np.bincount(y.detach().numpy().argmax(1), minlength=4) / len(y)
            assert (np.abs(freq - probs) < 4 * np.sqrt(probs * (1 - probs) / len(y))).all()   # four sigmas
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)
