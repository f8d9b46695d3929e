"""The CPU GEMM's packed A in NumPy: a conv's weights packed once a call into MR-row slivers per
block of KC columns, then read in place by the GEMM of every image batch, next to the plain
product and glassgrad's kernel. docs/cpu-threads.md walks through it."""
import numpy as np

import glassgrad.kernels as K

rng = np.random.default_rng(0)
MR, KC, NR = 8, 192, 48            # the AVX-512 float32 loop nest's tile and K block (gemm_avx512.cpp)


# --8<-- [start:pack]
def pack_a(a):
    """A [m, k] -> the a_packed form: for each block of KC columns (the last may be narrower),
    ceil(m / MR) slivers of MR rows, each stored column by column (MR values a column), rows
    past m zero. Block pc starts at pc * Mp, Mp = m rounded up to MR."""
    m, k = a.shape
    mp = -(-m // MR) * MR
    padded = np.zeros((mp, k), a.dtype)
    padded[:m] = a
    out = np.empty(mp * k, a.dtype)
    for pc in range(0, k, KC):
        kc = min(KC, k - pc)
        block = padded[:, pc:pc + kc].reshape(mp // MR, MR, kc).transpose(0, 2, 1)  # [slivers, kc, MR]
        out[pc * mp:pc * mp + mp * kc] = block.ravel()
    return out


def gemm_packed(packed, m, b):
    """C [m, n] = A x B with A read from its packed form only: the K blocks in order, and in each
    the sliver of rows i0 .. i0 + MR (at pc * Mp + i0 * kc) times the block's rows of B."""
    k, n = b.shape
    mp = -(-m // MR) * MR
    c = np.zeros((mp, n), b.dtype)
    for pc in range(0, k, KC):
        kc = min(KC, k - pc)
        for i0 in range(0, mp, MR):
            start = pc * mp + i0 * kc
            sliver = packed[start:start + kc * MR].reshape(kc, MR)                  # [kc, MR]
            c[i0:i0 + MR] += sliver.T @ b[pc:pc + kc]
    return c[:m]
# --8<-- [end:pack]


# --8<-- [start:check]
N, C, H, W, KO = 4, 24, 8, 8, 20                     # 3x3 stride 2, padding 1: CRS = 216 > KC
x = rng.standard_normal((N, C, H, W))
wt = rng.standard_normal((KO, C, 3, 3))
ho, wo = H // 2, W // 2
xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
packed = pack_a(wt.reshape(KO, -1))                   # once a call, whatever the number of batches
y = np.empty((N, KO, ho, wo))
for n in range(N):                                    # one GEMM an image, all reading `packed`
    col = np.stack([xp[n, c, r:r + 2 * ho:2, s:s + 2 * wo:2].ravel()
                    for c in range(C) for r in range(3) for s in range(3)])      # im2col [CRS, Ho*Wo]
    y[n] = gemm_packed(packed, KO, col).reshape(KO, ho, wo)
direct = sum(np.einsum("nchw,kc->nkhw", xp[:, :, r:r + 2 * ho:2, s:s + 2 * wo:2], wt[:, :, r, s])
             for r in range(3) for s in range(3))
(glassgrad_y,) = K.run_numpy("Conv2D", x, wt, stride=[2, 2], padding=[1, 1, 1, 1])
for got in (y, glassgrad_y):
    assert np.allclose(got, direct, rtol=1e-12, atol=1e-12)
print(f"weights packed once ({packed.size} values for {wt.size}) serve every image's GEMM")
# --8<-- [end:check]
