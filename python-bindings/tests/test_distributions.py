"""glassgrad.distributions: log densities, entropies, CDFs and KL divergences against NumPy's
formulas, draws' shapes and moments (fixed seed, many draws), gradients by float64 finite
differences, and a REINFORCE update as pytorch/examples' reinforcement_learning writes it."""
import math

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D
import glassgrad.nn.functional as F

RNG = np.random.default_rng(5)
LOC, SCALE = RNG.standard_normal(3), RNG.uniform(0.5, 2.0, 3)
X = RNG.standard_normal(3)
P = RNG.dirichlet(np.ones(4), 2)


def test_normal_density_entropy_cdf_and_draws():
    n = D.Normal(gg.tensor(LOC), gg.tensor(SCALE))
    want = -((X - LOC) ** 2) / (2 * SCALE ** 2) - np.log(SCALE) - 0.5 * np.log(2 * np.pi)
    np.testing.assert_allclose(n.log_prob(gg.tensor(X)).numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(n.entropy().numpy(), 0.5 + 0.5 * np.log(2 * np.pi) + np.log(SCALE), rtol=1e-12)
    np.testing.assert_allclose(n.cdf(gg.tensor(LOC)).numpy(), [0.5] * 3, rtol=1e-12)
    gg.manual_seed(0)
    draws = n.sample((20000,))
    assert draws.shape == (20000, 3) and not draws.requires_grad
    np.testing.assert_allclose(draws.numpy().mean(0), LOC, atol=5 * SCALE.max() / math.sqrt(20000))
    np.testing.assert_allclose(draws.numpy().std(0), SCALE, rtol=0.05)
    with pytest.raises(ValueError, match=r"Expected parameter scale .* GreaterThan\(lower_bound=0.0\)"):
        D.Normal(0.0, -1.0)
    assert D.Normal(0.0, -1.0, validate_args=False).batch_shape == ()


def test_rsample_carries_gradients_to_the_parameters():
    loc = gg.tensor(LOC, requires_grad=True)
    scale = gg.tensor(SCALE, requires_grad=True)
    gg.manual_seed(1)
    x = D.Normal(loc, scale).rsample((5,))
    x.sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), [5.0] * 3)
    eps = (x.detach().numpy() - LOC) / SCALE  # the standard draws behind x
    np.testing.assert_allclose(scale.grad.numpy(), eps.sum(0), rtol=1e-10)
    gg.debug.gradcheck(lambda m, s: D.Normal(m, s).log_prob(gg.tensor(X)).sum(), [LOC, SCALE])
    with pytest.raises(gg.UnsupportedError if hasattr(gg, "UnsupportedError") else Exception, match="rsample"):
        D.Categorical(gg.tensor(P)).rsample()


def test_categorical_probs_logits_log_prob_entropy_and_draws():
    c = D.Categorical(probs=gg.tensor(P * 3))  # normalized to sum 1
    np.testing.assert_allclose(c.probs.numpy(), P, rtol=1e-12)
    c2 = D.Categorical(logits=gg.tensor(np.log(P) + 7.0))
    np.testing.assert_allclose(c2.probs.numpy(), P, rtol=1e-12)
    v = np.array([3, 0])
    np.testing.assert_allclose(c.log_prob(gg.tensor(v)).numpy(), np.log(P[[0, 1], v]), rtol=1e-12)
    np.testing.assert_allclose(c.entropy().numpy(), -(P * np.log(P)).sum(1), rtol=1e-12)
    assert c.batch_shape == (2,) and c.sample().shape == (2,) and c.sample((7, 3)).shape == (7, 3, 2)
    gg.manual_seed(2)
    draws = c.sample((20000,)).numpy()
    freq = np.stack([(draws[:, b, None] == np.arange(4)).mean(0) for b in range(2)])
    np.testing.assert_allclose(freq, P, atol=0.02)
    assert c.enumerate_support().shape == (4, 2)
    with pytest.raises(ValueError, match="either `probs` or `logits`"):
        D.Categorical()
    gg.debug.gradcheck(lambda lg: D.Categorical(logits=lg).log_prob(gg.tensor(v)).sum()
                       + D.Categorical(logits=lg).entropy().sum(), [np.log(P)])


