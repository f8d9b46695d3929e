"""The CPU's 3x3 stride-2 convolutions by tap groups in NumPy: with even H and W every tap that
falls in the padding is at the top row or the left column of the output, so the taps split into
four groups each read (inside the image) by one contiguous range of the output pixels, once the
pixels of a batch are ordered corner | left | interior | top. Four GEMMs over only those ranges
give the convolution and its weight gradient with none of the padding's zeros multiplied; next to
glassgrad's kernels. docs/performance.md walks through it (core-runtime/kernels/cpu/conv_pad_classes.h)."""
import numpy as np

import glassgrad.kernels as K

rng = np.random.default_rng(0)


# --8<-- [start:classes]
TAP_RS = [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 1), (2, 2), (1, 0), (2, 0)]
GROUP_TAPS = [(0, 1), (1, 3), (3, 7), (7, 9)]  # G0 | G1 | G2 | G3: taps [t0, t1) of TAP_RS


def class_order(nb, ho, wo):
    """(b, i, j) of each pixel of a batch: corner, left column, interior, top row."""
    corner = [(b, 0, 0) for b in range(nb)]
    left = [(b, i, 0) for b in range(nb) for i in range(1, ho)]
    interior = [(b, i, j) for b in range(nb) for i in range(1, ho) for j in range(1, wo)]
    top = [(b, 0, j) for b in range(nb) for j in range(1, wo)]
    order = corner + left + interior + top
    # The pixels that read group G inside the image (G0: interior; G1: left + interior;
    # G2: all; G3: interior + top).
    lo_i, lo_t = len(corner) + len(left), len(corner) + len(left) + len(interior)
    reach = [(lo_i, lo_t), (len(corner), lo_t), (0, len(order)), (lo_i, len(order))]
    return order, reach


def im2col_classes(x):
    """col [9C, pixels]: row t*C + c is tap TAP_RS[t] of channel c, pixels in class order."""
    nb, c, h, w = x.shape
    ho, wo = h // 2, w // 2
    xp = np.pad(x, ((0, 0), (0, 0), (1, 0), (1, 0)))  # no window reaches past the bottom or right
    order, reach = class_order(nb, ho, wo)
    col = np.empty((9 * c, len(order)))
    for t, (r, s) in enumerate(TAP_RS):
        for p, (b, i, j) in enumerate(order):
            col[t * c:(t + 1) * c, p] = xp[b, :, 2 * i + r, 2 * j + s]
    return col, order, reach


