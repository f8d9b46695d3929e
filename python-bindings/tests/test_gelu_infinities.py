"""F.gelu at infinity (docs/numerics.md, Activations at infinity): x * Phi(x) gives inf at +inf
and nan (-inf * 0) at -inf, in both forms and dtypes; PyTorch agrees for float64 (its float32
CPU kernel's nan at +inf in tensors of two or more elements is an artifact of its vectorized
erf). Large finite inputs: x at the top, -0 or a denormal-sized value at the bottom."""
import math

import numpy as np
import pytest

import glassgrad as gg

F = gg.nn.functional
X = [math.inf, -math.inf, math.nan, 1e30, 20.0, -20.0, -1e30]


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", [gg.float32, gg.float64])
def test_gelu_at_infinity(approximate, dtype):
    y = F.gelu(gg.tensor(X, dtype=dtype), approximate=approximate).double().numpy()
    assert y[0] == math.inf
    assert math.isnan(y[1]) and math.isnan(y[2])
    np.testing.assert_allclose(y[3:5], [1e30, 20.0], rtol=1e-6)
    np.testing.assert_allclose(y[5:], [0.0, 0.0], atol=1e-30)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_matches_torch_in_float64(approximate):
    torch = pytest.importorskip("torch")
    want = torch.nn.functional.gelu(torch.tensor(X, dtype=torch.float64), approximate=approximate).numpy()
    got = F.gelu(gg.tensor(X, dtype=gg.float64), approximate=approximate).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300, equal_nan=True)
