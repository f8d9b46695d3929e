"""A Python int used with a tensor must lie in [-2**63, 2**64), as PyTorch converts it to a 64-bit
scalar: outside it PyTorch raises OverflowError ('int too big to convert', or "can't convert
negative int to unsigned" below -2**63), whatever the tensor's dtype (docs/porting.md)."""
import numpy as np
import pytest

import glassgrad as gg

BIG = 2 ** 70


def _f():
    return gg.tensor([1.0, 2.0])


REFUSED = {
    "int8 + big": lambda: gg.tensor([1], dtype=gg.int8) + BIG,
    "float + big": lambda: _f() + BIG,
    "float + 2**64": lambda: _f() + 2 ** 64,
    "big + float": lambda: BIG + _f(),
    "float - big": lambda: _f() - BIG,
    "big - float": lambda: BIG - _f(),
    "float * 2**64": lambda: _f() * 2 ** 64,
    "float / big": lambda: _f() / BIG,
    "big / float": lambda: BIG / _f(),
    "float // big": lambda: _f() // BIG,
    "float % big": lambda: _f() % BIG,
    "float ** big": lambda: _f() ** BIG,
    "big ** float": lambda: BIG ** _f(),
    "fill_": lambda: _f().fill_(BIG),
    "full float": lambda: gg.full((2,), BIG, dtype=gg.float32),
    "lt": lambda: _f() < BIG,
    "ne": lambda: _f() != BIG,
    "eq int": lambda: gg.tensor([1]) == BIG,
    "where": lambda: gg.where(gg.tensor([True, False]), _f(), BIG),
    "clamp": lambda: _f().clamp(max=BIG),
    "masked_fill": lambda: _f().masked_fill(gg.tensor([True, False]), BIG),
    "add alpha": lambda: gg.add(_f(), _f(), alpha=BIG),
    "iadd": lambda: _f().__iadd__(BIG),
    "mul_": lambda: _f().mul_(BIG),
    "lerp weight": lambda: gg.lerp(_f(), _f(), BIG),
    "addcmul value": lambda: gg.addcmul(_f(), _f(), _f(), value=BIG),
    "div floor": lambda: gg.div(_f(), BIG, rounding_mode="floor"),
    "fmod": lambda: gg.fmod(_f(), BIG),
    "and": lambda: gg.tensor([1]) & BIG,
    "uint8 + 2**64": lambda: gg.tensor([1], dtype=gg.uint8) + 2 ** 64,
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_int_beyond_uint64_is_refused(case):
    with pytest.raises(OverflowError, match="int too big to convert"):
        REFUSED[case]()


def test_int_below_int64_is_refused_with_pytorchs_sentence():
    with pytest.raises(OverflowError, match="can't convert negative int to unsigned") as e:
        _f() + (-2 ** 63 - 1)
    assert "float(value)" in str(e.value)  # the fix


def test_refusal_names_the_operator():
    with pytest.raises(OverflowError, match="__add__"):
        _f() + BIG


def test_ints_inside_the_range_still_compute():
    np.testing.assert_allclose((_f() + 2 ** 63).numpy(), [2.0 ** 63, 2.0 ** 63])
    assert (gg.tensor([1]) + (-2 ** 63)).tolist() == [-2 ** 63 + 1]
    np.testing.assert_allclose((_f() + float(BIG)).numpy(), [2.0 ** 70, 2.0 ** 70])


def test_ints_from_2_63_wrap_for_integer_tensors():
    # PyTorch reads 2**64 - 1 as the int64 -1: uint8 1 + (2**64 - 1) is 0
    assert (gg.tensor([1], dtype=gg.uint8) + (2 ** 64 - 1)).tolist() == [0]
    assert (gg.tensor([1]) + 2 ** 63).tolist() == [1 - 2 ** 63]
    assert (gg.tensor([5], dtype=gg.int16) * (2 ** 64 - 1)).tolist() == [-5]


def test_library_functions_with_large_integer_constants_still_compute():
    # lgamma's reflection and polygamma's series use n! and polynomial coefficients beyond 2**64
    import math
    x = [-2.5, 0.5, 3.7]
    np.testing.assert_allclose(gg.lgamma(gg.tensor(x, dtype=gg.float64)).numpy(), [math.lgamma(v) for v in x],
                               rtol=1e-6)
    assert np.isfinite(gg.polygamma(25, gg.tensor([-2.5, 3.7], dtype=gg.float64)).numpy()).all()
