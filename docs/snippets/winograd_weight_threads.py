"""The CPU Winograd weight gradient's three thread schedules in NumPy, next to the direct formula
and glassgrad's kernel: shared blocks (the point GEMMs of each block split over the threads),
per-thread dU accumulators, and the points of dU split over the threads. docs/cpu-threads.md
walks through it."""
import numpy as np

import glassgrad.kernels as K
from glassgrad import _C

rng = np.random.default_rng(0)
N, C, H, W, KO = 5, 8, 6, 5, 8                     # images, in/out channels, image size (3x3, padding 1)
x = rng.standard_normal((N, C, H, W))
gy = rng.standard_normal((N, KO, H, W))            # stride 1, padding 1: the output is H x W too

# --8<-- [start:transforms]
# F(2x2, 3x3): 4x4 input windows, 2x2 output tiles, 16 points.
BT = np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], float)
G = np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]])
AT = np.array([[1, 1, 1, 0], [0, 1, -1, -1]], float)


def transformed_tiles(x, gy, images):
    """V [16, T, C] = B^T d B of the input windows, Z [16, T, K] = A gy A^T of the gradient tiles,
    for the tiles T of `images` (in order)."""
    th, tw = -(-H // 2), -(-W // 2)
    xp = np.zeros((N, C, 2 * th + 2, 2 * tw + 2))
    xp[:, :, 1:1 + H, 1:1 + W] = x                 # padding 1
    gp = np.zeros((N, KO, 2 * th, 2 * tw))
    gp[:, :, :H, :W] = gy
    V, Z = [], []
    for b in images:
        for i in range(th):
            for j in range(tw):
                V.append(BT @ xp[b, :, 2 * i:2 * i + 4, 2 * j:2 * j + 4] @ BT.T)   # [C, 4, 4]
                Z.append(AT.T @ gp[b, :, 2 * i:2 * i + 2, 2 * j:2 * j + 2] @ AT)   # [K, 4, 4]
    V = np.stack(V).reshape(len(V), C, 16).transpose(2, 0, 1)
    Z = np.stack(Z).reshape(len(Z), KO, 16).transpose(2, 0, 1)
    return V, Z


def filter_adjoint(dU):
    """dw [K, C, 3, 3] = G^T dU G at every (k, c)."""
    return np.einsum("ra,kcab,sb->kcrs", G.T, dU.transpose(1, 2, 0).reshape(KO, C, 4, 4), G.T)
# --8<-- [end:transforms]


# --8<-- [start:shared]
def shared_blocks(block=2):
    """One thread's view of the shared schedule: per block of images, every point's GEMM
    dU[xi] += Z[xi]^T V[xi]. With threads, each block is two parallel phases (its transforms,
    then its 16 GEMMs split over the threads), so a call waits 2 x blocks times."""
    dU = np.zeros((16, KO, C))
    for n0 in range(0, N, block):
        V, Z = transformed_tiles(x, gy, range(n0, min(n0 + block, N)))
        for xi in range(16):
            dU[xi] += Z[xi].T @ V[xi]
    return filter_adjoint(dU)
# --8<-- [end:shared]


# --8<-- [start:per_thread]
def per_thread_accumulators(threads=2):
    """Each thread takes a fixed share of the images and sums their point GEMMs into its own dU;
    the filter adjoint adds the threads' dU first, in thread order. Two phases a call."""
    dU_of = []
    for t in range(threads):                       # in parallel, one thread each
        V, Z = transformed_tiles(x, gy, range(N * t // threads, N * (t + 1) // threads))
        dU_of.append(np.stack([Z[xi].T @ V[xi] for xi in range(16)]))
    return filter_adjoint(sum(dU_of))
# --8<-- [end:per_thread]


# --8<-- [start:by_points]
def split_by_points(threads=2, block=2):
    """Each thread owns 16 / threads of the points and goes through every block itself: it
    repeats the block's transforms (cheap: O(C + K) a tile against the GEMMs' O(C K)) and runs
    its points' GEMMs. One phase a call, and dU[xi] is summed exactly as one thread sums it."""
    dU = np.zeros((16, KO, C))
    for t in range(threads):                       # in parallel, one thread each
        mine = range(16 * t // threads, 16 * (t + 1) // threads)
        for n0 in range(0, N, block):
            V, Z = transformed_tiles(x, gy, range(n0, min(n0 + block, N)))
            for xi in mine:
                dU[xi] += Z[xi].T @ V[xi]
    return filter_adjoint(dU)
# --8<-- [end:by_points]


# --8<-- [start:check]
xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
direct = np.stack([np.stack([np.einsum("nkhw,nchw->kc", gy, xp[:, :, r:r + H, s:s + W]) for s in range(3)], -1)
                   for r in range(3)], -1).transpose(0, 1, 3, 2)   # dw[k, c, r, s] = sum gy * x shifted
K.set_cpu_conv_algo("winograd2")
assert _C.cpu_conv_algorithm("Conv2DBackwardWeight", [N, C, H, W], [KO, C, 3, 3],
                             {"stride": [1, 1], "padding": [1, 1, 1, 1]}, "float64") == "winograd2"
(glassgrad_dw,) = K.run_numpy("Conv2DBackwardWeight", x, gy, stride=[1, 1], padding=[1, 1, 1, 1],
                              weight_shape=[KO, C, 3, 3])
K.set_cpu_conv_algo("auto")
for dw in (shared_blocks(), per_thread_accumulators(), split_by_points(), glassgrad_dw):
    assert np.allclose(dw, direct, rtol=1e-10, atol=1e-10)
assert np.array_equal(split_by_points(), shared_blocks())   # the same sums in the same order
print("every schedule gives the direct weight gradient; split by points bit for bit the serial one")
# --8<-- [end:check]
