"""The comparison the torch-differential distributions tests share: a glassgrad distribution against
its torch twin built from the same parameters."""
import numpy as np

import glassgrad as gg


def log_prob_and_backward_match(ours, theirs, value, torch) -> None:
    """Checks batch_shape, event_shape, has_rsample and log_prob(value) (float64, to 1e-10) of `ours`
    against `theirs`, then runs backward through both log_probs' sums, so the caller can compare
    the parameters' gradients."""
    assert ours.batch_shape == tuple(theirs.batch_shape) and ours.event_shape == tuple(theirs.event_shape)
    assert ours.has_rsample == theirs.has_rsample
    lp, tlp = ours.log_prob(gg.tensor(value)), theirs.log_prob(torch.tensor(value))
    np.testing.assert_allclose(lp.detach().numpy(), tlp.detach().numpy(), rtol=1e-10, atol=1e-12)
    lp.sum().backward()
    tlp.sum().backward()


def matching_pair(ours_cls, theirs_cls, arrays, value, torch, rtol=1e-10):
    """Builds ours_cls and theirs_cls from leaf tensors of `arrays`, checks them with
    log_prob_and_backward_match, then the parameters' gradients (to rtol); returns (ours, theirs)."""
    ours_p = [gg.tensor(a, requires_grad=True) for a in arrays]
    theirs_p = [torch.tensor(a, requires_grad=True) for a in arrays]
    ours, theirs = ours_cls(*ours_p), theirs_cls(*theirs_p)
    log_prob_and_backward_match(ours, theirs, value, torch)
    for g, t in zip(ours_p, theirs_p):
        np.testing.assert_allclose(g.grad.numpy(), t.grad.numpy(), rtol=rtol, atol=rtol * 1e-2,
                                   err_msg="d log_prob")
    return ours, theirs
