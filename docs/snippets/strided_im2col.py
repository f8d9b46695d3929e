"""The CPU stride-2 convolution's im2col in NumPy: the row gather as two 4-wide loads and a
shuffle of their even lanes, the number of images one GEMM takes so that its NR-wide tiles
are full, and the weight gradient's product transposed when K fills them better than C*R*S,
next to the direct formula and glassgrad's kernel. docs/cpu-threads.md walks through it."""
import numpy as np

import glassgrad.kernels as K

rng = np.random.default_rng(0)


# --8<-- [start:gather]
def gather_stride2(src, n, readable=0):
    """dst[j] = src[2 j] for j < n, four values a step: two 4-wide loads (src[2j : 2j + 8]) and
    their even lanes. `readable` values from src on may be read (im2col passes the rest of the
    image row); at least the 2(n - 1) + 1 the copy needs. A step reads one value past its last
    even lane, so the steps stop where src[2j + 7] would not be readable; the rest goes one value
    at a time."""
    avail = max(readable, 2 * n - 1)
    dst = np.empty(n, src.dtype)
    j = 0
    while j + 4 <= n and 2 * j + 8 <= avail:
        a, b = src[2 * j:2 * j + 4], src[2 * j + 4:2 * j + 8]
        dst[j:j + 4] = np.concatenate([a, b])[[0, 2, 4, 6]]     # the shuffle: lanes 0, 2, 4, 6
        j += 4
    dst[j:n] = src[2 * j:2 * n - 1:2]
    return dst
# --8<-- [end:gather]


# --8<-- [start:im2col]
def im2col_stride2(x, r_size, pad):
    """col [C*R*S, Ho*Wo] of one image x [C, H, W] at stride 2: each (c, r, s) row is, per
    output row i, one gather of input row 2i + r - pad from column 2 j_lo + s - pad, with zeros
    where the tap falls in the padding (the valid range [j_lo, j_hi) is computed once a row)."""
    c_in, h, w = x.shape
    ho, wo = (h + 2 * pad - r_size) // 2 + 1, (w + 2 * pad - r_size) // 2 + 1
    col = np.zeros((c_in * r_size * r_size, ho * wo), x.dtype)
    for c in range(c_in):
        for r in range(r_size):
            for s in range(r_size):
                row = col[(c * r_size + r) * r_size + s].reshape(ho, wo)
                j_lo = max(0, -(-(pad - s) // 2))                     # 2j + s - pad >= 0
                j_hi = min(wo, (w - 1 + pad - s) // 2 + 1)            # 2j + s - pad <= w - 1
                for i in range(ho):
                    hi = 2 * i + r - pad
                    if 0 <= hi < h and j_hi > j_lo:
                        start = 2 * j_lo + s - pad                       # readable: the rest of the row
                        row[i, j_lo:j_hi] = gather_stride2(x[c, hi, start:], j_hi - j_lo, w - start)
    return col
# --8<-- [end:im2col]


# --8<-- [start:batch]
def images_per_gemm(hwo, n_images, nr=48):
    """Images side by side on the forward GEMM's pixel axis: at least four NR-wide tiles of
    columns, then up to four times that many images, the first count whose columns waste at
    most 1/32 of the last tiles (ResNet-18's 16x16 outputs: 1 image is 5 1/3 tiles, 2 are 10 2/3)."""
    least = max(1, min(n_images, -(-4 * nr // hwo)))
    for nb in range(least, min(n_images, 4 * least) + 1):
        padded = -(-nb * hwo // nr) * nr
        if 32 * (padded - nb * hwo) <= padded:
            return nb
    return least
# --8<-- [end:batch]


# --8<-- [start:transposed]
def weight_transposed(crs, k, nr=48):
    """The weight gradient's GEMM as dw^T [CRS, K] = col x gy^T when that computes at least 1/8
    fewer products, padding of the last NR-wide tile included, than dw [K, CRS] = gy x col^T."""
    padded_k, padded_crs = -(-k // nr) * nr, -(-crs // nr) * nr
    return 8 * padded_k * crs <= 7 * padded_crs * k


def weight_gradient_1x1_stride2(x, gy):
    """dw [K, C] of a 1x1 stride-2 conv: col is x subsampled (im2col), then one product or the
    other; the transposed one is added to dw transposed."""
    col = np.concatenate([x[n, :, ::2, ::2].reshape(x.shape[1], -1) for n in range(len(x))], axis=1)
    g = np.concatenate([gy[n].reshape(gy.shape[1], -1) for n in range(len(gy))], axis=1)
    if weight_transposed(col.shape[0], g.shape[0]):
        return (col @ g.T).T                      # dw^T [C, K], then transposed into dw
    return g @ col.T                              # dw [K, C]
# --8<-- [end:transposed]


# --8<-- [start:check]
N, C, H, W, KO, R, P = 5, 3, 32, 31, 4, 3, 1
x = rng.standard_normal((N, C, H, W))
wt = rng.standard_normal((KO, C, R, R))
ho, wo = (H + 2 * P - R) // 2 + 1, (W + 2 * P - R) // 2 + 1
xp = np.pad(x, ((0, 0), (0, 0), (P, P), (P, P)))
direct = sum(np.einsum("nchw,kc->nkhw", xp[:, :, r:r + 2 * ho:2, s:s + 2 * wo:2], wt[:, :, r, s])
             for r in range(R) for s in range(R))                       # y = sum over taps of w x shifted
nb = images_per_gemm(ho * wo, N)
assert (images_per_gemm(256, 32), images_per_gemm(64, 32), images_per_gemm(16, 32)) == (2, 3, 12)
y = np.empty_like(direct)
for n0 in range(0, N, nb):                                              # one GEMM per batch of images
    col = np.concatenate([im2col_stride2(x[n], R, P) for n in range(n0, min(n0 + nb, N))], axis=1)
    out = wt.reshape(KO, -1) @ col                                      # [K, images * Ho*Wo]
    y[n0:n0 + nb] = out.reshape(KO, -1, ho, wo).transpose(1, 0, 2, 3)
(glassgrad_y,) = K.run_numpy("Conv2D", x, wt, stride=[2, 2], padding=[P, P, P, P])
for got in (y, glassgrad_y):
    assert np.allclose(got, direct, rtol=1e-12, atol=1e-12)
assert weight_transposed(64, 128) and not weight_transposed(256, 512)   # ResNet-18's layer2.0 / layer4.0 shortcuts
x1, gy1 = rng.standard_normal((3, 64, 16, 16)), rng.standard_normal((3, 128, 8, 8))
(glassgrad_dw,) = K.run_numpy("Conv2DBackwardWeight", x1, gy1, stride=[2, 2], padding=[0, 0, 0, 0],
                              weight_shape=[128, 64, 1, 1])
assert np.allclose(weight_gradient_1x1_stride2(x1, gy1), glassgrad_dw[:, :, 0, 0], rtol=1e-12, atol=1e-12)
print(f"stride-2 im2col + GEMM in batches of {nb} images gives the direct convolution, as glassgrad's kernel")
# --8<-- [end:check]
