"""Winograd at stride 2 in NumPy: a 3x3 convolution at stride 2 is its even input samples
correlated at stride 1 with the outer taps (g0, g2), plus its odd samples times the middle tap
g1. F(2, 2) on the even part and the odd part as it is give 5 points for 2 outputs (direct: 6),
25 for a 2x2 output tile (direct: 36). The forward and the weight gradient next to the direct
formula and glassgrad's kernels. docs/cpu-threads.md walks through it
(core-runtime/kernels/winograd_transforms.h, F2Stride2)."""
import numpy as np

import glassgrad.kernels as K

rng = np.random.default_rng(0)
N, C, H, W, KO = 2, 9, 9, 19, 10    # odd sizes: partial tiles; rows of 9 or 10 outputs (glassgrad
                                     # takes this tile for rows wider than 8)

# --8<-- [start:transforms]
# 1-D: two outputs y0 = d0 g0 + d1 g1 + d2 g2, y1 = d2 g0 + d3 g1 + d4 g2 from d[0..4].
BT = np.array([[1, 0, -1, 0, 0],    # (d0 - d2) g0           \
               [0, 0, 1, 0, 0],     # d2 (g0 + g2)            } F(2, 2) on d0, d2, d4
               [0, 0, -1, 0, 1],    # (d4 - d2) g2           /
               [0, 1, 0, 0, 0],     # d1 g1                  \  the odd samples
               [0, 0, 0, 1, 0]], float)  # d3 g1             /
G = np.array([[1, 0, 0], [1, 0, 1], [0, 0, 1], [0, 1, 0], [0, 1, 0]], float)
AT = np.array([[1, 1, 0, 1, 0], [0, 1, 1, 0, 1]], float)


def windows(x, pad):
    """d [N, T, C, 5, 5]: the 5x5 input window of every 2x2 output tile, one every 4 pixels."""
    ho, wo = (x.shape[2] + 2 * pad - 3) // 2 + 1, (x.shape[3] + 2 * pad - 3) // 2 + 1
    th, tw = -(-ho // 2), -(-wo // 2)
    xp = np.zeros((N, C, 4 * th + 1, 4 * tw + 1))  # zeros past the image cover partial tiles
    hh, ww = min(x.shape[2], 4 * th + 1 - pad), min(x.shape[3], 4 * tw + 1 - pad)
    xp[:, :, pad:pad + hh, pad:pad + ww] = x[:, :, :hh, :ww]
    d = np.stack([xp[:, :, 4 * i:4 * i + 5, 4 * j:4 * j + 5] for i in range(th) for j in range(tw)], 1)
    return d, ho, wo, th, tw


def forward(x, w, pad):
    """y = conv2d(x, w, stride 2): 25 point products [T, C] x [C, K] (the GEMMs of the kernel)."""
    d, ho, wo, th, tw = windows(x, pad)
    V = np.einsum("ab,ntcbe,fe->afntc", BT, d, BT)              # [5, 5, N, T, C]
    U = np.einsum("ab,kcbe,fe->afck", G, w, G)                  # [5, 5, C, K]
    M = np.einsum("afntc,afck->afntk", V, U)                    # 25 GEMMs
    y = np.einsum("ab,bentk,fe->ntkaf", AT, M, AT)              # [N, T, K, 2, 2]
    y = y.reshape(N, th, tw, -1, 2, 2).transpose(0, 3, 1, 4, 2, 5).reshape(N, -1, 2 * th, 2 * tw)
    return y[:, :, :ho, :wo]


def weight_gradient(x, gy, pad):
    """dw = G^T [sum over tiles of (B^T d B) (.) (A gy A^T)] G: the adjoint of forward in w."""
    d, ho, wo, th, tw = windows(x, pad)
    g = np.zeros((N, gy.shape[1], 2 * th, 2 * tw))
    g[:, :, :ho, :wo] = gy
    gt = np.stack([g[:, :, 2 * i:2 * i + 2, 2 * j:2 * j + 2] for i in range(th) for j in range(tw)], 1)
    V = np.einsum("ab,ntcbe,fe->afntc", BT, d, BT)
    Z = np.einsum("ba,ntkbe,ef->afntk", AT, gt, AT)             # A gy A^T: [5, 5, N, T, K]
    dU = np.einsum("afntk,afntc->afkc", Z, V)                   # 25 GEMMs, summed over tiles
    return np.einsum("ab,afkc,fe->kcbe", G, dU, G)              # G^T dU G: [K, C, 3, 3]
# --8<-- [end:transforms]


# --8<-- [start:check]
def direct(x, w, pad):
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    ho, wo = (xp.shape[2] - 3) // 2 + 1, (xp.shape[3] - 3) // 2 + 1
    return np.einsum("nchwrs,kcrs->nkhw", np.stack(
        [np.stack([xp[:, :, r:r + 2 * ho:2, s:s + 2 * wo:2] for s in range(3)], -1) for r in range(3)], -2), w)


x = rng.standard_normal((N, C, H, W))
w = rng.standard_normal((KO, C, 3, 3))
for pad in (0, 1):
    y = direct(x, w, pad)
    gy = rng.standard_normal(y.shape)
    dw = np.einsum("nkhw,nchwrs->kcrs", gy, np.stack([np.stack(
        [np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))[:, :, r:r + 2 * y.shape[2]:2, s:s + 2 * y.shape[3]:2]
         for s in range(3)], -1) for r in range(3)], -2))
    assert np.allclose(forward(x, w, pad), y)
    assert np.allclose(weight_gradient(x, gy, pad), dw)
    attrs = dict(stride=[2, 2], padding=[pad] * 4)
    (glassgrad_y,) = K.run_numpy("Conv2D", x, w, **attrs)
    (glassgrad_dw,) = K.run_numpy("Conv2DBackwardWeight", x, gy, weight_shape=list(w.shape), **attrs)
    assert np.allclose(glassgrad_y, y) and np.allclose(glassgrad_dw, dw)
print("25 products a 2x2 tile and channel pair instead of 36; glassgrad's kernels agree")
# --8<-- [end:check]
