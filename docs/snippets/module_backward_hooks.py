"""Module backward hooks (docs/gradient-hooks.md), checked by the test suite: every assert here is
what PyTorch gives."""
import numpy as np

import glassgrad.torch as torch

# --8<-- [start:hooks]
lin = torch.nn.Linear(2, 1, bias=False)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[2.0, -1.0]]))
seen = []
lin.register_full_backward_pre_hook(lambda m, grad_output: seen.append(grad_output[0].tolist()))
handle = lin.register_full_backward_hook(lambda m, grad_input, grad_output: (grad_input[0] * 10,))
x = torch.tensor([[1.0, 1.0]], requires_grad=True)
(lin(x) * 3).sum().backward()
print(seen, x.grad.tolist(), lin.weight.grad.tolist())
handle.remove()
# --8<-- [end:hooks]
assert seen == [[[3.0]]]
assert x.grad.tolist() == [[60.0, -30.0]]         # 3 * weight, scaled by the hook
assert lin.weight.grad.tolist() == [[3.0, 3.0]]   # the weight's gradient is not grad_input
np.testing.assert_array_equal(lin.weight.detach().numpy(), [[2.0, -1.0]])