def forward(x, w):
    """y = conv2d(x, w, stride 2, padding 1) as four GEMMs; returns y and the multiply-adds."""
    k, c = w.shape[:2]
    col, order, reach = im2col_classes(x)
    wt = np.concatenate([w[:, :, r, s] for r, s in TAP_RS], axis=1)  # [K, 9C], tap-major
    yc = np.zeros((k, len(order)))
    macs = 0
    for (t0, t1), (lo, hi) in zip(GROUP_TAPS, reach):
        yc[:, lo:hi] += wt[:, t0 * c:t1 * c] @ col[t0 * c:t1 * c, lo:hi]
        macs += k * (t1 - t0) * c * (hi - lo)
    y = np.empty((x.shape[0], k, x.shape[2] // 2, x.shape[3] // 2))
    for p, (b, i, j) in enumerate(order):
        y[b, :, i, j] = yc[:, p]
    return y, macs


def weight_gradient(x, gy):
    """dw [K, C, 3, 3] as four GEMMs gy' x col^T, each over the pixels its tap group reaches."""
    k, c = gy.shape[1], x.shape[1]
    col, order, reach = im2col_classes(x)
    gyc = np.stack([gy[b, :, i, j] for b, i, j in order], axis=1)  # [K, pixels], class order
    dwt = np.zeros((k, 9 * c))
    for (t0, t1), (lo, hi) in zip(GROUP_TAPS, reach):
        dwt[:, t0 * c:t1 * c] = gyc[:, lo:hi] @ col[t0 * c:t1 * c, lo:hi].T
    dw = np.empty((k, c, 3, 3))
    for t, (r, s) in enumerate(TAP_RS):
        dw[:, :, r, s] = dwt[:, t * c:(t + 1) * c]
    return dw
# --8<-- [end:classes]


# --8<-- [start:check]
# Three images of layer4.0.conv1's 8x8 input (4x4 outputs), fewer channels.
x = rng.standard_normal((3, 16, 8, 8))
wt = rng.standard_normal((24, 16, 3, 3))
gy = rng.standard_normal((3, 24, 4, 4))
y, macs = forward(x, wt)
(glassgrad_y,) = K.run_numpy("Conv2D", x, wt, stride=[2, 2], padding=[1, 1, 1, 1])
(glassgrad_dw,) = K.run_numpy("Conv2DBackwardWeight", x, gy, stride=[2, 2], padding=[1, 1, 1, 1],
                              weight_shape=[24, 16, 3, 3])
xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
windows = np.stack([xp[:, :, r:r + 8:2, s:s + 8:2] for r in range(3) for s in range(3)], axis=2)
want_y = np.einsum("nctij,kct->nkij", windows, wt.reshape(24, 16, 9))
want_dw = np.einsum("nctij,nkij->kct", windows, gy).reshape(24, 16, 3, 3)
for got in (y, glassgrad_y):
    assert np.allclose(got, want_y, rtol=1e-12, atol=1e-12)
for got in (weight_gradient(x, gy), glassgrad_dw):
    assert np.allclose(got, want_dw, rtol=1e-12, atol=1e-12)
im2col_macs = 24 * 9 * 16 * 3 * 16
assert macs == im2col_macs - 24 * 16 * 3 * (3 * 4 + 3 * 4 - 1)  # 23 of a 4x4 output's 144 taps skipped
print(f"{macs} multiply-adds against {im2col_macs} through im2col ({1 - macs / im2col_macs:.0%} fewer)")
# --8<-- [end:check]


# --8<-- [start:columns]
def channel_major_rows(c):
    """(tap t of TAP_RS, channel) of each row of col in the forward's order: the groups one after
    another, each channel by channel, so consecutive rows read the same lines of the image."""
    return [(t, ci) for t0, t1 in GROUP_TAPS for ci in range(c) for t in range(t0, t1)]


def weight_columns(c):
    """Where each column of w' (the weights in that row order) starts in a row of w [K, C*9]:
    the GEMM packs w' straight from w through these offsets, never storing w'."""
    return np.array([ci * 9 + 3 * TAP_RS[t][0] + TAP_RS[t][1] for t, ci in channel_major_rows(c)])
# --8<-- [end:columns]


# The GEMMs in that order give the same convolution: each group's rows are a permutation of its
# tap-major rows, and w' is permuted the same way.
col, order, reach = im2col_classes(x)
perm = np.array([t * 16 + ci for t, ci in channel_major_rows(16)])
w_cols = wt.reshape(24, -1)[:, weight_columns(16)]
yc = np.zeros((24, len(order)))
for (t0, t1), (lo, hi) in zip(GROUP_TAPS, reach):
    rows = perm[t0 * 16:t1 * 16]
    assert sorted(rows) == list(range(t0 * 16, t1 * 16))  # the group's own rows, reordered
    yc[:, lo:hi] += w_cols[:, t0 * 16:t1 * 16] @ col[rows, lo:hi]
for p, (b, i, j) in enumerate(order):
    assert np.allclose(yc[:, p], want_y[b, :, i, j], rtol=1e-12, atol=1e-12)


# --8<-- [start:split]
def split_columns(x):
    """Each row's even columns, then its odd ones (W even): the forward's panels gather from this
    copy of the batch when output rows are longer than 4 (cpu::split_columns)."""
    return np.concatenate([x[..., 0::2], x[..., 1::2]], axis=-1)


def split_column(s, j, w):
    """The column of a split row that tap column s of output column j reads (j >= 1 for s = 0)."""
    return (w // 2 - 1 + j, j, w // 2 + j)[s]


# Layer3.0.conv1's 16x16 input (8x8 outputs), fewer channels: every tap of an interior output
# row reads one run of consecutive columns of the split row, the values x[2i + r - 1, 2j + s - 1].
x16 = rng.standard_normal((2, 4, 16, 16))
xs = split_columns(x16)
for r, s in TAP_RS:
    for i in range(1, 8):
        cols = [split_column(s, j, 16) for j in range(1, 8)]
        assert np.all(np.diff(cols) == 1)
        assert np.array_equal(xs[:, :, 2 * i + r - 1, cols], x16[:, :, 2 * i + r - 1, [2 * j + s - 1 for j in range(1, 8)]])
# --8<-- [end:split]