def test_bernoulli_onehot_uniform_exponential_laplace_independent():
    p = np.array([0.2, 0.7, 1.0])
    b = D.Bernoulli(probs=gg.tensor(p))
    np.testing.assert_allclose(b.log_prob(gg.tensor([1.0, 0.0, 1.0])).numpy(), np.log([0.2, 0.3, 1.0]), atol=1e-6)
    np.testing.assert_allclose(D.Bernoulli(logits=gg.tensor([0.0])).entropy().numpy(), [np.log(2)], rtol=1e-6)
    assert set(np.unique(b.sample((100,)).numpy())) <= {0.0, 1.0}
    oh = D.OneHotCategorical(gg.tensor(P))
    s = oh.sample((5,))
    assert s.shape == (5, 2, 4) and np.all(s.numpy().sum(-1) == 1)
    np.testing.assert_allclose(oh.log_prob(s).numpy(), np.log(P[[0, 1], s.numpy().argmax(-1)]), rtol=1e-12)
    u = D.Uniform(gg.tensor([0.0, -1.0]), gg.tensor([2.0, 3.0]), validate_args=False)  # 5 is outside: -inf
    np.testing.assert_allclose(u.log_prob(gg.tensor([1.0, 5.0])).numpy(), [-np.log(2.0), -np.inf], rtol=1e-6)
    with pytest.raises(ValueError, match="to be within the support"):
        D.Uniform(gg.tensor([0.0, -1.0]), gg.tensor([2.0, 3.0])).log_prob(gg.tensor([1.0, 5.0]))
    np.testing.assert_allclose(u.entropy().numpy(), np.log([2.0, 4.0]), rtol=1e-6)
    e = D.Exponential(gg.tensor([2.0]))
    np.testing.assert_allclose(e.log_prob(gg.tensor([0.5])).numpy(), [np.log(2.0) - 1.0], rtol=1e-6)
    gg.manual_seed(3)
    assert abs(e.sample((20000,)).numpy().mean() - 0.5) < 0.02
    la = D.Laplace(gg.tensor([0.0]), gg.tensor([2.0]))
    np.testing.assert_allclose(la.log_prob(gg.tensor([1.0])).numpy(), [-np.log(4.0) - 0.5], rtol=1e-6)
    ind = D.Independent(D.Normal(gg.tensor(np.zeros((2, 3))), gg.tensor(np.ones((2, 3)))), 1)
    assert ind.batch_shape == (2,) and ind.event_shape == (3,)
    np.testing.assert_allclose(ind.log_prob(gg.tensor(np.zeros((2, 3)))).numpy(), [-1.5 * np.log(2 * np.pi)] * 2,
                               rtol=1e-12)


