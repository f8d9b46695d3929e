"""Forward-mode AD's names on glassgrad (docs/autograd.md, "Forward-mode AD"): a dual tensor's
tangent carried through a function, checked against central differences."""
import numpy as np

import glassgrad as gg
import glassgrad.autograd.forward_ad as fwAD
from glassgrad.func import jvp

x = gg.tensor([0.5, -1.0, 2.0], dtype=gg.float64)
v = gg.tensor([1.0, 0.0, -1.0], dtype=gg.float64)


def fn(t):
    return t.tanh() * t.exp()


# --8<-- [start:dual]
with fwAD.dual_level():
    y = fn(fwAD.make_dual(x, v))
    primal, tangent = fwAD.unpack_dual(y)  # tangent = J(x) v
print(np.round(tangent.numpy(), 4).tolist())
out, jv = jvp(fn, (x,), (v,))  # torch.func.jvp: the same product
print(np.round(jv.numpy(), 4).tolist())
# --8<-- [end:dual]
eps = 1e-6
fd = (fn(x + eps * v) - fn(x - eps * v)).numpy() / (2 * eps)
assert np.allclose(tangent.numpy(), fd, atol=1e-7) and np.allclose(jv.numpy(), fd, atol=1e-7)
