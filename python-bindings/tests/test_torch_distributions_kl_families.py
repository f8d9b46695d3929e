"""kl_divergence of the later families against torch.distributions.kl_divergence on the same
float64 parameters, with gradients to the parameters. Skipped when torch is not importable."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions

_rng = np.random.default_rng(40)
A, B = _rng.standard_normal(4), _rng.uniform(0.5, 2.0, 4)
C, E = _rng.standard_normal(4), _rng.uniform(0.5, 2.0, 4)

PAIRS = {
    "Gumbel": lambda L, a, b, c, e: (L.Gumbel(a, b), L.Gumbel(c, e)),
    "Pareto": lambda L, a, b, c, e: (L.Pareto(b, e + 1), L.Pareto(e, b + 1)),
    "Cauchy": lambda L, a, b, c, e: (L.Cauchy(a, b), L.Cauchy(c, e)),
    "HalfNormal": lambda L, a, b, c, e: (L.HalfNormal(b), L.HalfNormal(e)),
    "Geometric": lambda L, a, b, c, e: (L.Geometric(logits=a), L.Geometric(logits=c)),
    "Binomial": lambda L, a, b, c, e: (L.Binomial(5, logits=a), L.Binomial(5, logits=c)),
    "Transformed": lambda L, a, b, c, e: (
        L.TransformedDistribution(L.Normal(a, b), [L.transforms.AffineTransform(1.0, 2.0),
                                                   L.transforms.ExpTransform()]),
        L.TransformedDistribution(L.Normal(c, e), [L.transforms.AffineTransform(1.0, 2.0),
                                                   L.transforms.ExpTransform()])),
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_kl_matches_torch(name):
    ours_p = [gg.tensor(x, requires_grad=True) for x in (A, B, C, E)]
    theirs_p = [torch.tensor(x, requires_grad=True) for x in (A, B, C, E)]
    got = D.kl_divergence(*PAIRS[name](D, *ours_p))
    want = TD.kl_divergence(*PAIRS[name](TD, *theirs_p))
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
    got.sum().backward()
    want.sum().backward()
    for g, t in zip((p.grad for p in ours_p), (p.grad for p in theirs_p)):
        if t is not None:
            np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=1e-9, atol=1e-12)


def test_infinite_and_refused_pairs():
    assert np.isinf(D.kl_divergence(D.Pareto(1.0, 2.0), D.Pareto(2.0, 2.0)).numpy())
    assert np.isinf(D.kl_divergence(D.Binomial(6, probs=0.5), D.Binomial(5, probs=0.5)).numpy())
    with pytest.raises(NotImplementedError):
        D.kl_divergence(D.Binomial(4, probs=0.5), D.Binomial(5, probs=0.5))
    t = D.transforms
    with pytest.raises(NotImplementedError, match="same transforms"):
        D.kl_divergence(D.TransformedDistribution(D.Normal(0.0, 1.0), [t.ExpTransform()]),
                        D.TransformedDistribution(D.Normal(0.0, 1.0), [t.AffineTransform(0.0, 2.0)]))
