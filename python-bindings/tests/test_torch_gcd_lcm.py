"""torch.gcd and torch.lcm: NumPy's np.gcd/np.lcm as the reference, PyTorch's results, dtypes and
errors (tests/torch_fuzz.py); integers have no gradient."""
import numpy as np
import pytest

import glassgrad as gg
from torch_fuzz import same


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "uint8"])
def test_gcd_and_lcm_match_numpy_and_torch(dtype):
    rng = np.random.default_rng(7)
    low = 0 if dtype == "uint8" else -60
    a, b = rng.integers(low, 100, (50,)).astype(dtype), rng.integers(low, 70, (50,)).astype(dtype)
    a[:3], b[1:4] = 0, 0
    np.testing.assert_array_equal(gg.gcd(gg.tensor(a), gg.tensor(b)).numpy(), np.gcd(a, b))
    if dtype != "uint8":  # lcm can pass 255 in uint8: PyTorch's wraps, NumPy's too
        np.testing.assert_array_equal(gg.lcm(gg.tensor(a), gg.tensor(b)).numpy(), np.lcm(a, b))
    for where, fn in {"gcd": lambda lib, x, y: lib.gcd(x, y), "lcm": lambda lib, x, y: lib.lcm(x, y),
                      "x.gcd(y)": lambda lib, x, y: x.gcd(y), "x.lcm_(y)": lambda lib, x, y: x.clone().lcm_(y),
                      "gcd broadcast": lambda lib, x, y: lib.gcd(x[:6, None], y[:4]),
                      "gcd with int64": lambda lib, x, y: lib.gcd(x, y.long())}.items():
        same(fn, a, b, where=f"{where} of {dtype}")


def test_gcd_worst_cases_and_refusals_as_torch():
    fib = np.array([2 ** 62, 832040, 1346269, 7540113804746346429])
    same(lambda lib, x, y: lib.gcd(x, y), fib, np.array([2 ** 40, 514229, 832040, 4660046610375530309]),
         where="gcd of consecutive Fibonacci numbers (Euclid's longest runs)")
    same(lambda lib, x, y: lib.gcd(x, y), np.array([2.0]), np.array([4.0]), where="gcd of floats")
    same(lambda lib, x, y: lib.lcm(x, y), np.array([True]), np.array([True]), where="lcm of bools")
    same(lambda lib, x, y: lib.gcd(x, y), np.zeros(0, np.int64), np.zeros(0, np.int64), where="gcd of empty tensors")
