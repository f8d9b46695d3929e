"""Double backward (autograd.grad(create_graph=True), then backward) through the functions a WGAN-GP
critic or a MAML inner loop composes of elementwise ops and reductions (F.normalize,
cosine_similarity, logsumexp, norm, the regression and binary losses): float64 central differences
of the first gradient, and torch's results. Skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg
from double_backward_check import check

torch = pytest.importorskip("torch")

_RNG = np.random.default_rng(12)
_T = _RNG.standard_normal((3, 4))
_P = _RNG.uniform(0.1, 0.9, (3, 4))

# (name, f(lib, x, *rest), rest arrays, arguments differentiated)
_CASES = [
    ("normalize", lambda L, x: L.nn.functional.normalize(x, dim=1), [], (0,)),
    ("cosine_similarity", lambda L, x, t: L.nn.functional.cosine_similarity(x, t, dim=1), [_T], (0, 1)),
    ("logsumexp", lambda L, x: L.logsumexp(x, 1), [], (0,)),
    ("norm dim 1", lambda L, x: x.norm(2, dim=1), [], (0,)),
    ("norm of everything", lambda L, x: x.norm(), [], (0,)),
    ("linalg.vector_norm ord 3", lambda L, x: L.linalg.vector_norm(x, 3, dim=0), [], (0,)),
    ("mse_loss", lambda L, x, t: L.nn.functional.mse_loss(x, t), [_T], (0, 1)),
    ("l1_loss", lambda L, x, t: L.nn.functional.l1_loss(x * x, t), [_T], (0,)),
    ("smooth_l1_loss", lambda L, x, t: L.nn.functional.smooth_l1_loss(x * 2, t, beta=0.7), [_T], (0,)),
    ("huber_loss", lambda L, x, t: L.nn.functional.huber_loss(x * 2, t, delta=0.8), [_T], (0,)),
    ("binary_cross_entropy", lambda L, x, t: L.nn.functional.binary_cross_entropy(L.sigmoid(x), t), [_P], (0,)),
    ("binary_cross_entropy of probabilities, in the target too",
     lambda L, x, t: L.nn.functional.binary_cross_entropy(0.5 + 0.3 * L.tanh(x), t), [_P], (0, 1)),
    ("binary_cross_entropy weight sum",
     lambda L, x, t: L.nn.functional.binary_cross_entropy(L.sigmoid(x), t, weight=L.tensor([1.0, 2.0, 0.5, 1.5]),
                                                          reduction="sum"), [_P], (0,)),
    ("binary_cross_entropy_with_logits",
     lambda L, x, t: L.nn.functional.binary_cross_entropy_with_logits(x, t), [_P], (0,)),
    ("binary_cross_entropy_with_logits pos_weight",
     lambda L, x, t: L.nn.functional.binary_cross_entropy_with_logits(x, t, pos_weight=L.tensor([0.5, 1.0, 2.0, 3.0])),
     [_P], (0,)),
]


@pytest.mark.parametrize("name,f,rest,wrt", _CASES, ids=[c[0] for c in _CASES])
def test_double_backward_matches_finite_differences_and_torch(name, f, rest, wrt):
    check(f, [np.random.default_rng(3).standard_normal((3, 4)), *rest], wrt)


def test_binary_cross_entropy_double_backward_stays_finite_where_a_sigmoid_saturates():
    """Probabilities of exactly 0 and 1 (a saturated float32 discriminator): the first gradient and
    its derivative are finite, as PyTorch's (eps in both), and close to torch's relative to their size."""
    x0 = np.array([0.0, 1.0, 0.3, 0.9], dtype=np.float32)
    t0 = np.array([1.0, 0.0, 0.5, 0.2], dtype=np.float32)
    res = []
    for L in (gg, torch):
        x = L.tensor(x0, requires_grad=True)
        (g,) = L.autograd.grad(L.nn.functional.binary_cross_entropy(x, L.tensor(t0), reduction="sum"), x,
                               create_graph=True)
        (g * L.tensor([1.0, 1.0, 1.0, 1.0])).sum().backward()
        res.append((g.detach().numpy(), x.grad.detach().numpy()))
    for ours, theirs in zip(*res):
        assert np.all(np.isfinite(ours))
        np.testing.assert_allclose(ours, theirs, rtol=1e-5)