def test_kl_divergences_match_their_closed_forms():
    kl = D.kl_divergence(D.Normal(gg.tensor(LOC), gg.tensor(SCALE)), D.Normal(gg.tensor(X), gg.tensor(SCALE[::-1].copy())))
    s2 = SCALE[::-1]
    want = np.log(s2 / SCALE) + (SCALE ** 2 + (LOC - X) ** 2) / (2 * s2 ** 2) - 0.5
    np.testing.assert_allclose(kl.numpy(), want, rtol=1e-12)
    q = P[::-1].copy()
    np.testing.assert_allclose(D.kl_divergence(D.Categorical(gg.tensor(P)), D.Categorical(gg.tensor(q))).numpy(),
                               (P * np.log(P / q)).sum(1), rtol=1e-12)
    kb = D.kl_divergence(D.Bernoulli(probs=gg.tensor([0.3])), D.Bernoulli(probs=gg.tensor([0.6])))
    np.testing.assert_allclose(kb.numpy(), [0.3 * np.log(0.5) + 0.7 * np.log(0.7 / 0.4)], rtol=1e-6)

    class MyNormal(D.Normal):
        pass

    assert D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(0.0, 1.0)).item() == 0.0  # found along the MRO

    class MyExponential(D.Exponential):
        pass

    @D.register_kl(MyExponential, D.Normal)  # more specific than torch's (Exponential, Normal): it wins
    def _kl(p, q):
        return p.rate * 0 + 42.0

    try:
        assert D.kl_divergence(MyExponential(1.0), D.Normal(0.0, 1.0)).item() == 42.0
        assert D.kl_divergence(D.Exponential(1.0), D.Normal(0.0, 1.0)).item() != 42.0
    finally:
        from glassgrad.distributions.kl import _KL
        del _KL[(MyExponential, D.Normal)]
    with pytest.raises(Exception, match="no closed form"):
        D.kl_divergence(D.Laplace(0.0, 1.0), D.Cauchy(0.0, 1.0))


def test_reinforce_update_as_pytorch_examples_writes_it():
    # reinforcement_learning/reinforce.py's select_action and finish_episode on a 2-action toy
    # task whose reward is 1 for action 1: the policy learns to take it.
    gg.manual_seed(0)
    policy = gg.nn.Sequential(gg.nn.Linear(4, 16), gg.nn.ReLU(), gg.nn.Linear(16, 2))
    opt = gg.optim.Adam(policy.parameters(), lr=1e-2)
    state = np.ones(4, np.float32)
    for _ in range(60):
        log_probs, rewards = [], []
        for _ in range(8):
            probs = F.softmax(policy(gg.tensor(state).unsqueeze(0)), dim=1)
            m = D.Categorical(probs)
            action = m.sample()
            log_probs.append(m.log_prob(action))
            rewards.append(float(action.item() == 1))
        returns = gg.tensor(rewards)
        returns = (returns - returns.mean()) / (returns.std() + np.finfo(np.float32).eps.item())
        loss = gg.cat([-lp * r for lp, r in zip(log_probs, returns)]).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    final = F.softmax(policy(gg.tensor(state).unsqueeze(0)), dim=1).detach().numpy()[0, 1]
    assert final > 0.9, final


def test_bernoulli_mode_is_nan_at_one_half():
    # PyTorch: (probs >= 0.5) with NaN where probs == 0.5 (no single mode there)
    got = D.Bernoulli(probs=gg.tensor([0.2, 0.5, 0.9])).mode.numpy()
    np.testing.assert_array_equal(got, [0.0, np.nan, 1.0])
    np.testing.assert_array_equal(D.Bernoulli(logits=gg.tensor([0.0, 1.0])).mode.numpy(), [np.nan, 1.0])


def test_independent_mode_is_its_base_mode():
    d = D.Independent(D.Normal(gg.tensor([0.0, 1.0]), gg.tensor([1.0, 2.0])), 1)
    assert d.mode.tolist() == [0.0, 1.0]
    b = D.Independent(D.Bernoulli(gg.tensor([[0.5, 0.7]])), 1)
    np.testing.assert_array_equal(b.mode.numpy(), [[np.nan, 1.0]])


def test_modes_as_torch():
    torch = pytest.importorskip("torch")
    for make in (lambda lib: lib.distributions.Bernoulli(probs=lib.tensor([0.2, 0.5, 0.9])),
                 lambda lib: lib.distributions.Independent(lib.distributions.Bernoulli(lib.tensor([[0.5, 0.7]])), 1),
                 lambda lib: lib.distributions.Independent(lib.distributions.Normal(lib.tensor([0.0, 1.0]),
                                                                                    lib.tensor([1.0, 2.0])), 1)):
        np.testing.assert_array_equal(make(gg).mode.numpy(), make(torch).mode.numpy())
