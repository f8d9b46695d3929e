"""The CPU forward of a 1x1 convolution at a stride above 1 in NumPy: the GEMM's packed B panels
gathered straight from the images, one strided run per output row cut at the NR-wide slivers'
edges, next to packing the stored im2col matrix, the direct formula and glassgrad's kernel.
docs/cpu-threads.md walks through it."""
import numpy as np

import glassgrad.kernels as K

rng = np.random.default_rng(0)


# --8<-- [start:fill]
def fill_panel(x, sh, sw, pc, kc, j0, nc, nr):
    """Rows pc .. pc+kc (channels) and columns j0 .. j0+nc (pixels q = n*Ho*Wo + i*Wo + j of the
    images x [N, C, H, W] side by side) of im2col, in the GEMM's packed form: ceil(nc / nr)
    slivers of nr columns, sliver s holding column s*nr + l of row p at [s, p, l], zeros past
    nc. The walk goes by increments from the panel's first column: each run is one output row of
    one image (or the part of it inside one sliver), the same runs for every channel."""
    _, _, h, w = x.shape
    ho, wo = (h - 1) // sh + 1, (w - 1) // sw + 1
    slivers = -(-nc // nr)
    dst = np.zeros((slivers, kc, nr), x.dtype)
    q, n, i, j = 0, j0 // (ho * wo), j0 % (ho * wo) // wo, j0 % wo
    while q < nc:
        length = min(wo - j, nc - q, nr - q % nr)           # to the row's end, the panel's, the sliver's
        s, within = divmod(q, nr)
        row = x[n, pc:pc + kc, i * sh, j * sw:(j + length - 1) * sw + 1:sw]   # [kc, length]: a strided run
        dst[s, :, within:within + length] = row
        q, j = q + length, j + length
        if j == wo:
            j, i = 0, i + 1
            if i == ho:
                i, n = 0, n + 1
    return dst
# --8<-- [end:fill]


# --8<-- [start:check]
def pack_b(col, nr):
    """The GEMM's packing of a stored B [k, n]: the slivers of nr columns, zero-padded."""
    k, n = col.shape
    padded = np.zeros((k, -(-n // nr) * nr), col.dtype)
    padded[:, :n] = col
    return padded.reshape(k, -1, nr).transpose(1, 0, 2)


N, C, H, W, KO, SH, SW, NR = 5, 6, 9, 11, 7, 2, 3, 16
x = rng.standard_normal((N, C, H, W))
wt = rng.standard_normal((KO, C, 1, 1))
b = rng.standard_normal(KO)
ho, wo = (H - 1) // SH + 1, (W - 1) // SW + 1
col = np.concatenate([x[n, :, ::SH, ::SW].reshape(C, -1) for n in range(N)], axis=1)  # im2col, stored
for pc, kc, j0, nc in [(0, C, 0, N * ho * wo), (2, 3, 7, 29), (1, 4, 21, 16)]:  # panels starting mid-row
    assert np.array_equal(fill_panel(x, SH, SW, pc, kc, j0, nc, NR), pack_b(col[pc:pc + kc, j0:j0 + nc], NR))
panel = fill_panel(x, SH, SW, 0, C, 0, N * ho * wo, NR)                   # the whole B, one panel
out = np.concatenate(list(wt.reshape(KO, C) @ panel), axis=1)[:, :N * ho * wo]  # [K, images * Ho*Wo]
y = out.reshape(KO, N, ho, wo).transpose(1, 0, 2, 3) + b[None, :, None, None]
direct = np.einsum("nchw,kc->nkhw", x[:, :, ::SH, ::SW], wt[:, :, 0, 0]) + b[None, :, None, None]
(glassgrad_y,) = K.run_numpy("Conv2D", x, wt, b, stride=[SH, SW], padding=[0, 0, 0, 0])
for got in (y, glassgrad_y):
    assert np.allclose(got, direct, rtol=1e-12, atol=1e-12)
print("1x1 stride-(2, 3) panels gathered from the images give the stored im2col's packing and the direct conv")
# --8<-- [end:check]
