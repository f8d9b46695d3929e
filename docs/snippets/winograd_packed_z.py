"""The Winograd weight gradient's transformed gradients Z written by the transform straight in
the CPU GEMM's a_packed form, in NumPy: checked against packing Z^T afterwards (packed_weights.py's
pack_a), the product read from that form against Z^T V, and glassgrad's kernel on a layer of
225 tiles (a block of KC tiles and a partial one) against the formula. docs/cpu-threads.md
walks through it."""
import numpy as np

import glassgrad.kernels as K
from packed_weights import KC, MR, gemm_packed, pack_a

rng = np.random.default_rng(0)
L = 16                                # float32 lanes of an AVX-512 vector: two slivers of MR = 8


# --8<-- [start:store]
def packed_z_offset(t, ch, tiles, kp):
    """Where the transform stores Z[t, ch] (tile t of the block's `tiles`, channel ch < kp, kp = K
    rounded up to L) so that the buffer is the a_packed form of A = Z^T [kp, tiles]: blocks of KC
    tiles, in each the MR-channel slivers (kcb tiles of MR values) one after another."""
    pc = t - t % KC                   # first tile of t's block
    kcb = min(KC, tiles - pc)         # tiles in that block (the last may have fewer)
    return pc * kp + (ch - ch % MR) * kcb + (t - pc) * MR + ch % MR


def write_z(z, kp):
    """Z [tiles, K] stored vector by vector, as the transform does: each vector of L channels of
    one tile is two runs of MR values, MR * kcb apart."""
    tiles, k = z.shape
    out = np.zeros(tiles * kp)
    padded = np.zeros((tiles, kp))
    padded[:, :k] = z
    for t in range(tiles):
        for c0 in range(0, kp, L):
            for half in range(0, L, MR):
                at = packed_z_offset(t, c0 + half, tiles, kp)
                out[at:at + MR] = padded[t, c0 + half:c0 + half + MR]
    return out
# --8<-- [end:store]


# --8<-- [start:check]
tiles, k, c = 225, 20, 24             # 225 tiles: a block of KC = 192 and one of 33; K = 20 -> kp = 32
z = rng.standard_normal((tiles, k))
v = rng.standard_normal((tiles, c))
kp = -(-k // L) * L
written = write_z(z, kp)
zt = np.zeros((kp, tiles))
zt[:k] = z.T
assert np.array_equal(written, pack_a(zt))                      # the transform's writes = packing Z^T
du = gemm_packed(written, kp, v)[:k]                             # dU [K, C] = Z^T V, A read in place
assert np.allclose(du, z.T @ v, rtol=1e-12, atol=1e-12)

x = rng.standard_normal((1, 8, 30, 30)).astype(np.float32)     # 15 x 15 = 225 tiles of F(2x2, 3x3)
gy = rng.standard_normal((1, 20, 30, 30)).astype(np.float32)
(dw,) = K.run_numpy("Conv2DBackwardWeight", x, gy, weight_shape=[20, 8, 3, 3], stride=[1, 1], padding=[1, 1, 1, 1])
xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
want = np.stack([np.stack([np.einsum("nkhw,nchw->kc", gy.astype(np.float64), xp[:, :, r:r + 30, s:s + 30])
                           for s in range(3)], -1) for r in range(3)], -2)
assert np.max(np.abs(dw - want)) <= 2e-5 * np.max(np.abs(want))
print(f"Z of {tiles} tiles x {k} channels written packed: {written.size} values, as many as Z padded to {kp}")
# --8<-- [end:check]
