"""The Winograd weight gradient's transformed inputs V written by the transform straight in the
CPU GEMM's b_packed form, in NumPy: checked against packing V afterwards, the product read from
that form against Z^T V, and glassgrad's kernel on a layer of 32 input channels (two slivers)
against the formula. docs/cpu-threads.md walks through it."""
import numpy as np

import glassgrad.kernels as K

rng = np.random.default_rng(0)
L, NR = 8, 16                         # AVX2 float32: a vector's lanes, the GEMM's sliver columns


# --8<-- [start:store]
def packed_v_offset(t, ch, tiles):
    """Where the transform stores V[t, ch] (tile t of the block's `tiles`, channel ch) so that the
    buffer is the b_packed form of B = V [tiles, C]: NR-channel slivers, each as deep as the
    block's tiles, NR values a tile."""
    return (ch - ch % NR) * tiles + t * NR + ch % NR


def write_v(v):
    """V [tiles, C] stored vector by vector, as the transform does: NR is a multiple of L and C of
    NR, so each vector of L channels of one tile is one run of one sliver."""
    tiles, c = v.shape
    out = np.zeros(tiles * c)
    for t in range(tiles):
        for c0 in range(0, c, L):
            at = packed_v_offset(t, c0, tiles)
            out[at:at + L] = v[t, c0:c0 + L]
    return out


def pack_b(b):
    """B [k, n] -> the b_packed form: ceil(n / NR) slivers of NR columns, each k rows deep."""
    k, n = b.shape
    return b.reshape(k, n // NR, NR).transpose(1, 0, 2).ravel()


def gemm_packed_b(a, packed, n):
    """C [m, n] = A x B with B read from its packed form only, a sliver of NR columns at a time."""
    k = a.shape[1]
    slivers = packed.reshape(n // NR, k, NR)
    return np.concatenate([a @ s for s in slivers], axis=1)
# --8<-- [end:store]


# --8<-- [start:check]
tiles, k, c = 225, 20, 48             # three slivers of 16 input channels
z = rng.standard_normal((tiles, k))
v = rng.standard_normal((tiles, c))
written = write_v(v)
assert np.array_equal(written, pack_b(v))                       # the transform's writes = packing V
du = gemm_packed_b(z.T, written, c)                              # dU [K, C] = Z^T V, B read in place
assert np.allclose(du, z.T @ v, rtol=1e-12, atol=1e-12)

x = rng.standard_normal((1, 32, 30, 30)).astype(np.float32)    # 15 x 15 = 225 tiles of F(2x2, 3x3)
gy = rng.standard_normal((1, 20, 30, 30)).astype(np.float32)
(dw,) = K.run_numpy("Conv2DBackwardWeight", x, gy, weight_shape=[20, 32, 3, 3], stride=[1, 1], padding=[1, 1, 1, 1])
windows = np.lib.stride_tricks.sliding_window_view(np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1))),
                                                  (3, 3), axis=(2, 3))                # [n, c, 30, 30, 3, 3]
want = np.einsum("nkhw,nchwrs->kcrs", gy.astype(np.float64), windows)
assert np.max(np.abs(dw - want)) <= 2e-5 * np.max(np.abs(want))
print(f"V of {tiles} tiles x {c} channels written packed: {c // NR} slivers of {NR} channels")
# --8<-- [end:check]
