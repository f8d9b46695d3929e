"""kl_divergence between different families without torch: the closed forms equal the integral
of p log(p / q) on a fine grid (for pairs whose support nests), inf where p has mass outside q's
support, and a finite-difference gradient check of one pair."""
import math

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D


def T(x):
    return gg.tensor(np.asarray(x, dtype=np.float64))


def _integral(p, q, lo, hi):
    """Trapezoids over [lo, hi], endpoints included (p may jump there); geometric spacing for the
    long tails of Pareto, whose density is steep at lo."""
    x = np.geomspace(lo, hi, 400001) if lo > 0 and hi / lo > 100 else np.linspace(lo, hi, 400001)
    lp = p.log_prob(T(x)).numpy()
    lq = q.log_prob(T(x)).numpy()
    with np.errstate(invalid="ignore"):  # -inf - -inf where p vanishes; those terms are 0
        terms = np.where(lp > -np.inf, np.exp(lp) * (lp - lq), 0.0)
    return np.trapezoid(terms, x)


CASES = [
    ("Exponential-Normal", lambda: D.Exponential(T(1.3)), lambda: D.Normal(T(0.5), T(2.0)), 0.0, 40.0),
    ("Exponential-Gamma", lambda: D.Exponential(T(1.3)), lambda: D.Gamma(T(2.0), T(1.5)), 1e-9, 40.0),
    ("Gamma-Exponential", lambda: D.Gamma(T(2.5), T(1.5)), lambda: D.Exponential(T(0.7)), 0.0, 40.0),
    ("Gamma-Normal", lambda: D.Gamma(T(2.5), T(1.5)), lambda: D.Normal(T(1.0), T(1.5)), 0.0, 40.0),
    ("Gamma-Gumbel", lambda: D.Gamma(T(2.5), T(1.5)), lambda: D.Gumbel(T(1.0), T(1.5)), 0.0, 40.0),
    ("Exponential-Gumbel", lambda: D.Exponential(T(1.3)), lambda: D.Gumbel(T(0.5), T(2.0)), 0.0, 40.0),
    ("Beta-Normal", lambda: D.Beta(T(2.0), T(3.0)), lambda: D.Normal(T(0.3), T(0.5)), 0.0, 1.0),
    ("Beta-Gamma", lambda: D.Beta(T(2.0), T(3.0)), lambda: D.Gamma(T(2.0), T(3.0)), 0.0, 1.0),
    ("Beta-Exponential", lambda: D.Beta(T(2.0), T(3.0)), lambda: D.Exponential(T(3.0)), 0.0, 1.0),
    ("Uniform-Normal", lambda: D.Uniform(T(-1.0), T(2.0)), lambda: D.Normal(T(0.3), T(1.5)), -1.0, 2.0),
    ("Uniform-Gumbel", lambda: D.Uniform(T(-1.0), T(2.0)), lambda: D.Gumbel(T(0.3), T(1.5)), -1.0, 2.0),
    ("Uniform-Beta", lambda: D.Uniform(T(0.2), T(0.7)), lambda: D.Beta(T(2.0), T(3.0)), 0.2, 0.7),
    ("Uniform-Gamma", lambda: D.Uniform(T(0.2), T(1.7)), lambda: D.Gamma(T(2.0), T(3.0)), 0.2, 1.7),
    ("Uniform-Pareto", lambda: D.Uniform(T(1.2), T(3.0)), lambda: D.Pareto(T(1.0), T(2.0)), 1.2, 3.0),
    ("Gumbel-Normal", lambda: D.Gumbel(T(0.3), T(1.2)), lambda: D.Normal(T(1.0), T(2.0)), -15.0, 40.0),
    ("Laplace-Normal", lambda: D.Laplace(T(0.3), T(1.2)), lambda: D.Normal(T(1.0), T(2.0)), -40.0, 40.0),
    ("Normal-Laplace", lambda: D.Normal(T(0.3), T(1.2)), lambda: D.Laplace(T(1.0), T(2.0)), -20.0, 20.0),
    ("Normal-Gumbel", lambda: D.Normal(T(0.3), T(1.2)), lambda: D.Gumbel(T(1.0), T(2.0)), -20.0, 20.0),
    ("Pareto-Exponential", lambda: D.Pareto(T(1.0), T(3.0)), lambda: D.Exponential(T(0.5)), 1.0, 4000.0),
    ("Pareto-Normal", lambda: D.Pareto(T(1.0), T(4.0)), lambda: D.Normal(T(1.0), T(2.0)), 1.0, 4000.0),
]


@pytest.mark.parametrize("name,make_p,make_q,lo,hi", CASES, ids=[c[0] for c in CASES])
def test_closed_form_is_the_integral(name, make_p, make_q, lo, hi):
    p, q = make_p(), make_q()
    np.testing.assert_allclose(D.kl_divergence(p, q).item(), _integral(p, q, lo, hi), rtol=2e-4, atol=1e-6)


def test_mass_outside_the_support_gives_inf():
    pairs = [(D.Normal(T(0.0), T(1.0)), D.Exponential(T(1.0))), (D.Gamma(T(2.0), T(1.0)), D.Beta(T(2.0), T(2.0))),
             (D.Uniform(T(-1.0), T(1.0)), D.Exponential(T(1.0))), (D.Pareto(T(1.0), T(0.5)), D.Exponential(T(1.0))),
             (D.Poisson(T(2.0)), D.Bernoulli(T(0.3))), (D.Beta(T(2.0), T(2.0)), D.Uniform(T(0.1), T(1.0)))]
    for p, q in pairs:
        assert math.isinf(D.kl_divergence(p, q).item()), (type(p).__name__, type(q).__name__)


def test_bernoulli_poisson_and_gradients():
    p, q = D.Bernoulli(T(0.3)), D.Poisson(T(0.8))
    want = sum(pk * (math.log(pk) - (k * math.log(0.8) - 0.8 - math.lgamma(k + 1))) for k, pk in ((0, 0.7), (1, 0.3)))
    np.testing.assert_allclose(D.kl_divergence(p, q).item(), want, rtol=1e-12)
    assert gg.debug.gradcheck(lambda a, b: D.kl_divergence(D.Gamma(a, b), D.Normal(b, a)), [[2.5, 1.2], [1.5, 0.7]])


def test_dispatch_prefers_the_most_specific_p_and_warns_when_ambiguous():
    from glassgrad.distributions.kl import _KL

    class A(D.Normal):
        pass

    class B(D.Normal):
        pass

    D.register_kl(A, D.Normal)(lambda p, q: T(1.0))
    D.register_kl(D.Normal, B)(lambda p, q: T(2.0))
    try:
        with pytest.warns(RuntimeWarning, match=r"Ambiguous kl_divergence\(A, B\). Please register_kl\(A, B\)"):
            assert D.kl_divergence(A(T(0.0), T(1.0)), B(T(0.0), T(1.0))).item() == 1.0  # torch's left choice
        assert D.kl_divergence(A(T(0.0), T(1.0)), D.Normal(T(0.0), T(1.0))).item() == 1.0
        assert D.kl_divergence(D.Normal(T(0.0), T(1.0)), B(T(0.0), T(1.0))).item() == 2.0
    finally:
        del _KL[(A, D.Normal)], _KL[(D.Normal, B)]
    # Chi2 against Gamma: (Gamma, Gamma) is more specific than the exponential families' Bregman pair
    np.testing.assert_allclose(D.kl_divergence(D.Chi2(T(3.0)), D.Gamma(T(1.5), T(0.5))).item(), 0.0, atol=1e-12)
