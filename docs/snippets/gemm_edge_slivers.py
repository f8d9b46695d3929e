"""The CPU GEMM's edge slivers in NumPy: each MR x NR tile multiplies only the vectors of B that
its columns reach, so a product whose N is not a multiple of NR (64 = 48 + 16 output channels)
spends no multiply-adds on the zero padding of its last sliver; next to the plain product and
glassgrad's kernel. docs/performance.md walks through it."""
import numpy as np

import glassgrad.kernels as K

rng = np.random.default_rng(0)
MR, NR, LANES = 8, 48, 16          # the AVX-512 float32 tile and vector width (gemm_avx512.cpp)


# --8<-- [start:tile]
def micro_tile(a_sliver, b_sliver, nr):
    """C [MR, nr] from a sliver of packed A [kc, MR] and one of packed B [kc, NR] whose columns
    past nr are zero: the kernel of nv = ceil(nr / LANES) vectors runs (micro_tile in gemm_impl.h
    picks the narrowest that covers nr), so the sliver's columns past nv vectors are never read.
    Returns the tile and its multiply-adds."""
    nv = -(-nr // LANES)
    tile = a_sliver.T @ b_sliver[:, :nv * LANES]
    return tile[:, :nr], a_sliver.shape[0] * MR * nv * LANES


def gemm(a, b):
    """C = A x B tile by tile, B in NR-wide slivers zero-padded past n, A in MR-row slivers."""
    m, k = a.shape
    n = b.shape[1]
    c = np.zeros((m, n))
    macs = 0
    for j0 in range(0, n, NR):
        nr = min(NR, n - j0)
        b_sliver = np.zeros((k, NR))
        b_sliver[:, :nr] = b[:, j0:j0 + nr]
        for i0 in range(0, m, MR):
            rows = min(MR, m - i0)
            a_sliver = np.zeros((k, MR))
            a_sliver[:, :rows] = a[i0:i0 + rows].T
            tile, tile_macs = micro_tile(a_sliver, b_sliver, nr)
            c[i0:i0 + rows, j0:j0 + nr] = tile[:rows]
            macs += tile_macs
    return c, macs
# --8<-- [end:tile]


# --8<-- [start:check]
# One Winograd point of ResNet-18's 64-channel layers: 96 tiles x 64 channels in, 64 out.
a = rng.standard_normal((96, 64))
b = rng.standard_normal((64, 64))
c, macs = gemm(a, b)
full_width = 96 * 64 * 2 * NR      # both slivers of B at their full 48 columns
(glassgrad_c,) = K.run_numpy("MatMul", a, b)
for got in (c, glassgrad_c):
    assert np.allclose(got, a @ b, rtol=1e-12, atol=1e-12)
assert macs * 3 == full_width * 2  # 48 + 16 columns computed, not 48 + 48
print(f"{macs} multiply-adds against {full_width} with full-width tiles")
# --8<-- [end:check]
