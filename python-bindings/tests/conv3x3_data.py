"""Random operands of a 3x3 convolution for the Winograd tests (test_conv_winograd_chunks.py,
test_conv_winograd_stride2.py, test_conv_winograd_weight_blocks.py): x, weights scaled as
He-like 1/sqrt(9C), and an output gradient of the convolution's output size; and the fixture
that restores the thread count and the automatic algorithm choice after each test."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.kernels as K


@pytest.fixture(autouse=True)
def restore_threads_and_algo():
    """Imported by a test module: each of its tests ends with the thread count it started with and
    the CPU convolutions' algorithm choice back on "auto"."""
    before = gg.get_num_threads()
    yield
    gg.set_num_threads(before)
    K.set_cpu_conv_algo("auto")


def out_size(h, lo, hi, stride=1):
    """Output length of a 3x3 window over h with padding lo and hi."""
    return (h + lo + hi - 3) // stride + 1


def conv3x3_data(shape, dtype, seed=0, stride=1):
    """shape: (N, C, H, W, K, [top, bottom, left, right] padding) -> x, w, gy."""
    n, c, h, w, k, pad = shape
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, h, w)).astype(dtype)
    wt = (rng.standard_normal((k, c, 3, 3)) / np.sqrt(9 * c)).astype(dtype)
    gy = rng.standard_normal((n, k, out_size(h, pad[0], pad[1], stride), out_size(w, pad[2], pad[3], stride)))
    return x, wt, gy.astype(dtype)
