"""Gradient hooks and retained gradients (docs/gradient-hooks.md), checked by the test suite:
every assert here is what PyTorch gives."""
import numpy as np

import glassgrad as gg

# --8<-- [start:hooks]
w = gg.tensor(np.array([1.0, -2.0, 3.0]), requires_grad=True)
h = w * w                                      # a computed tensor
h.retain_grad()                                # keep its gradient in h.grad
seen = []
h.register_hook(lambda g: seen.append(g.tolist()))   # observe: returns None
handle = w.register_hook(lambda g: g.clamp(-4, 4))   # replace: clip w's gradient
(h * 3).sum().backward()
print(seen, h.grad.tolist(), w.grad.tolist())
handle.remove()
# --8<-- [end:hooks]
assert seen == [[3.0, 3.0, 3.0]]
assert h.grad.tolist() == [3.0, 3.0, 3.0]
assert w.grad.tolist() == [4.0, -4.0, 4.0]   # 6w clipped to [-4, 4]

# --8<-- [start:post_accumulate]
p = gg.tensor(np.array([1.0, 2.0]), requires_grad=True)


def sgd_in_backward(param):                    # an optimizer step inside backward()
    param.data -= 0.1 * param.grad
    param.grad = None


p.register_post_accumulate_grad_hook(sgd_in_backward)
(p * p).sum().backward()
print(p.tolist(), p.grad)
# --8<-- [end:post_accumulate]
assert np.allclose(p.detach().numpy(), [0.8, 1.6]) and p.grad is None
