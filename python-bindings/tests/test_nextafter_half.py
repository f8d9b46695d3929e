"""torch.nextafter on float16 and bfloat16 (PyTorch's CPU kernel has both): one step of each
format towards the other value, with C's rules at zero, infinity and NaN."""
import math

import numpy as np
import pytest

import glassgrad as gg

A = [1.0, 0.0, -1.0, math.inf, 65504.0, 0.0, math.nan, 1.0, -0.0, -math.inf, 3.0]
B = [2.0, 1.0, -2.0, 0.0, math.inf, -1.0, 1.0, 1.0, 1.0, 0.0, -5.0]
# PyTorch 2.x's torch.nextafter on these (float16: 2**-10 steps at 1, 2**-24 the smallest subnormal;
# bfloat16: 2**-7 steps at 1, 2**-133 the smallest subnormal, 2**16 + 2**9 after 65504)
HALF = [1 + 2 ** -10, 2 ** -24, -1 - 2 ** -10, 65504.0, math.inf, -2 ** -24, math.nan, 1.0, 2 ** -24, -65504.0,
        3 - 2 ** -9]
BF16_MAX = float(np.float32((2 - 2 ** -7) * 2.0 ** 127))
BFLOAT = [1 + 2 ** -7, 2 ** -133, -1 - 2 ** -7, BF16_MAX, 66048.0, -2 ** -133, math.nan, 1.0, 2 ** -133, -BF16_MAX,
          3 - 2 ** -6]


@pytest.mark.parametrize("dtype, expected", [("float16", HALF), ("bfloat16", BFLOAT)])
def test_nextafter_steps_half_formats(dtype, expected):
    dt = getattr(gg, dtype)
    out = gg.nextafter(gg.tensor(A, dtype=dt), gg.tensor(B, dtype=dt))
    assert out.dtype == dt
    np.testing.assert_array_equal(out.float().numpy(), np.array(expected, np.float32))


def test_float16_matches_numpy_and_gradient_is_one():
    x = gg.tensor([1.0, -2.0, 0.0], dtype=gg.float16, requires_grad=True)
    y = gg.nextafter(x, gg.tensor(3.0, dtype=gg.float16))
    np.testing.assert_array_equal(y.detach().numpy(), np.nextafter(np.float16([1, -2, 0]), np.float16(3)))
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]


def test_integers_are_still_refused():
    with pytest.raises(NotImplementedError, match="nextafter_cpu"):
        gg.nextafter(gg.tensor([1]), gg.tensor([2]))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_against_torch(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    a = np.concatenate([rng.standard_normal(50) * 10.0 ** rng.integers(-6, 5, 50), A]).astype(np.float32)
    b = np.concatenate([rng.standard_normal(50), B]).astype(np.float32)
    want = torch.nextafter(torch.tensor(a, dtype=getattr(torch, dtype)), torch.tensor(b, dtype=getattr(torch, dtype)))
    got = gg.nextafter(gg.tensor(a, dtype=getattr(gg, dtype)), gg.tensor(b, dtype=getattr(gg, dtype)))
    np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())
