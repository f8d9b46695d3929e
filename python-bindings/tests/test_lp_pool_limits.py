"""F.lp_pool1d/2d/3d (and nn.LPPool*) at PyTorch's limits of norm_type: inf is the largest |x| of
each window, -inf the smallest, as PyTorch documents ("at p = inf, one gets max pooling") and
PyTorch 2.14 computes; 0 is its ValueError. Before 2.14 PyTorch computed the power formula at inf
(1 for every window), so the comparison at +-inf runs under 2.14 and later only."""
import math
import os
import sys

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_versions import version

X = gg.tensor([[[[1.0, -3.0, 2.0, 5.0], [0.5, -7.0, 1.0, 1.0]]]])


def test_infinite_norm_is_the_window_max_of_magnitudes():
    assert F.lp_pool1d(X[0], math.inf, 2).tolist() == [[[3.0, 5.0], [7.0, 1.0]]]
    assert F.lp_pool2d(X, math.inf, 2).tolist() == [[[[7.0, 5.0]]]]
    assert F.lp_pool3d(X, math.inf, (1, 2, 2)).tolist() == [[[[7.0, 5.0]]]]
    assert F.lp_pool2d(X, math.inf, 2, stride=1, ceil_mode=True).tolist() == [[[[7.0, 7.0, 5.0]]]]
    assert gg.nn.LPPool2d(math.inf, 2)(X).tolist() == [[[[7.0, 5.0]]]]


def test_negative_infinite_norm_is_the_window_min_of_magnitudes():
    assert F.lp_pool1d(X[0], -math.inf, 2).tolist() == [[[1.0, 2.0], [0.5, 1.0]]]
    assert F.lp_pool2d(X, -math.inf, 2).tolist() == [[[[0.5, 1.0]]]]


def test_zero_norm_is_refused():
    with pytest.raises(ValueError, match="norm_type must be a non-zero value, but got 0"):
        F.lp_pool2d(X, 0, 2)


@pytest.mark.parametrize("p", [math.inf, -math.inf, 1, 2, 3.5])
def test_matches_pytorch(p):
    torch = pytest.importorskip("torch")
    if math.isinf(p) and version(torch) < (2, 14):
        pytest.skip(f"PyTorch {torch.__version__} computes the power formula at norm_type {p}, not the "
                    "window's extreme its documentation names")
    x = np.random.default_rng(0).standard_normal((2, 3, 6, 7)).astype(np.float32)
    for kw in (dict(kernel_size=2), dict(kernel_size=3, stride=2, ceil_mode=True)):
        want = torch.nn.functional.lp_pool2d(torch.tensor(x), p, **kw).numpy()
        np.testing.assert_allclose(F.lp_pool2d(gg.tensor(x), p, **kw).numpy(), want, rtol=1e-4, atol=1e-5)
