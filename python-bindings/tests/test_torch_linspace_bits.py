"""linspace to PyTorch's last bit in every dtype: float64 (each value one fused multiply-add,
start + i * step for the first half and end - (steps - 1 - i) * step for the second), float32,
float16 and bfloat16 (their own arithmetic, each product and sum rounded), the integer types
(start and end truncated first, each value truncated), odd and large step counts, random bounds.
Also the fused multiply-add it rests on, against exact rational arithmetic. Skipped without torch
(the fused multiply-add test runs anyway)."""
from fractions import Fraction

import numpy as np
import pytest

import glassgrad as gg
from glassgrad._fused_multiply_add import fused_multiply_add

DTYPES = ["float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "uint8"]


def _bounds(seed: int, dtype: str):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(60):
        s, e = (float(v) for v in rng.normal(0, 20, 2))
        if rng.random() < 0.3:
            s, e = float(rng.integers(-5, 5)), float(rng.integers(-5, 90))
        if dtype == "uint8":
            s, e = abs(s), abs(e)
        out.append((s, e, int(rng.integers(1, 300))))
    out += [(0.0, 1.0, 5), (-3.5, 7.25, 4097), (1e-3, 1e3, 40001)]
    return [(s, e, n) for s, e, n in out if dtype != "uint8" or 0 <= min(s, e) <= max(s, e) < 256]


def _values(t):
    return (t.float() if str(t.dtype).split(".")[-1] in ("float16", "bfloat16") else t).numpy().astype(np.float64)


@pytest.mark.parametrize("dtype", DTYPES)
def test_linspace_matches_torchs_bits(dtype):
    torch = pytest.importorskip("torch")
    for s, e, n in _bounds(DTYPES.index(dtype), dtype):
        want = _values(torch.linspace(s, e, n, dtype=getattr(torch, dtype)))
        got = _values(gg.linspace(s, e, n, dtype=getattr(gg, dtype)))
        np.testing.assert_array_equal(got, want, err_msg=f"linspace({s!r}, {e!r}, {n}, {dtype})")


def test_bfloat16_linspace_is_a_leaf_that_can_require_grad():
    t = gg.linspace(0, 1, 5, dtype=gg.bfloat16, requires_grad=True)
    assert t.dtype == gg.bfloat16 and t.requires_grad and t.is_leaf
    assert t.float().tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]


def test_fused_multiply_add_is_correctly_rounded():
    rng = np.random.default_rng(3)
    a = rng.normal(0, 1, 3000) * 10.0 ** rng.integers(-6, 6, 3000)
    b = rng.integers(0, 100000, 3000).astype(np.float64)
    c = np.where(rng.random(3000) < 0.5, rng.normal(0, 1, 3000) * 10.0 ** rng.integers(-6, 6, 3000),
                 -(a * b) * (1 + rng.integers(-3, 4, 3000) * 2.0 ** -52))  # near-cancellations
    got = fused_multiply_add(a, b, c)
    want = np.array([float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a, b, c)])
    np.testing.assert_array_equal(got, want)
    assert not np.array_equal(a * b + c, want)  # the unfused sum rounds twice: the test can tell them apart
