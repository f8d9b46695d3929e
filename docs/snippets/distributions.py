"""A policy-gradient step with glassgrad.distributions (docs/distributions.md), checked by the
test suite."""
import numpy as np

import glassgrad as gg
import glassgrad.nn.functional as F
from glassgrad.distributions import Categorical, Normal, kl_divergence

gg.manual_seed(0)
# --8<-- [start:reinforce]
policy = gg.nn.Linear(4, 2)
probs = F.softmax(policy(gg.tensor(np.ones((1, 4), np.float32))), dim=1)
m = Categorical(probs)
action = m.sample()                       # no gradient: a draw
loss = -m.log_prob(action) * 1.0          # REINFORCE: log-probability times the return
loss.sum().backward()                     # gradients reach the policy's weights
print(action.shape, policy.weight.grad.shape)
# --8<-- [end:reinforce]
assert tuple(action.shape) == (1,) and tuple(policy.weight.grad.shape) == (2, 4)

# --8<-- [start:vae]
mu = gg.zeros(3, requires_grad=True)
log_var = gg.zeros(3, requires_grad=True)
q = Normal(mu, (0.5 * log_var).exp())
z = q.rsample()                           # reparameterized: gradients flow through the draw
kl = kl_divergence(q, Normal(0.0, 1.0)).sum()
(z.sum() + kl).backward()
print(round(kl.item(), 6), mu.grad.tolist())
# --8<-- [end:vae]
assert kl.item() == 0.0 and mu.grad.tolist() == [1.0, 1.0, 1.0]
