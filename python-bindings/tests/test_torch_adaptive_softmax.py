"""nn.AdaptiveLogSoftmaxWithLoss against PyTorch's (the same weights: outputs, loss, log_prob,
predict, gradients of the input and of every parameter, repr, state_dict keys both ways, errors),
a NumPy reference and finite differences. Skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn

torch = pytest.importorskip("torch")

CASES = [dict(in_features=16, n_classes=20, cutoffs=[4, 10]),
         dict(in_features=8, n_classes=10, cutoffs=[3], div_value=2.0, head_bias=True),
         dict(in_features=12, n_classes=9, cutoffs=[1, 2, 5], div_value=1.5),
         # 6 // 4 ** 2 = 0: cluster 1's projection has no features (its classes are scored uniformly)
         dict(in_features=6, n_classes=8, cutoffs=[2, 5])]


def _pair(kw):
    ours = nn.AdaptiveLogSoftmaxWithLoss(**kw, dtype=gg.float64)
    theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(**kw, dtype=torch.float64)
    theirs.load_state_dict({k: torch.tensor(np.asarray(v)) for k, v in ours.state_dict().items()})
    return ours, theirs


@pytest.mark.parametrize("kw", CASES)
@pytest.mark.parametrize("seed", range(3))
def test_adaptive_log_softmax_matches_torch(kw, seed):
    rng = np.random.default_rng(seed)
    ours, theirs = _pair(kw)
    assert repr(ours) == repr(theirs) and list(ours.state_dict()) == list(theirs.state_dict())
    n = int(rng.integers(1, 9))
    x, t = rng.standard_normal((n, kw["in_features"])), rng.integers(0, kw["n_classes"], n)
    if seed == 2:
        t[:] = 0  # every row in the shortlist: no cluster runs
    xa, xb = gg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    a, b = ours(xa, gg.tensor(t)), theirs(xb, torch.tensor(t))
    assert type(a).__name__ == type(b).__name__ == "_ASMoutput" and a._fields == b._fields
    np.testing.assert_allclose(a.output.detach().numpy(), b.output.detach().numpy(), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(a.loss.detach().numpy(), b.loss.detach().numpy(), rtol=1e-12)
    w = rng.standard_normal(n)
    ((a.output * gg.tensor(w)).sum() + a.loss).backward()
    ((b.output * torch.tensor(w)).sum() + b.loss).backward()
    np.testing.assert_allclose(xa.grad.numpy(), xb.grad.numpy(), rtol=1e-10, atol=1e-12)
    grads = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        want = grads[name].grad
        got = p.grad.numpy() if p.grad is not None else np.zeros(tuple(want.shape) if want is not None else ())
        np.testing.assert_allclose(got, want.numpy() if want is not None else np.zeros_like(got), rtol=1e-10,
                                   atol=1e-12, err_msg=name)
    np.testing.assert_allclose(ours.log_prob(gg.tensor(x)).detach().numpy(), theirs.log_prob(torch.tensor(x)).detach().numpy(),
                               rtol=1e-12, atol=1e-13)
    np.testing.assert_array_equal(ours.predict(gg.tensor(x)).numpy(), theirs.predict(torch.tensor(x)).numpy())
    one_a, one_b = ours(gg.tensor(x[0]), gg.tensor(t[0])), theirs(torch.tensor(x[0]), torch.tensor(t[0]))
    assert tuple(one_a.output.shape) == tuple(one_b.output.shape) == ()
    np.testing.assert_allclose(one_a.output.detach().numpy(), one_b.output.detach().numpy(), rtol=1e-12)


def test_predict_takes_cluster_classes_where_the_head_picks_a_cluster():
    kw = dict(in_features=32, n_classes=8, cutoffs=[2, 5], head_bias=True)
    ours, theirs = _pair(kw)
    with torch.no_grad():
        theirs.head.bias.copy_(torch.tensor([0.0, 0.0, 5.0, -5.0]))  # cluster 0 wins the head for most rows
    ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(1).standard_normal((10, 32))
    x[:3] *= 50  # some rows where the shortlist may win
    got, want = ours.predict(gg.tensor(x)).numpy(), theirs.predict(torch.tensor(x)).numpy()
    np.testing.assert_array_equal(got, want)
    assert (want >= 2).any()
    np.testing.assert_array_equal(got, ours.log_prob(gg.tensor(x)).detach().numpy().argmax(1))


def test_adaptive_log_softmax_matches_numpy_and_finite_differences():
    ours = nn.AdaptiveLogSoftmaxWithLoss(6, 7, [2, 4], div_value=2.0, dtype=gg.float64)
    rng = np.random.default_rng(3)
    x, t = rng.standard_normal((5, 6)), np.array([0, 3, 6, 1, 4])
    head = ours.head.weight.detach().numpy()
    tails = [(seq[0].weight.detach().numpy(), seq[1].weight.detach().numpy()) for seq in ours.tail]

    def log_softmax(z):
        z = z - z.max(1, keepdims=True)
        return z - np.log(np.exp(z).sum(1, keepdims=True))
    h = log_softmax(x @ head.T)
    full = np.concatenate([h[:, :2]] + [log_softmax(x @ a.T @ b.T) + h[:, 2 + i:3 + i]
                                        for i, (a, b) in enumerate(tails)], axis=1)
    out = ours(gg.tensor(x), gg.tensor(t))
    np.testing.assert_allclose(out.output.detach().numpy(), full[np.arange(5), t], rtol=1e-12)
    np.testing.assert_allclose(ours.log_prob(gg.tensor(x)).detach().numpy(), full, rtol=1e-12)
    np.testing.assert_allclose(np.exp(full).sum(1), 1.0, rtol=1e-12)
    assert gg.debug.gradcheck(lambda v: ours(v, gg.tensor(t)).loss, [x])
    assert gg.debug.gradcheck(lambda v: (ours.log_prob(v) * gg.tensor(full)).sum(), [x])


@pytest.mark.parametrize("args", [(8, 10, []), (8, 10, [5, 3]), (8, 10, [0]), (8, 10, [10]), (8, 10, [3, 3]),
                                  (8, 10, [2.5])])
def test_bad_cutoffs_raise_torch_s_value_error(args):
    with pytest.raises(ValueError) as theirs:
        torch.nn.AdaptiveLogSoftmaxWithLoss(*args)
    with pytest.raises(ValueError) as ours:
        nn.AdaptiveLogSoftmaxWithLoss(*args)
    assert str(ours.value).startswith(str(theirs.value))


@pytest.mark.parametrize("x_shape,t", [((4, 8), [0, 1, 2]), ((2, 2, 8), [0, 1]), ((4, 8), 1), ((8,), [1]),
                                        ((4, 8), [[0, 1], [1, 2]]), ((4, 8), [0, 1, 2, 10]), ((4, 8), [0, -1, 2, 3])])
def test_bad_inputs_and_targets_raise_torch_s_runtime_error(x_shape, t):
    x, t = np.zeros(x_shape), np.array(t)
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(torch.tensor(x, dtype=torch.float32), torch.tensor(t))
    with pytest.raises(RuntimeError) as ours:
        nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(gg.tensor(x.astype(np.float32)), gg.tensor(t))
    # torch's message is the first line (sizes printed as glassgrad.Size), the layer and a fix follow
    assert str(ours.value).split("\n")[0].strip() == str(theirs.value).strip().replace("torch.", "glassgrad.")
    assert "fix: " in str(ours.value)

def test_reset_parameters_draws_every_weight_again_in_place():
    layer = nn.AdaptiveLogSoftmaxWithLoss(16, 20, [4, 10], head_bias=True)
    params = dict(layer.named_parameters())
    before = {k: p.detach().numpy().copy() for k, p in params.items()}
    layer.reset_parameters()
    for name, p in layer.named_parameters():
        assert p is params[name] and not np.array_equal(p.detach().numpy(), before[name]), name
        bound = 1 / np.sqrt(p.shape[-1] if p.ndim == 2 else 16)
        assert np.abs(p.detach().numpy()).max() <= bound, name
