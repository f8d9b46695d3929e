"""validate_args without torch: torch's messages for invalid parameters at construction and for
values outside the support, of the wrong event shape, not broadcastable or not tensors in log_prob
and cdf; validate_args=False and Distribution.set_default_validate_args turn the checks off; the
constraints' reprs and the distributions' repr are torch's (docs/distributions.md)."""
import math

import pytest

import glassgrad as gg
import glassgrad.distributions as D
from glassgrad.distributions import constraints as C


def test_invalid_parameters_name_the_parameter_and_constraint():
    with pytest.raises(ValueError) as e:
        D.Normal(gg.tensor([0.0, 1.0]), gg.tensor([1.0, -1.0]))
    assert str(e.value).startswith("Expected parameter scale (Tensor of shape (2,)) of distribution Normal(loc: ")
    assert "to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:\n" in str(e.value)
    with pytest.raises(ValueError, match=r"^Expected parameter low \(Tensor of shape \(\)\) of distribution "
                                         r"Uniform\(low: 2.0, high: 1.0\) to satisfy the constraint "
                                         r"LessThan\(upper_bound=1.0\), but found invalid values:\n2.0$"):
        D.Uniform(2.0, 1.0)
    cases = [(lambda: D.Categorical(probs=gg.tensor([0.5, -0.1])), "probs", "Simplex()"),
             (lambda: D.Bernoulli(probs=1.5), "probs", "Interval(lower_bound=0.0, upper_bound=1.0)"),
             (lambda: D.Poisson(-1.0), "rate", "GreaterThanEq(lower_bound=0.0)"),
             (lambda: D.Binomial(2.5, probs=0.3), "total_count", "IntegerGreaterThan(lower_bound=0)"),
             (lambda: D.Dirichlet(gg.tensor([1.0, -1.0])), "concentration",
              "IndependentConstraint(GreaterThan(lower_bound=0.0), 1)"),
             (lambda: D.VonMises(0.0, -1.0), "concentration", "GreaterThan(lower_bound=0.0)"),
             (lambda: D.MultivariateNormal(gg.zeros(2), gg.tensor([[1.0, 2.0], [2.0, 1.0]])), "covariance_matrix",
              "PositiveDefinite()"),
             (lambda: D.Chi2(-2.0), "df", "GreaterThan(lower_bound=0.0)")]
    for make, name, constraint in cases:
        with pytest.raises(ValueError, match=rf"Expected parameter {name} .* to satisfy the constraint "
                                             + constraint.replace("(", r"\(").replace(")", r"\)")):
            make()
    # logits given: the derived probs are not checked (torch's lazy property)
    assert D.Categorical(logits=gg.randn(1000)).probs.shape == (1000,)


def test_values_are_checked_in_log_prob_and_cdf():
    n = D.Normal(0.0, 1.0)
    with pytest.raises(ValueError, match="^The value argument to log_prob must be a Tensor$"):
        n.log_prob(0.5)
    with pytest.raises(ValueError, match=r"to be within the support \(Real\(\)\) of the distribution "
                                         r"Normal\(loc: 0.0, scale: 1.0\), but found invalid values:\ntensor"):
        n.log_prob(gg.tensor([math.nan]))
    with pytest.raises(ValueError, match="Value is not broadcastable with batch_shape"):
        D.Normal(gg.zeros(3), 1.0).log_prob(gg.zeros(2))
    with pytest.raises(ValueError, match="The right-most size of value must match event_shape"):
        D.Dirichlet(gg.ones(3)).log_prob(gg.ones(2))
    with pytest.raises(ValueError, match=r"support \(Interval\(lower_bound=0.0, upper_bound=1.0\)\)"):
        D.Uniform(0.0, 1.0).cdf(gg.tensor(2.0))
    with pytest.raises(ValueError, match=r"support \(Boolean\(\)\)"):
        D.Bernoulli(0.3).log_prob(gg.tensor(0.5))
    with pytest.raises(ValueError, match="support"):
        D.Categorical(logits=gg.zeros(3)).log_prob(gg.tensor(3))
    assert D.Normal(gg.zeros(3), 1.0).log_prob(gg.zeros(4, 1)).shape == (4, 3)  # broadcasting is fine


def test_validation_can_be_turned_off():
    assert D.Normal(0.0, -1.0, validate_args=False).batch_shape == ()
    assert math.isinf(D.Uniform(0.0, 1.0, validate_args=False).log_prob(gg.tensor(2.0)).item())
    D.Distribution.set_default_validate_args(False)
    try:
        assert D.Normal(0.0, -1.0).scale.item() == -1.0
        assert D.Bernoulli(0.3).log_prob(gg.tensor(0.5)).shape == ()
        with pytest.raises(ValueError):
            D.Normal(0.0, -1.0, validate_args=True)
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Normal(0.0, -1.0)


def test_reprs_are_torchs():
    assert repr(C.positive) == "GreaterThan(lower_bound=0.0)"
    assert repr(C.nonnegative_integer) == "IntegerGreaterThan(lower_bound=0)"
    assert repr(C.half_open_interval(0, 1)) == "HalfOpenInterval(lower_bound=0, upper_bound=1)"
    assert repr(C.real_vector) == "IndependentConstraint(Real(), 1)"
    assert repr(C.dependent) == "Dependent()" and C.is_dependent(C.dependent) and not C.is_dependent(C.real)
    assert repr(D.Normal(0.0, 1.0)) == "Normal(loc: 0.0, scale: 1.0)"
    assert repr(D.Normal(gg.zeros(3), 1.0)) == "Normal(loc: glassgrad.Size([3]), scale: glassgrad.Size([3]))"
    assert repr(D.Bernoulli(logits=0.0)) == "Bernoulli(logits: 0.0)"
