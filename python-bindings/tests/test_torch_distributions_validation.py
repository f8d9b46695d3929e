"""validate_args against torch: the same constructions and values raise ValueError in both, naming
the same parameter and constraint (or the same support), and the same ones pass. Skipped without
torch."""
import re

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions

BAD_PARAMS = [
    lambda m, t: m.Normal(t([0.0, 1.0]), t([1.0, -1.0])), lambda m, t: m.Uniform(t(2.0), t(1.0)),
    lambda m, t: m.Categorical(probs=t([0.5, -0.1])), lambda m, t: m.Bernoulli(probs=t(1.5)),
    lambda m, t: m.Poisson(t(-1.0)), lambda m, t: m.Binomial(t(2.5), probs=t(0.3)),
    lambda m, t: m.Dirichlet(t([1.0, -1.0])), lambda m, t: m.Gamma(t(1.0), t(0.0)),
    lambda m, t: m.StudentT(t(-1.0)), lambda m, t: m.Exponential(t(-2.0)),
    lambda m, t: m.Laplace(t(0.0), t(-1.0)), lambda m, t: m.LogNormal(t(0.0), t(0.0)),
    lambda m, t: m.Geometric(probs=t(0.0)), lambda m, t: m.VonMises(t(0.0), t(-1.0)),
    lambda m, t: m.MultivariateNormal(t([0.0, 0.0]), t([[1.0, 2.0], [2.0, 1.0]])),
    lambda m, t: m.LowRankMultivariateNormal(t([0.0, 0.0]), t([[1.0], [0.0]]), t([1.0, -1.0])),
    lambda m, t: m.Chi2(t(-2.0)), lambda m, t: m.ContinuousBernoulli(logits=t(float("nan"))),
    lambda m, t: m.GeneralizedPareto(t(0.0), t(-1.0), t(0.1)),
    lambda m, t: m.Kumaraswamy(t(1.0), t(-1.0)), lambda m, t: m.InverseGamma(t(-1.0), t(1.0)),
    lambda m, t: m.RelaxedBernoulli(t(0.5), probs=t(1.5)), lambda m, t: m.Multinomial(3, probs=t([0.5, -0.5])),
]
# torch builds these on other classes, whose parameter names its messages give (Beta's is its inner
# Dirichlet's concentration, LKJCholesky's an inner Beta's): only the ValueError itself is compared
BAD_PARAMS_ELSEWHERE = [lambda m, t: m.Beta(t(-1.0), t(1.0)), lambda m, t: m.LKJCholesky(3, t(-1.0))]

BAD_VALUES = [
    (lambda m, t: m.Normal(t(0.0), t(1.0)), [float("nan")]), (lambda m, t: m.Uniform(t(0.0), t(1.0)), 2.0),
    (lambda m, t: m.Bernoulli(probs=t(0.3)), 0.5), (lambda m, t: m.Poisson(t(2.0)), 1.5),
    (lambda m, t: m.Exponential(t(1.0)), -1.0), (lambda m, t: m.Beta(t(1.0), t(2.0)), 1.5),
    (lambda m, t: m.Dirichlet(t([1.0, 1.0, 1.0])), [0.5, 0.6, 0.1]), (lambda m, t: m.Gamma(t(2.0), t(1.0)), -0.5),
    (lambda m, t: m.Binomial(t(3.0), probs=t(0.5)), 4.0), (lambda m, t: m.Categorical(logits=t([0.0, 0.0])), 2.0),
    (lambda m, t: m.OneHotCategorical(logits=t([0.0, 0.0])), [1.0, 1.0]),
]


def _tg(x):
    return gg.tensor(np.asarray(x, dtype=np.float64))


def _tt(x):
    return torch.tensor(np.asarray(x, dtype=np.float64))


def _head(message):
    """The message up to the distribution's repr: parameter (or value) and its shape."""
    return re.sub(r" of (the )?distribution .*", "", message.split("\n")[0])


@pytest.mark.parametrize("i", range(len(BAD_PARAMS)))
def test_invalid_parameters_raise_as_torchs(i):
    with pytest.raises(ValueError) as theirs:
        BAD_PARAMS[i](TD, _tt)
    with pytest.raises(ValueError) as ours:
        BAD_PARAMS[i](D, _tg)
    assert _head(str(ours.value)) == _head(str(theirs.value))
    constraint = re.search(r"to satisfy the constraint (.*), but", str(theirs.value))
    if constraint:
        assert f"to satisfy the constraint {constraint.group(1)}, but" in str(ours.value)


@pytest.mark.parametrize("i", range(len(BAD_PARAMS_ELSEWHERE)))
def test_invalid_parameters_of_composite_classes_raise(i):
    with pytest.raises(ValueError):
        BAD_PARAMS_ELSEWHERE[i](TD, _tt)
    with pytest.raises(ValueError, match="Expected parameter concentration"):
        BAD_PARAMS_ELSEWHERE[i](D, _tg)


@pytest.mark.parametrize("i", range(len(BAD_VALUES)))
def test_invalid_values_raise_as_torchs(i):
    make, value = BAD_VALUES[i]
    with pytest.raises(ValueError) as theirs:
        make(TD, _tt).log_prob(_tt(value))
    with pytest.raises(ValueError) as ours:
        make(D, _tg).log_prob(_tg(value))
    assert _head(str(ours.value)) == _head(str(theirs.value))
    support = re.search(r"within the support \((.*)\) of", str(theirs.value)).group(1)
    if "tensor(" not in support:
        assert f"within the support ({support}) of" in str(ours.value)
