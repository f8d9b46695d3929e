"""LKJCholesky against torch (float64): shapes, log_prob of torch's own draws and its gradient in the
concentration, expand, and the first row's correlation variance. Skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions

ETA = np.array([0.5, 1.0, 3.0])


def test_log_prob_matches_torch():
    c, tc = gg.tensor(ETA, requires_grad=True), torch.tensor(ETA, requires_grad=True)
    ours, theirs = D.LKJCholesky(5, c), TD.LKJCholesky(5, tc)
    assert ours.batch_shape == tuple(theirs.batch_shape) and ours.event_shape == tuple(theirs.event_shape)
    assert ours.has_rsample == theirs.has_rsample
    torch.manual_seed(0)
    x = theirs.sample((6,))
    lp, tlp = ours.log_prob(gg.tensor(x.numpy())), theirs.log_prob(x)
    np.testing.assert_allclose(lp.detach().numpy(), tlp.detach().numpy(), rtol=1e-11)
    lp.sum().backward()
    tlp.sum().backward()
    np.testing.assert_allclose(c.grad.numpy(), tc.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(ours.expand((2, 3)).log_prob(gg.tensor(x[0].numpy())).detach().numpy(),
                               theirs.expand((2, 3)).log_prob(x[0]).detach().numpy(), rtol=1e-11)


def test_draws_match_torchs_correlations():
    gg.manual_seed(0)
    torch.manual_seed(0)
    x = D.LKJCholesky(3, gg.tensor(ETA)).sample((4000,))
    y = TD.LKJCholesky(3, torch.tensor(ETA)).sample((4000,))
    # row 1 only: torch's onion draws for rows 2.. use Beta(i - 1/2, .) where the method has Beta(i / 2, .)
    ours, theirs = (x @ x.mT).numpy()[..., 1, 0], (y @ y.mT).numpy()[..., 1, 0]
    np.testing.assert_allclose(ours.var(0), theirs.var(0), rtol=0.15)
    assert bool(TD.constraints.corr_cholesky.check(torch.tensor(x.numpy())).all())
