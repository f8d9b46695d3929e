"""arg_constraints and support of every distribution against torch.distributions': the same
parameter names, and supports that accept and refuse the same probe values with the same
event_dim and is_discrete. Skipped when torch is not importable."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions

PROBE = np.array([-1.5, -1.0, 0.0, 0.3, 1.0, 2.0, 2.5, 3.0])
MAKERS = [
    lambda L, t: L.Normal(t(0.0), t(1.0)), lambda L, t: L.Laplace(t(0.0), t(1.0)),
    lambda L, t: L.Cauchy(t(0.0), t(1.0)), lambda L, t: L.Gumbel(t(0.0), t(1.0)),
    lambda L, t: L.LogNormal(t(0.0), t(1.0)), lambda L, t: L.Uniform(t(-1.0), t(2.0)),
    lambda L, t: L.Exponential(t(1.0)), lambda L, t: L.HalfNormal(t(1.0)), lambda L, t: L.HalfCauchy(t(1.0)),
    lambda L, t: L.Weibull(t(1.0), t(2.0)), lambda L, t: L.Pareto(t(1.0), t(2.0)),
    lambda L, t: L.Gamma(t(2.0), t(1.0)), lambda L, t: L.Chi2(t(3.0)), lambda L, t: L.Beta(t(2.0), t(3.0)),
    lambda L, t: L.StudentT(t(3.0)), lambda L, t: L.FisherSnedecor(t(3.0), t(5.0)), lambda L, t: L.Poisson(t(2.0)), lambda L, t: L.Binomial(3, probs=t(0.4)),
    lambda L, t: L.Bernoulli(probs=t(0.4)), lambda L, t: L.Geometric(probs=t(0.4)),
    lambda L, t: L.NegativeBinomial(t(3.0), probs=t(0.4)), lambda L, t: L.Categorical(probs=t([0.2, 0.3, 0.5])),
    lambda L, t: L.TransformedDistribution(L.Normal(t(0.0), t(1.0)), [L.transforms.SigmoidTransform()]),
    lambda L, t: L.Independent(L.Normal(t([0.0, 1.0]), t([1.0, 1.0])), 1),
]


@pytest.mark.parametrize("index", range(len(MAKERS)))
def test_constraints_match_torch(index):
    def ours_t(x):
        return gg.tensor(x, dtype=gg.float64)

    def theirs_t(x):
        return torch.tensor(x, dtype=torch.float64)

    ours, theirs = MAKERS[index](D, ours_t), MAKERS[index](TD, theirs_t)
    assert set(ours.arg_constraints) == set(theirs.arg_constraints), type(ours).__name__
    s, ts = ours.support, theirs.support
    assert s.event_dim == ts.event_dim and s.is_discrete == ts.is_discrete, type(ours).__name__
    probe = np.stack([PROBE, PROBE[::-1]], 1) if s.event_dim == 1 else PROBE
    np.testing.assert_array_equal(s.check(gg.tensor(probe)).numpy(), ts.check(torch.tensor(probe)).numpy(),
                                  err_msg=type(ours).__name__)
