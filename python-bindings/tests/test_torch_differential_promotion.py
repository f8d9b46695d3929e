"""Type promotion of the floating binary functions copysign, xlogy and ldexp against PyTorch: the
result type is result_type(input, other), the default float only when that is integral or bool
(tests/torch_fuzz.py; skipped without torch)."""
import itertools

import numpy as np
import pytest

from torch_fuzz import array, same

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
SHAPES = [(3,), ()]


def _make(lib, values: np.ndarray, dtype: str):
    return lib.tensor(values).to(getattr(lib, dtype))


@pytest.mark.parametrize("name", ["copysign", "xlogy", "ldexp"])
@pytest.mark.parametrize("other_dtype", DTYPES)
def test_floating_binary_promotion_as_torch(name, other_dtype):
    rng = np.random.default_rng(DTYPES.index(other_dtype))
    for dtype, (shape_a, shape_b) in itertools.product(DTYPES, itertools.product(SHAPES, SHAPES)):
        if name == "ldexp" and other_dtype == "bool":
            continue  # PyTorch has no bool exponent for floating inputs (its NotImplementedError)
        a = array(rng, "float64", shape_a)
        b = array(rng, "float64", shape_b)
        # values exact in every dtype: small integers, halves for the floating ones
        a, b = np.round(a * 2) / 2, np.abs(np.round(b))  # uint8 takes no negative value
        same(lambda lib, a, b: getattr(lib, name)(_make(lib, a, dtype), _make(lib, b, other_dtype)), a, b,
             where=f"{name}({dtype}{list(shape_a)}, {other_dtype}{list(shape_b)})", tol=1e-2)


@pytest.mark.parametrize("name", ["copysign", "xlogy", "ldexp"])
def test_floating_binary_gradients_as_torch(name):
    torch = pytest.importorskip("torch")
    import glassgrad as gg
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((3, 4)), rng.uniform(0.5, 2.0, (4,))
    grads = []
    for lib in (torch, gg):
        x = lib.tensor(a, requires_grad=True)
        y = lib.tensor(b, requires_grad=True)
        out = getattr(lib, name)(x, y)
        (out * lib.tensor(np.arange(12.0).reshape(3, 4))).sum().backward()
        grads.append((x.grad.detach().numpy(), None if y.grad is None else y.grad.detach().numpy(), out.dtype))
    np.testing.assert_allclose(grads[1][0], grads[0][0], rtol=1e-12, atol=1e-12)
    if grads[0][1] is not None:
        np.testing.assert_allclose(grads[1][1], grads[0][1], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_shifts_of_a_number_by_a_tensor_as_torch(dtype):
    import operator
    for number, op in itertools.product([-2, 3, 200, -200, 1000, 0, 63, 64, -1], [operator.rshift, operator.lshift]):
        same(lambda lib, x: op(number, x.to(getattr(lib, dtype))), np.array([1, 2, 3]), where=f"{number} {op.__name__} {dtype}")
        same(lambda lib, x: op(x.to(getattr(lib, dtype)), number), np.array([100, 2, -3]), where=f"{dtype} {op.__name__} {number}")
