"""Casts, rounding, integer division and bitwise ops against PyTorch (tests/torch_fuzz.py): float to
integer of negatives and fractions, integer wrap-around (uint8, int8, int32), float16/bfloat16
rounding, bool conversions, round half to even with decimals, division and remainder per dtype
(by zero too), and shifts by every count per dtype. Out-of-range float to integer conversions
(NaN, inf, beyond the type) are left out: PyTorch calls them undefined, and its CPU and GPU
answers differ."""
import numpy as np
import pytest

from torch_fuzz import array, same

INTS = ["uint8", "int8", "int16", "int32", "int64"]
FLOATS_IN_RANGE = np.array([-3.7, -2.5, -1.5, -0.5, -0.0, 0.5, 1.5, 2.5, 3.5, 99.9, -100.2], np.float32)
ALL_DTYPES = INTS + ["bool", "float16", "bfloat16", "float32", "float64"]


@pytest.mark.parametrize("dtype", INTS + ["bool"])
def test_float_to_integer_truncates_toward_zero_as_torch(dtype):
    values = FLOATS_IN_RANGE if dtype != "uint8" else np.abs(FLOATS_IN_RANGE)
    for src in ("float32", "float64"):
        same(lambda lib, t: t.to(getattr(lib, dtype)), values.astype(src), where=f"{src} -> {dtype}")
    if dtype == "bool":
        same(lambda lib, t: t.to(lib.bool), np.array([0.0, -0.0, 1e-45, 1e30, np.nan, -np.inf]), where="tiny/large")


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_integer_bool_and_float64_casts_as_torch(dtype):
    cast = lambda lib, t: t.to(getattr(lib, dtype))
    same(cast, np.array([-300, -129, -1, 0, 1, 127, 128, 255, 256, 70000, 2 ** 31 + 5, -2 ** 40]), where="int64 ->")
    same(cast, np.array([True, False]), where="bool ->")
    same(cast, np.array([0, 1, 200, 255], np.uint8), where="uint8 ->")
    same(cast, np.array([-128, -1, 0, 127], np.int8), where="int8 ->")
    if dtype.startswith(("float", "bfloat")) or dtype == "bool":
        same(cast, np.array([-0.0, 0.3, 1e-3, 65504.0, 65520.0, 70000.0, 3.4e38, 1e-40, np.nan, np.inf, -np.inf]),
             where="float64 ->")
        same(cast, np.array([2049, 2051, 65519, 65520, 16777217, -16777219]), where="int64 rounding ->")
        same(cast, np.array([1.00390625, 1.01171875, 1.0009765625, 3.0e38, -3.0e38]), where="float64 rounding ->")


def test_integer_arithmetic_wraps_as_torch():
    rng = np.random.default_rng(4)
    for dtype in INTS:
        x = array(rng, dtype, (4, 3), low=-128 if dtype != "uint8" else 0, high=128)
        same(lambda lib, t: (t * 3, t + 250, t - 250, -t if dtype != "uint8" else t, t * t, t.abs()), x,
             where=f"wrap {dtype}")
    same(lambda lib, t: t.to(lib.int32) * t.to(lib.int32), np.array([2 ** 20, -2 ** 20, 46341]), where="int32 square")
    same(lambda lib, t: -t, np.array([0, 1, 200], np.uint8), where="uint8 negation")
    same(lambda lib, t: t.abs(), np.array([-128, 127], np.int8), where="int8 abs of its minimum")


@pytest.mark.parametrize("decimals", [0, 1, 2, 3, -1, -2])
def test_round_half_to_even_with_decimals_as_torch(decimals):
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.125, 0.135, 1234.5678, -1234.5678, 15.0, 25.0, 35.0, 1e-300,
                  np.nan, np.inf, -np.inf])
    for dtype in ("float32", "float64"):
        same(lambda lib, t: lib.round(t, decimals=decimals), x.astype(dtype), where=f"round({dtype}, {decimals})")
        same(lambda lib, t: t.round(decimals=decimals), x.astype(dtype), where="Tensor.round")
    same(lambda lib, t: lib.round(t, decimals=decimals) if decimals else lib.round(t), np.array([15, 25, -35]),
         where="round of int64")
    same(lambda lib, t: t.round(), np.array([0.5, 1.5, 2.5], np.float16), where="round of float16")


