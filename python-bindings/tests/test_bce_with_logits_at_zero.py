"""binary_cross_entropy_with_logits' gradient is sigmoid(x) - t (times the weights) everywhere,
also at a logit of exactly 0, where a zero-initialized output layer starts: PyTorch's -0.5 for a
target of 1, not the -1 that a clamp's gradient at its bound gave."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F


@pytest.mark.parametrize("target", [0.0, 0.25, 1.0])
@pytest.mark.parametrize("pos_weight", [None, 3.0])
def test_the_gradient_at_zero_is_sigmoid_minus_the_target(target, pos_weight):
    x = gg.tensor([0.0, 0.0, -0.0], dtype=gg.float64, requires_grad=True)
    kw = {} if pos_weight is None else {"pos_weight": gg.tensor([pos_weight] * 3, dtype=gg.float64)}
    F.binary_cross_entropy_with_logits(x, gg.full((3,), target, dtype=gg.float64), reduction="sum", **kw).backward()
    pw = 1.0 if pos_weight is None else pos_weight
    # d/dx [-(pw t log s(x) + (1 - t) log(1 - s(x)))] = -pw t (1 - s) + (1 - t) s, s = 1/2
    want = -pw * target * 0.5 + (1 - target) * 0.5
    np.testing.assert_allclose(x.grad.numpy(), [want] * 3, rtol=1e-12)


def test_bernoulli_log_prob_gradient_at_even_odds():
    logits = gg.tensor([0.0], dtype=gg.float64, requires_grad=True)
    gg.distributions.Bernoulli(logits=logits).log_prob(gg.tensor([1.0], dtype=gg.float64)).sum().backward()
    assert logits.grad.item() == pytest.approx(0.5)  # d log s(l) / dl = 1 - s(l)
