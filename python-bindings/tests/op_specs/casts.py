"""Cast between every pair of the dtypes NumPy holds (bool, uint8, int8, int16, int32, int64,
float16, float32, float64), against NumPy with the conversions of docs/dtypes.md: a float into an
integer truncates toward zero through int64 and an integer into a narrower one keeps its low bits
(two's complement wrap-around, as C's and PyTorch's casts), into float16 through float32 rounded
to nearest even (PyTorch's Half is made from a float), into bool nonzero. bfloat16, which NumPy
lacks, is checked in test_casts.py."""
import numpy as np

from glassgrad.testing import OpSpec

DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64")


def cast_reference(x, dtype):
    """x converted as the Cast op converts it."""
    target = np.dtype(dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        if target.kind == "b":
            return x != 0
        if x.dtype.kind == "f" and target.kind in "iu":
            return np.trunc(x.astype(np.float64)).astype(np.int64).astype(target)
        if target == np.float16:
            return x.astype(np.float32).astype(np.float16)
        return x.astype(target)


def cast_inputs(rng, dt, n):
    """Values that exercise the conversions: integers over their type's whole range (wrap-around
    into narrower types), floats with fractions within +-300 (truncation, int8/uint8 wrap-around,
    float16 rounding); NaN and infinities are left out (converting them to an integer is undefined
    in C, and PyTorch's result differs by platform)."""
    shape = (3, n)
    if dt == "bool":
        return [rng.random(shape) < 0.5]
    kind = np.dtype(dt).kind
    if kind in "iu":
        info = np.iinfo(dt)
        return [rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)]
    return [(rng.uniform(-300, 300, size=shape)).astype(dt)]


SPECS = [
    OpSpec("Cast", cast_reference, cast_inputs, attrs={"dtype": target}, dtypes=DTYPES, name=f"Cast-to-{target}",
           rtol={d: 0 for d in DTYPES}, atol={d: 0 for d in DTYPES})
    for target in DTYPES
]