DIVISIONS = {"//": lambda lib, x, y: x // y, "%": lambda lib, x, y: x % y, "/": lambda lib, x, y: x / y,
             "div trunc": lambda lib, x, y: lib.div(x, y, rounding_mode="trunc"),
             "div floor": lambda lib, x, y: lib.div(x, y, rounding_mode="floor"),
             "fmod": lambda lib, x, y: lib.fmod(x, y), "remainder": lambda lib, x, y: lib.remainder(x, y),
             "true_divide": lambda lib, x, y: lib.true_divide(x, y), "floor_divide": lambda lib, x, y: lib.floor_divide(x, y)}


@pytest.mark.parametrize("name", list(DIVISIONS))
@pytest.mark.parametrize("dtype", INTS + ["bool", "float32"])
def test_division_and_remainder_per_dtype_as_torch(name, dtype):
    fn = DIVISIONS[name]
    a = np.array([7, -7, 7, -7, 0, 5, -128, 127])
    b = np.array([2, 2, -2, -2, 3, 1, -1, 4])
    if dtype in ("uint8", "bool"):
        a, b = np.abs(a) % (2 if dtype == "bool" else 256), np.abs(b) % (2 if dtype == "bool" else 256) | 1
    a, b = a.astype(dtype), b.astype(dtype)
    same(fn, a, b, where="tensors")
    same(lambda lib, x: fn(lib, x, 3), a, where="by the int 3")
    same(lambda lib, x: fn(lib, x, -2.5), a, where="by the float -2.5")
    same(lambda lib, x: fn(lib, 9, x), b, where="the int 9 by a tensor")
    same(lambda lib, x: fn(lib, x, 0), a, where="by the int 0")
    same(lambda lib, x: fn(lib, x, x * 0), a, where="by a zero tensor")


SHIFTS_AND_BITS = {"<<": lambda lib, x, y: x << y, ">>": lambda lib, x, y: x >> y, "&": lambda lib, x, y: x & y,
                   "|": lambda lib, x, y: x | y, "^": lambda lib, x, y: x ^ y,
                   "bitwise_left_shift": lambda lib, x, y: lib.bitwise_left_shift(x, y),
                   "bitwise_right_shift": lambda lib, x, y: lib.bitwise_right_shift(x, y)}


@pytest.mark.parametrize("name", list(SHIFTS_AND_BITS))
@pytest.mark.parametrize("dtype", INTS + ["bool"])
def test_shifts_and_bitwise_ops_per_dtype_as_torch(name, dtype):
    fn = SHIFTS_AND_BITS[name]
    x = np.array([0, 1, 5, -3, 127, -128, 100, -1, 77])
    counts = np.array([0, 1, 7, 5, 8, 9, 15, 31, 33])
    if dtype == "uint8":
        x = np.abs(x)
    if dtype == "bool":
        x, counts = x % 2, counts % 2
    x, counts = x.astype(dtype), counts.astype(dtype)
    same(fn, x, counts, where="by tensor counts")
    for n in (0, 1, 3, 7, 8, 31, 32, 62, 63, 64, -1):
        same(lambda lib, t: fn(lib, t, n), x, where=f"by {n}")
    same(lambda lib, t: fn(lib, t, True), x, where="with True")
    same(lambda lib, t: fn(lib, t, 1.5), x, where="with a float")
    same(lambda lib, t: (~t, lib.bitwise_not(t)), x, where="not")


def test_type_conversions_by_name_as_torch():
    x = np.array([-1.5, 2.7, 0.0])
    same(lambda lib, t: t.type(lib.IntTensor), x, where="type(IntTensor)")
    same(lambda lib, t: t.type("torch.LongTensor"), x, where="type('torch.LongTensor')")
    same(lambda lib, t: (t.int(), t.long(), t.short(), t.char(), t.byte(), t.bool(), t.half(), t.double()), x,
         where="shorthand casts")
    same(lambda lib, t: t.to(lib.float16).to(lib.int64), np.array([65504.0, -2.5, 0.49]), where="via float16")
    same(lambda lib, t: ~t, np.array([1.5]), where="~ of a float")
