"""im2col gathered straight into the CPU GEMM's packed B panels, in NumPy: the phase planes of a
strided conv's input, each im2col row a set of contiguous runs of one plane, written sliver by
sliver where the GEMM reads them, next to the direct formula and glassgrad's kernel.
docs/cpu-threads.md walks through it."""
import numpy as np

import glassgrad.kernels as K

rng = np.random.default_rng(0)
NR, KC = 48, 192                    # the AVX-512 float32 loop nest's tile width and K block


# --8<-- [start:planes]
def phase_planes(xc, sh, sw, pt, pl, hq, wq):
    """Channel xc [H, W] -> planes [sh, sw, hq, wq]: plane (ph, pw) holds the zero-padded channel's
    pixels at rows a*sh + ph, columns b*sw + pw. One strided pass over the channel."""
    h, w = xc.shape
    xpad = np.zeros((hq * sh + sh, wq * sw + sw), xc.dtype)   # room for every plane's last pixel
    rows, cols = min(h, xpad.shape[0] - pt), min(w, xpad.shape[1] - pl)
    xpad[pt:pt + rows, pl:pl + cols] = xc[:rows, :cols]
    return np.stack([np.stack([xpad[ph::sh, pw::sw][:hq, :wq] for pw in range(sw)]) for ph in range(sh)])


def im2col_row(planes, r, s, sh, sw, ho, wo):
    """Tap (r, s): output pixel (i, j) reads xpad[i*sh + r][j*sw + s], which is plane
    (r % sh, s % sw) at (i + r // sh, j + s // sw): Ho runs of Wo contiguous values."""
    p = planes[r % sh, s % sw]
    return p[r // sh:r // sh + ho, s // sw:s // sw + wo].ravel()
# --8<-- [end:planes]


# --8<-- [start:panel]
def fill_panel(x, kr, ks, stride, pad, pc, kc, j0, nc):
    """The GEMM's packed panel of B = im2col of the images x [N, C, H, W] (columns: image by
    image, pixel by pixel) for rows pc .. pc+kc and columns j0 .. j0+nc: ceil(nc / NR) slivers,
    sliver t holding B[pc + p, j0 + t*NR + j] at [t, p, j], zeros past column nc. The planes of a
    channel are built when the panel reaches it; nothing else is stored."""
    n_img, c_in, h, w = x.shape
    ho, wo = (h + 2 * pad - kr) // stride + 1, (w + 2 * pad - ks) // stride + 1
    hq, wq = ho + (kr - 1) // stride, wo + (ks - 1) // stride
    slivers = -(-nc // NR)
    panel = np.zeros((slivers, kc, NR), x.dtype)
    flat = panel.transpose(1, 0, 2).reshape(kc, slivers * NR)  # a view: row p, column q
    for tap in range(pc, pc + kc):
        c, r, s = tap // (kr * ks), tap // ks % kr, tap % ks
        row = np.concatenate([im2col_row(phase_planes(x[n, c], stride, stride, pad, pad, hq, wq),
                                         r, s, stride, stride, ho, wo) for n in range(n_img)])
        flat[tap - pc, :nc] = row[j0:j0 + nc]
    return panel


def gemm_from_panels(a, x, kr, ks, stride, pad):
    """C = A x im2col(x), B only ever seen as panels: K blocks of KC rows, all columns at once."""
    crs = a.shape[1]
    n_cols = x.shape[0] * (((x.shape[2] + 2 * pad - kr) // stride + 1) * ((x.shape[3] + 2 * pad - ks) // stride + 1))
    c = np.zeros((a.shape[0], n_cols))
    for pc in range(0, crs, KC):
        kc = min(KC, crs - pc)
        panel = fill_panel(x, kr, ks, stride, pad, pc, kc, 0, n_cols)
        for t in range(panel.shape[0]):                            # one NR-wide sliver at a time
            cols = slice(t * NR, min((t + 1) * NR, n_cols))
            c[:, cols] += (a[:, pc:pc + kc] @ panel[t])[:, :cols.stop - cols.start]
    return c
# --8<-- [end:panel]


# --8<-- [start:check]
N, C, H, W, KO = 3, 24, 8, 8, 10           # 3x3 stride 2, padding 1: CRS = 216 > KC
x = rng.standard_normal((N, C, H, W))
wt = rng.standard_normal((KO, C, 3, 3))
ho, wo = H // 2, W // 2
y = gemm_from_panels(wt.reshape(KO, -1), x, 3, 3, 2, 1)                 # [KO, N*Ho*Wo]
y = y.reshape(KO, N, ho, wo).transpose(1, 0, 2, 3)
xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
direct = sum(np.einsum("nchw,kc->nkhw", xp[:, :, r:r + 2 * ho:2, s:s + 2 * wo:2], wt[:, :, r, s])
             for r in range(3) for s in range(3))
(glassgrad_y,) = K.run_numpy("Conv2D", x, wt, stride=[2, 2], padding=[1, 1, 1, 1])
for got in (y, glassgrad_y):
    assert np.allclose(got, direct, rtol=1e-12, atol=1e-12)
# A panel that starts inside an image and ends inside a sliver, against the im2col matrix itself.
col = np.concatenate([np.stack([xp[n, c, r:r + 2 * ho:2, s:s + 2 * wo:2].ravel()
                                for c in range(C) for r in range(3) for s in range(3)]) for n in range(N)], axis=1)
panel = fill_panel(x, 3, 3, 2, 1, pc=5, kc=40, j0=7, nc=30)
assert np.array_equal(panel.transpose(1, 0, 2).reshape(40, -1)[:, :30], col[5:45, 7:37])
assert not panel.transpose(1, 0, 2).reshape(40, -1)[:, 30:].any()
print(f"the [{C * 9}, {N * ho * wo}] im2col matrix was only ever written as packed panels")
# --8<-- [end:check]
