"""glassgrad.linalg in a port (docs/linalg.md), checked by the test suite."""
import numpy as np

import glassgrad.torch as torch

# --8<-- [start:solve]
A = torch.tensor([[4.0, 1.0], [2.0, 3.0]], requires_grad=True)
b = torch.tensor([1.0, 2.0])
x = torch.linalg.solve(A, b)              # A x = b; b [n] is a vector (PyTorch's rule)
(x.sum() + torch.logdet(A)).backward()    # gradients through the elimination steps
print([round(v, 4) for v in x.tolist()], [round(v, 4) for v in A.grad[0].tolist()])
# --8<-- [end:solve]
assert np.allclose(x.detach().numpy(), np.linalg.solve(A.detach().numpy(), b.numpy()))

# --8<-- [start:singular]
try:
    torch.linalg.inv(torch.zeros(2, 3, 3))
except torch.linalg.LinAlgError as e:
    print(e)
# --8<-- [end:singular]
