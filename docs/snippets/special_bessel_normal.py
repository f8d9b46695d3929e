"""torch.special's Bessel, normal-distribution and zeta functions on glassgrad
(docs/special-functions.md, "Bessel, normal and zeta functions"), checked against closed forms."""
import math

import numpy as np

import glassgrad.torch as torch

# --8<-- [start:use]
x = torch.tensor([0.0, 1.0, 10.0], dtype=torch.float64, requires_grad=True)
i0 = torch.special.i0(x)          # also torch.i0(x), x.i0()
scaled = torch.special.i0e(x)     # e^-|x| i0(x): no overflow for large x
i0.sum().backward()               # d/dx i0 = i1
print(np.round(x.grad.numpy(), 6).tolist())
p = torch.special.ndtr(torch.tensor([-1.0, 0.0, 1.96]))
z = torch.special.ndtri(p)        # the inverse: back to the quantiles
print([round(v, 4) for v in p.tolist()], [round(v, 4) for v in z.tolist()])
print(round(torch.special.log_ndtr(torch.tensor([-40.0])).item(), 2))  # no underflow to log(0)
print(round(torch.special.zeta(2.0, torch.tensor([1.0])).item(), 6))  # Hurwitz zeta(2, 1) = pi^2/6
# --8<-- [end:use]
assert np.allclose(x.grad.numpy(), torch.special.i1(x.detach()).numpy())
assert np.allclose(scaled.detach().numpy(), i0.detach().numpy() * np.exp(-np.abs([0.0, 1.0, 10.0])))
assert np.allclose(z.numpy(), [-1.0, 0.0, 1.96], atol=1e-6)
assert abs(torch.special.zeta(2.0, torch.tensor([1.0])).item() - math.pi ** 2 / 6) < 1e-6
