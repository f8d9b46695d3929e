"""glassgrad.distributions against torch.distributions on the same float64 parameters: log_prob,
entropy, cdf, mean, variance, the parameters' gradients of log_prob, and kl_divergence. Skipped
when torch is not importable (CI never installs it; tools/torch_differential.sh runs it)."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions

_rng = np.random.default_rng(9)
A, B = _rng.standard_normal((2, 3)), _rng.uniform(0.5, 2.0, (2, 3))
P = _rng.dirichlet(np.ones(5), (2, 3))
V = _rng.standard_normal((2, 3))

CASES = {
    "Normal": (lambda m, a, b: m.Normal(a, b), V, ("entropy", "cdf", "mean", "variance")),
    "Uniform": (lambda m, a, b: m.Uniform(a - 3.0, a + b + 3.0), V * 0.1, ("entropy", "cdf", "mean", "variance")),
    "Exponential": (lambda m, a, b: m.Exponential(b), np.abs(V), ("entropy", "cdf", "mean", "variance")),
    "Laplace": (lambda m, a, b: m.Laplace(a, b), V, ("entropy", "mean", "variance")),
    "Bernoulli": (lambda m, a, b: m.Bernoulli(logits=a), (V > 0).astype(float), ("entropy", "mean", "variance")),
}


def _lib(m):
    return D if m is gg else TD


@pytest.mark.parametrize("name", sorted(CASES))
def test_distribution_matches_torch(name):
    make, value, props = CASES[name]
    a, b = gg.tensor(A, requires_grad=True), gg.tensor(B, requires_grad=True)
    ta, tb = torch.tensor(A, requires_grad=True), torch.tensor(B, requires_grad=True)
    ours, theirs = make(D, a, b), make(TD, ta, tb)
    lp, tlp = ours.log_prob(gg.tensor(value)), theirs.log_prob(torch.tensor(value))
    np.testing.assert_allclose(lp.detach().numpy(), tlp.detach().numpy(), rtol=1e-10, atol=1e-12)
    lp.sum().backward()
    tlp.sum().backward()
    for g, t in ((a.grad, ta.grad), (b.grad, tb.grad)):
        if t is None:
            continue
        np.testing.assert_allclose(np.zeros(A.shape) if g is None else g.numpy(), t.numpy(), rtol=1e-9, atol=1e-12)
    for prop in props:
        got = getattr(ours, prop)
        want = getattr(theirs, prop)
        if callable(got):
            got, want = got(gg.tensor(value)) if prop == "cdf" else got(), want(torch.tensor(value)) if prop == "cdf" \
                else want()
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12, err_msg=prop)


def test_categorical_matches_torch():
    ours, theirs = D.Categorical(probs=gg.tensor(P)), TD.Categorical(probs=torch.tensor(P))
    v = _rng.integers(0, 5, (4, 2, 3))
    np.testing.assert_allclose(ours.log_prob(gg.tensor(v)).numpy(), theirs.log_prob(torch.tensor(v)).numpy(),
                               rtol=1e-12)
    np.testing.assert_allclose(ours.entropy().numpy(), theirs.entropy().numpy(), rtol=1e-12)
    lg = _rng.standard_normal((2, 5))
    np.testing.assert_allclose(D.Categorical(logits=gg.tensor(lg)).logits.numpy(),
                               TD.Categorical(logits=torch.tensor(lg)).logits.numpy(), rtol=1e-12)


def test_kl_divergence_matches_torch():
    pairs = [
        (lambda m: m.Normal(torch_or(m, A), torch_or(m, B)), lambda m: m.Normal(torch_or(m, V), torch_or(m, B[::-1]))),
        (lambda m: m.Categorical(torch_or(m, P)), lambda m: m.Categorical(torch_or(m, P[::-1]))),
        (lambda m: m.Bernoulli(logits=torch_or(m, A)), lambda m: m.Bernoulli(logits=torch_or(m, V))),
        (lambda m: m.Exponential(torch_or(m, B)), lambda m: m.Exponential(torch_or(m, B[::-1]))),
        (lambda m: m.Laplace(torch_or(m, A), torch_or(m, B)), lambda m: m.Laplace(torch_or(m, V), torch_or(m, B))),
    ]
    for p, q in pairs:
        got = D.kl_divergence(p(D), q(D)).numpy()
        want = TD.kl_divergence(p(TD), q(TD)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def torch_or(m, a):
    a = np.ascontiguousarray(a)
    return gg.tensor(a) if m is D else torch.tensor(a)
