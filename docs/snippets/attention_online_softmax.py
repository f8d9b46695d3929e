"""The attention kernel's arithmetic in NumPy, next to the plain formula and to glassgrad's fused op:
the online softmax of the forward (key tiles, a running maximum and sum, the log-sum-exp saved)
and the backward that recomputes the probabilities from it. docs/attention.md walks through it."""
import numpy as np

import glassgrad as gg
import glassgrad.nn.functional as F

rng = np.random.default_rng(0)
L, S, E, Ev = 10, 13, 8, 6
q, k, v = rng.standard_normal((L, E)), rng.standard_normal((S, E)), rng.standard_normal((S, Ev))
scale = 1 / np.sqrt(E)


# --8<-- [start:plain]
def attention_plain(q, k, v, scale):
    s = scale * q @ k.T                          # [L, S] scores
    p = np.exp(s - s.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)            # softmax along each row
    return p @ v                                 # [L, Ev]
# --8<-- [end:plain]


# --8<-- [start:online]
def attention_online(q, k, v, scale, tile=4):
    """One pass over the keys in tiles; only a [L, tile] block of scores exists at a time."""
    m = np.full(len(q), -np.inf)                 # running maximum of each row
    l = np.zeros(len(q))                         # running sum of exp(s - m)
    o = np.zeros((len(q), v.shape[1]))           # running sum of exp(s - m) v
    for j in range(0, len(k), tile):
        s = scale * q @ k[j:j + tile].T          # this tile's scores
        m_new = np.maximum(m, s.max(axis=1))
        a = np.exp(m - m_new)                    # rescales what was summed under the old maximum
        p = np.exp(s - m_new[:, None])
        l = a * l + p.sum(axis=1)
        o = a[:, None] * o + p @ v[j:j + tile]
        m = m_new
    return o / l[:, None], m + np.log(l)         # out, and the log-sum-exp the backward needs
# --8<-- [end:online]


# --8<-- [start:backward]
def attention_backward(g, q, k, v, out, lse, scale, tile=4):
    """dq, dk, dv of L = sum(g * out), recomputing p tile by tile from lse."""
    d = (g * out).sum(axis=1)                    # D_i = sum_j p_ij dp_ij = sum_e g_ie out_ie
    dq, dk, dv = np.zeros_like(q), np.zeros_like(k), np.zeros_like(v)
    for j in range(0, len(k), tile):
        kj, vj = k[j:j + tile], v[j:j + tile]
        p = np.exp(scale * q @ kj.T - lse[:, None])   # the forward's probabilities, recomputed
        dv[j:j + tile] = p.T @ g
        dp = g @ vj.T
        ds = p * (dp - d[:, None])               # the softmax's Jacobian applied to dp
        dq += scale * ds @ kj
        dk[j:j + tile] = scale * ds.T @ q
    return dq, dk, dv
# --8<-- [end:backward]


out_plain = attention_plain(q, k, v, scale)
out, lse = attention_online(q, k, v, scale)
print("online softmax vs plain formula:", np.abs(out - out_plain).max())

tq, tk, tv = (gg.tensor(a, requires_grad=True) for a in (q, k, v))
fused = F.scaled_dot_product_attention(tq, tk, tv)        # float64 here: scale defaults to 1/sqrt(E)
g = rng.standard_normal((L, Ev))
(fused * gg.tensor(g)).sum().backward()
print("glassgrad's fused op vs plain formula:", np.abs(fused.detach().numpy() - out_plain).max())
for name, mine, theirs in zip(("dq", "dk", "dv"), attention_backward(g, q, k, v, out, lse, scale), (tq, tk, tv)):
    print(f"{name}: NumPy twin vs glassgrad's backward kernel:", np.abs(mine - theirs.grad.numpy()).max())
    assert np.allclose(mine, theirs.grad.numpy(), atol=1e-12)
assert np.allclose(out, out_plain, atol=1e-12) and np.allclose(fused.detach().numpy(), out_plain, atol=1e-12)
