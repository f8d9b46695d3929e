"""copysign, xlogy and ldexp promote as PyTorch documents without needing torch: the result type
of the two operands, the default float only when both are integral or bool (an int8 tensor and a
float16 one give float16; a 0-d float64 joining an int tensor gives float64, a 0-d float64 beside
a float32 tensor float32). A number shifted by an integer tensor joins in its dtype first (-2 >> a
uint8 tensor shifts 254). Values against NumPy."""
import numpy as np
import pytest

import glassgrad as gg

CASES = [  # (input dtype, input shape, other dtype, other shape, result dtype)
    ("int8", (3,), "float16", (3,), "float16"),
    ("uint8", (3,), "bfloat16", (), "bfloat16"),
    ("int64", (3,), "float64", (), "float64"),
    ("int32", (3,), "float64", (3,), "float64"),
    ("float16", (), "int16", (3,), "float16"),
    ("bool", (3,), "int64", (3,), "float32"),
    ("float64", (), "float32", (3,), "float32"),
]


def _reference(name, a, b):
    if name == "copysign":
        return np.copysign(a, b)
    if name == "xlogy":
        return np.where(a == 0, 0.0, a * np.log(np.where(a == 0, 1.0, b)))
    return a * np.exp2(b)


@pytest.mark.parametrize("name", ["copysign", "xlogy", "ldexp"])
@pytest.mark.parametrize("case", CASES)
def test_result_dtype_and_values(name, case):
    da, sa, db, sb, want = case
    rng = np.random.default_rng(7)
    a = np.abs(rng.integers(-3, 4, sa)).astype(np.float64) if da != "bool" else rng.random(sa) > 0.5
    b = rng.integers(1, 4, sb).astype(np.float64)
    out = getattr(gg, name)(gg.tensor(a).to(getattr(gg, da)), gg.tensor(b).to(getattr(gg, db)))
    assert out.dtype == getattr(gg, want), f"{name}({da}{list(sa)}, {db}{list(sb)})"
    np.testing.assert_allclose(out.float().numpy(), _reference(name, a.astype(np.float64), b), rtol=1e-2)


def test_ldexp_float64_gradient_by_finite_differences():
    rng = np.random.default_rng(1)
    a, e = rng.standard_normal((3, 5)), rng.standard_normal((5,))
    x, y = gg.tensor(a, requires_grad=True), gg.tensor(e, requires_grad=True)
    gg.ldexp(x, y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.broadcast_to(np.exp2(e), (3, 5)), rtol=1e-12)
    h = 1e-6
    fd = [((a * np.exp2(e + h * np.eye(5)[i])).sum() - (a * np.exp2(e - h * np.eye(5)[i])).sum()) / (2 * h)
          for i in range(5)]
    np.testing.assert_allclose(y.grad.numpy(), fd, rtol=1e-6)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16"])
def test_a_number_shifted_by_a_tensor_wraps_into_its_dtype_first(dtype):
    shifts = np.array([1, 2, 3])
    for number in (-2, 200, -200, 1000):
        wrapped = np.array(number).astype(np.int64).astype(dtype)  # the number in the tensor's dtype
        got = number >> gg.tensor(shifts).to(getattr(gg, dtype))
        assert got.dtype == getattr(gg, dtype)
        np.testing.assert_array_equal(got.numpy(), np.right_shift(wrapped, shifts.astype(dtype)))
