"""Layer normalization's gradient in NumPy, as the LayerNorm kernels compute it, checked against
central finite differences and against glassgrad's LayerNorm op (F.layer_norm).
docs/gpt-step.md derives it."""
import numpy as np

import glassgrad as gg
import glassgrad.nn.functional as F

rng = np.random.default_rng(0)
x = rng.standard_normal((5, 7)) * 3 + 1
w, b = rng.uniform(0.5, 1.5, 7), rng.standard_normal(7)
g = rng.standard_normal((5, 7))
eps = 1e-5


# --8<-- [start:forward]
def layer_norm(x, w, b, eps):
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)     # biased: divide by the row's size
    rstd = 1 / np.sqrt(var + eps)
    return (x - mean) * rstd * w + b, mean, rstd            # y, and what the backward reads
# --8<-- [end:forward]


# --8<-- [start:backward]
def layer_norm_backward(g, x, mean, rstd, w):
    xhat = (x - mean) * rstd
    gw = g * w                                              # the gradient at xhat
    # dx: gw minus its row mean (through the mean) and minus its projection on xhat (through rstd)
    dx = rstd * (gw - gw.mean(axis=1, keepdims=True) - xhat * (gw * xhat).mean(axis=1, keepdims=True))
    return dx, (g * xhat).sum(axis=0), g.sum(axis=0)        # dx, dweight, dbias (sums over the rows)
# --8<-- [end:backward]


y, mean, rstd = layer_norm(x, w, b, eps)
dx, dw, db = layer_norm_backward(g, x, mean, rstd, w)

# Finite differences of L = sum(g * y) with respect to x.
numeric = np.zeros_like(x)
for i in np.ndindex(x.shape):
    up, down = x.copy(), x.copy()
    up[i] += 1e-6
    down[i] -= 1e-6
    numeric[i] = ((layer_norm(up, w, b, eps)[0] - layer_norm(down, w, b, eps)[0]) * g).sum() / 2e-6
assert np.allclose(dx, numeric, rtol=1e-6, atol=1e-7)

# glassgrad's LayerNorm op, forward and backward, in float64.
xt = gg.tensor(x, requires_grad=True)
wt, bt = gg.tensor(w, requires_grad=True), gg.tensor(b, requires_grad=True)
(F.layer_norm(xt, (7,), wt, bt, eps) * gg.tensor(g)).sum().backward()
assert np.allclose(F.layer_norm(gg.tensor(x), (7,), gg.tensor(w), gg.tensor(b), eps).numpy(), y, atol=1e-12)
for got, want in ((xt.grad, dx), (wt.grad, dw), (bt.grad, db)):
    assert np.allclose(got.numpy(), want, rtol=1e-10, atol=1e-12)
print("layer norm: the NumPy gradient matches finite differences and glassgrad's kernels")
