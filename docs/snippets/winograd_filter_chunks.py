"""The CPU Winograd forward of a wide layer with few tiles, by blocks of images (the filters
transformed whole first) and by chunks of output channels (each chunk of filters transformed
just before its products), in NumPy next to the direct formula and glassgrad's kernel.
docs/cpu-threads.md walks through it."""
import numpy as np

import glassgrad.kernels as K

rng = np.random.default_rng(0)
N, C, H, W, KO = 2, 16, 4, 4, 520                  # images, in/out channels, image size (3x3, padding 1)
x = rng.standard_normal((N, C, H, W))
w = rng.standard_normal((KO, C, 3, 3))
TH, TW = H // 2, W // 2                            # 2x2 output tiles per image row and column

# --8<-- [start:transforms]
# F(2x2, 3x3): 4x4 input windows, 2x2 output tiles, 16 points.
BT = np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], float)
G = np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]])
AT = np.array([[1, 1, 1, 0], [0, 1, -1, -1]], float)


def input_points(images):
    """V [16, T, C] = B^T d B of every 4x4 input window of `images` (T tiles, in order)."""
    xp = np.pad(x[list(images)], ((0, 0), (0, 0), (1, 1), (1, 1)))
    d = np.stack([xp[:, :, 2 * i:2 * i + 4, 2 * j:2 * j + 4] for i in range(TH) for j in range(TW)], 1)
    return np.einsum("ab,ntcbe,fe->afntc", BT, d, BT).reshape(16, -1, C)   # tiles: image, then row-major


def filter_points(ks):
    """U [16, C, len(ks)] = G g G^T of the filters of output channels ks."""
    return np.einsum("ab,kcbe,fe->afck", G, w[ks], G).reshape(16, C, len(ks))


def output_tiles(M):
    """y [N, K, H, W] from M [16, T, K]: A^T m A per tile and channel."""
    y = np.einsum("ab,bentk,fe->ntkaf", AT, M.reshape(4, 4, N, TH * TW, KO), AT)   # [N, T, K, 2, 2]
    y = y.reshape(N, TH, TW, KO, 2, 2).transpose(0, 3, 1, 4, 2, 5)
    return y.reshape(N, KO, H, W)
# --8<-- [end:transforms]


# --8<-- [start:blocks]
def by_blocks(block=1):
    """The default schedule: every filter transformed first (U: 16 x C x K values, 16.8 MB for
    ResNet-18's layer4), then per block of images its 16 point GEMMs, each reading one point of U
    whole. When U is larger than the caches, each block reads it back from memory."""
    U = filter_points(range(KO))
    M = np.zeros((16, N * TH * TW, KO))
    for n0 in range(0, N, block):
        tiles = slice(n0 * TH * TW, (n0 + block) * TH * TW)
        V = input_points(range(n0, min(n0 + block, N)))
        for xi in range(16):
            M[xi, tiles] = V[xi] @ U[xi]
    return output_tiles(M)
# --8<-- [end:blocks]


# --8<-- [start:chunks]
def by_chunks(chunk=96):
    """Few tiles, many channels: the whole batch's V first (T x C values a point, smaller than
    U), then one chunk of output channels at a time: its filters transformed, and right after,
    its columns of every point's product, while the chunk of U is still in cache. No step stores
    U whole; the threads take chunks."""
    V = input_points(range(N))
    M = np.zeros((16, N * TH * TW, KO))
    for q0 in range(0, KO, chunk):                 # in parallel, a chunk per thread at a time
        ks = range(q0, min(q0 + chunk, KO))
        Uc = filter_points(ks)
        for xi in range(16):
            M[xi, :, q0:q0 + len(ks)] = V[xi] @ Uc[xi]
    return output_tiles(M)
# --8<-- [end:chunks]


# --8<-- [start:check]
xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
direct = sum(np.einsum("nchw,kc->nkhw", xp[:, :, r:r + H, s:s + W], w[:, :, r, s]) for r in range(3) for s in range(3))
K.set_cpu_conv_algo("winograd2")                   # float64 would take F(4x4)
(glassgrad_y,) = K.run_numpy("Conv2D", x, w, stride=[1, 1], padding=[1, 1, 1, 1])
K.set_cpu_conv_algo("auto")
for y in (by_blocks(), by_chunks(), glassgrad_y):
    assert np.allclose(y, direct, rtol=1e-10, atol=1e-10)
print("by blocks, by chunks and glassgrad's kernel give the direct convolution")
# --8<-- [end:check]
