"""kl_divergence between different families against torch: every pair torch registers, with
parameters that give finite values where the supports nest and inf where they do not, and the
gradients of the finite ones to both sides' parameters. Skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions
from torch.distributions.kl import _KL_REGISTRY  # noqa: E402

A = np.array([0.4, 1.3, 2.5])
B = np.array([2.6, 3.1, 4.2])  # > 2: Pareto's alpha with a finite variance
U = np.array([0.1, 0.25, 0.3])

# family -> parameters (arrays) for its constructor
PARAMS = {
    "Bernoulli": (U,), "Beta": (A + 0.5, B), "Binomial": (np.full(3, 4.0), U), "ContinuousBernoulli": (U,),
    "Exponential": (A,), "Gamma": (A + 1, B), "Gumbel": (A - 1, B), "Laplace": (A - 1, B), "Normal": (A - 1, B),
    "Pareto": (A, B), "Poisson": (B,), "Uniform": (U, U + 0.5),
}
MAKE = {"Binomial": lambda m, n, p: m.Binomial(n, probs=p)}


def _build(module, name, arrays, to_tensor, requires_grad=False):
    params = [to_tensor(a, requires_grad) for a in arrays]
    make = MAKE.get(name, lambda m, *ps: getattr(m, name)(*ps))
    return make(module, *params), params


PAIRS = sorted({(p.__name__, q.__name__) for p, q in _KL_REGISTRY if p.__name__ in PARAMS and q.__name__ in PARAMS
                and p is not q})


@pytest.mark.parametrize("pair", PAIRS, ids=["-".join(p) for p in PAIRS])
def test_cross_family_kl_matches_torch(pair):
    p_name, q_name = pair
    ours_p, gp = _build(D, p_name, PARAMS[p_name], lambda a, r: gg.tensor(a, requires_grad=r), True)
    ours_q, gq = _build(D, q_name, PARAMS[q_name], lambda a, r: gg.tensor(a, requires_grad=r), True)
    theirs_p, tp = _build(TD, p_name, PARAMS[p_name], lambda a, r: torch.tensor(a, requires_grad=r), True)
    theirs_q, tq = _build(TD, q_name, PARAMS[q_name], lambda a, r: torch.tensor(a, requires_grad=r), True)
    ours, theirs = D.kl_divergence(ours_p, ours_q), TD.kl_divergence(theirs_p, theirs_q)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-9, atol=1e-12)
    finite = np.isfinite(theirs.detach().numpy())
    if not finite.any() or not theirs.requires_grad:
        return
    ours[gg.tensor(finite)].sum().backward()
    theirs[torch.tensor(finite)].sum().backward()
    for g, t in zip(gp + gq, tp + tq):
        if t.grad is not None and g.grad is not None:
            np.testing.assert_allclose(g.grad.numpy(), t.grad.numpy(), rtol=1e-8, atol=1e-10)
