"""Creation and elementwise math against PyTorch (tests/torch_fuzz.py): arange's float steps and
length rule, linspace/logspace, full's dtype inference, eye, tril/triu indices, *_like with dtype;
floor_divide/remainder/fmod signs on negatives, integer division by zero, integer negative powers,
clamp with min > max, round(decimals), sign/sgn, where's scalar promotion, isclose, cumsum dtype,
stable sorts and topk(largest=False)."""
import numpy as np
import pytest

from torch_fuzz import same

CREATION = {
    "arange(5)": lambda lib: lib.arange(5), "arange(0, 1, 0.1)": lambda lib: lib.arange(0, 1, 0.1),
    "arange(1, 2.5, 0.5)": lambda lib: lib.arange(1, 2.5, 0.5), "arange(0.5, 3)": lambda lib: lib.arange(0.5, 3),
    "arange(5, 0, -1.5)": lambda lib: lib.arange(5, 0, -1.5), "arange(0, 5, -1)": lambda lib: lib.arange(0, 5, -1),
    "arange(0, 5, 0)": lambda lib: lib.arange(0, 5, 0), "arange(3, 3)": lambda lib: lib.arange(3, 3),
    "arange(0, 2.0, dtype=int32)": lambda lib: lib.arange(0, 2.0, dtype=lib.int32),
    "arange(-0.3, 0.3, 0.1)": lambda lib: lib.arange(-0.3, 0.3, 0.1), "arange(0, 1, 1 / 3)": lambda lib: lib.arange(0, 1, 1 / 3),
    "arange(1, 1.3, 0.1, float64)": lambda lib: lib.arange(1, 1.3, 0.1, dtype=lib.float64),
    "arange(0.5, 4.5, 1, dtype=int64)": lambda lib: lib.arange(0.5, 4.5, 1, dtype=lib.int64),
    "arange(5, dtype=uint8)": lambda lib: lib.arange(5, dtype=lib.uint8), "arange(2, dtype=bool)": lambda lib: lib.arange(2, dtype=lib.bool),
    "arange(tensor(3))": lambda lib: lib.arange(lib.tensor(3)),
    "linspace(0, 1, 5)": lambda lib: lib.linspace(0, 1, 5), "linspace(0, 1, 1)": lambda lib: lib.linspace(0, 1, 1),
    "linspace(0, 1, 0)": lambda lib: lib.linspace(0, 1, 0), "linspace(0, 10, 4, int64)": lambda lib: lib.linspace(0, 10, 4, dtype=lib.int64),
    "linspace(2, -3, 6)": lambda lib: lib.linspace(2, -3, 6), "linspace(0, 1, -1)": lambda lib: lib.linspace(0, 1, -1),
    "logspace(0, 2, 3)": lambda lib: lib.logspace(0, 2, 3), "logspace(0, 3, 4, base=2)": lambda lib: lib.logspace(0, 3, 4, base=2),
    "logspace(-1, 1, 5, float64)": lambda lib: lib.logspace(-1, 1, 5, dtype=lib.float64),
    "full((2,), 3)": lambda lib: lib.full((2,), 3), "full((2,), 3.0)": lambda lib: lib.full((2,), 3.0),
    "full((2,), True)": lambda lib: lib.full((2,), True), "full((), 2)": lambda lib: lib.full((), 2),
    "full((2,), 3, float64)": lambda lib: lib.full((2,), 3, dtype=lib.float64),
    "eye(3)": lambda lib: lib.eye(3), "eye(2, 4)": lambda lib: lib.eye(2, 4), "eye(3, int64)": lambda lib: lib.eye(3, dtype=lib.int64),
    "eye(0)": lambda lib: lib.eye(0), "eye(-1)": lambda lib: lib.eye(-1), "eye(2, bool)": lambda lib: lib.eye(2, dtype=lib.bool),
    "zeros(-1)": lambda lib: lib.zeros(-1), "tensor([True, 2])": lambda lib: lib.tensor([True, 2]),
    "tensor([1, 2.5])": lambda lib: lib.tensor([1, 2.5]), "tensor([[], []])": lambda lib: lib.tensor([[], []]),
    "zeros_like(int, float64)": lambda lib: lib.zeros_like(lib.tensor([1, 2]), dtype=lib.float64),
    "full_like(int, 2.7)": lambda lib: lib.full_like(lib.tensor([1, 2]), 2.7),
    "full_like(float, 7, int32)": lambda lib: lib.full_like(lib.tensor([1.0, 2]), 7, dtype=lib.int32),
    "ones_like(float, bool)": lambda lib: lib.ones_like(lib.tensor([1.5]), dtype=lib.bool),
    "rand_like(int) raises": lambda lib: lib.rand_like(lib.tensor([1, 2])),
    "randn(2, dtype=int64) raises": lambda lib: lib.randn(2, dtype=lib.int64),
    "tril_indices(3, 4)": lambda lib: lib.tril_indices(3, 4), "tril_indices(3, 3, -1)": lambda lib: lib.tril_indices(3, 3, -1),
    "triu_indices(4, 3, 1)": lambda lib: lib.triu_indices(4, 3, 1), "triu_indices(0, 3)": lambda lib: lib.triu_indices(0, 3),
    "tril(ones(3, 4), 1)": lambda lib: lib.tril(lib.ones(3, 4), 1), "triu(ones(2, 3, 4), -1)": lambda lib: lib.triu(lib.ones(2, 3, 4), -1),
    "tril(1-d) raises": lambda lib: lib.tril(lib.ones(3)),
}


def test_creation_as_torch():
    for where, fn in CREATION.items():
        same(fn, where=where)


MATH = {
    "floor_divide": lambda lib, x, y: lib.floor_divide(x, y), "remainder": lambda lib, x, y: lib.remainder(x, y),
    "fmod": lambda lib, x, y: lib.fmod(x, y), "div floor": lambda lib, x, y: lib.div(x, y, rounding_mode="floor"),
    "div trunc": lambda lib, x, y: lib.div(x, y, rounding_mode="trunc"), "div": lambda lib, x, y: lib.div(x, y),
    "//": lambda lib, x, y: x // y, "%": lambda lib, x, y: x % y, "remainder(x, -3)": lambda lib, x, y: lib.remainder(x, -3),
    "fmod(x, -3)": lambda lib, x, y: lib.fmod(x, -3), "fmod(x, -2.5)": lambda lib, x, y: lib.fmod(x, -2.5),
    "x // 2.5": lambda lib, x, y: x // 2.5, "5 % y": lambda lib, x, y: 5 % y, "-5 // y": lambda lib, x, y: -5 // y,
    "x ** -1": lambda lib, x, y: x ** -1, "x ** y": lambda lib, x, y: x ** y, "2 ** y": lambda lib, x, y: 2 ** y,
    "x ** 0.5": lambda lib, x, y: x ** 0.5, "float_power": lambda lib, x, y: lib.float_power(x, y),
    "clamp(3, -3)": lambda lib, x, y: lib.clamp(x, 3, -3), "clamp(y, -y)": lambda lib, x, y: lib.clamp(x, y, -y),
    "clamp(-1.5, 2.5)": lambda lib, x, y: lib.clamp(x, -1.5, 2.5), "clamp()": lambda lib, x, y: lib.clamp(x),
    "clamp(max=0-d float)": lambda lib, x, y: lib.clamp(x, max=lib.tensor(2.5)), "clip(-2, 300)": lambda lib, x, y: x.clip(-2, 300),
    "sign": lambda lib, x, y: lib.sign(x), "sgn": lambda lib, x, y: lib.sgn(x), "signbit": lambda lib, x, y: lib.signbit(x),
    "copysign": lambda lib, x, y: lib.copysign(x, y), "round": lambda lib, x, y: lib.round(x),
    "round(decimals=1)": lambda lib, x, y: lib.round(x, decimals=1), "round(decimals=-1)": lambda lib, x, y: lib.round(x, decimals=-1),
    "frac": lambda lib, x, y: x.frac(), "isclose": lambda lib, x, y: lib.isclose(x, y),
    "isclose(equal_nan)": lambda lib, x, y: lib.isclose(x, x, equal_nan=True),
    "isclose(rtol=0, atol=1)": lambda lib, x, y: lib.isclose(x, x + 1, rtol=0, atol=1),
    "where(c, x, 0.5)": lambda lib, x, y: lib.where(x > 0, x, 0.5), "where(c, 1, 0)": lambda lib, x, y: lib.where(x > 0, 1, 0),
    "where(c, 1.0, 0)": lambda lib, x, y: lib.where(x > 0, 1.0, 0), "where(c, True, x)": lambda lib, x, y: lib.where(x > 0, True, x),
    "where(c, x, 0-d float64)": lambda lib, x, y: lib.where(x > 0, x, lib.tensor(2.5, dtype=lib.float64)),
    "where(c, x, 0-d int)": lambda lib, x, y: lib.where(x > 0, x, lib.tensor(2)),
    "cumsum": lambda lib, x, y: lib.cumsum(x, 0), "cumsum(dtype=float64)": lambda lib, x, y: x.cumsum(0, dtype=lib.float64),
    "cumprod": lambda lib, x, y: x.cumprod(0), "logcumsumexp": lambda lib, x, y: lib.logcumsumexp(x * 1.0, 0),
    "sort(stable)": lambda lib, x, y: lib.sort(x, stable=True), "sort(descending, stable)": lambda lib, x, y: lib.sort(x, descending=True, stable=True),
    "argsort(descending, stable)": lambda lib, x, y: lib.argsort(x, descending=True, stable=True),
    "topk(3, largest=False)": lambda lib, x, y: lib.topk(x, 3, largest=False).values, "msort": lambda lib, x, y: lib.msort(x),
    "maximum": lambda lib, x, y: lib.maximum(x, y), "fmin": lambda lib, x, y: lib.fmin(x, y),
    "hypot": lambda lib, x, y: lib.hypot(x, y), "logaddexp": lambda lib, x, y: lib.logaddexp(x, y),
    "nan_to_num": lambda lib, x, y: lib.nan_to_num(x, nan=1.0, posinf=2.0), "reciprocal": lambda lib, x, y: lib.reciprocal(x),
    "bool * bool": lambda lib, x, y: (x > 0) * (y > 0), "bool + bool": lambda lib, x, y: (x > 0) + (y > 0),
    "-bool": lambda lib, x, y: -(x > 0), "bool / bool": lambda lib, x, y: (x > 0) / (y > 0), "bool ** 2": lambda lib, x, y: (x > 0) ** 2,
}
_A, _B = np.array([-7, -3, -1, 0, 1, 3, 7]), np.array([2, -2, 3, -3, 2, -1, -2])
_AF = np.array([-7.5, -3, -0.5, 0, 0.5, 3, 7.25, np.inf, -np.inf, np.nan, 2.5, -2.5])
_BF = np.array([2, -2, 3, -3, 2, -1, -2.5, 2, 3, 1, np.inf, -0.0])
OPERANDS = {"int64": (_A, _B), "int32": (_A.astype(np.int32), _B.astype(np.int32)),
            "float32": (_AF.astype(np.float32), _BF.astype(np.float32)), "float64": (_AF, _BF),
            "uint8": (np.abs(_A).astype(np.uint8), np.abs(_B).astype(np.uint8)),
            "int64 by zero": (_A, np.zeros(7, np.int64)), "uint8 by zero": (np.abs(_A).astype(np.uint8), np.zeros(7, np.uint8))}


@pytest.mark.parametrize("operands", list(OPERANDS))
def test_math_signs_and_edges_as_torch(operands):
    x, y = OPERANDS[operands]
    for where, fn in MATH.items():
        same(fn, x, y, where=f"{where} of {operands}")


UNARY = ["abs", "neg", "sign", "sgn", "sqrt", "rsqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin",
         "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "erf",
         "erfc", "erfinv", "lgamma", "digamma", "floor", "ceil", "trunc", "round", "frac", "reciprocal", "square",
         "bitwise_not", "logical_not", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit", "positive",
         "nan_to_num", "deg2rad", "rad2deg", "sinc", "logit", "fix", "negative", "absolute"]
UNARY_VALUES = {"float32": np.array([-2.5, -1, -0.0, 0, 0.5, 1, 3.7, np.inf, -np.inf, np.nan], np.float32),
                "float64": np.array([-2.5, -1, -0.0, 0, 0.5, 1, 3.7, np.inf, -np.inf, np.nan]),
                "int64": np.array([-5, -1, 0, 1, 7, 2 ** 40]), "int32": np.array([-5, -1, 0, 1, 7, 2 ** 31 - 1], np.int32),
                "uint8": np.array([0, 1, 5, 200, 255], np.uint8), "bool": np.array([True, False])}


@pytest.mark.parametrize("dtype", list(UNARY_VALUES))
def test_unary_math_dtypes_and_special_values_as_torch(dtype):
    for name in UNARY:
        same(lambda lib, t: getattr(lib, name)(t), UNARY_VALUES[dtype], where=f"{name} of {dtype}")
        same(lambda lib, t: +t if name == "positive" else -t if name == "neg" else abs(t), UNARY_VALUES[dtype],
             where=f"operator for {name} of {dtype}")
    same(lambda lib, t: lib.relu(t), UNARY_VALUES[dtype], where=f"relu of {dtype}")


_SPECIAL = np.array([-np.inf, -3.5, -1, -0.0, 0.0, 0.5, 2, np.inf, np.nan])
SPECIAL_BINARY = {
    "//": lambda lib, x, y: x // y, "%": lambda lib, x, y: x % y, "fmod": lambda lib, x, y: lib.fmod(x, y),
    "div trunc": lambda lib, x, y: lib.div(x, y, rounding_mode="trunc"), "div floor": lambda lib, x, y: lib.div(x, y, rounding_mode="floor"),
    "**": lambda lib, x, y: x ** y, "atan2": lambda lib, x, y: lib.atan2(x, y), "maximum": lambda lib, x, y: lib.maximum(x, y),
    "fmax": lambda lib, x, y: lib.fmax(x, y), "minimum": lambda lib, x, y: lib.minimum(x, y), "fmin": lambda lib, x, y: lib.fmin(x, y),
    "copysign": lambda lib, x, y: lib.copysign(x, y), "hypot": lambda lib, x, y: lib.hypot(x, y),
    "logaddexp": lambda lib, x, y: lib.logaddexp(x, y), "logaddexp2": lambda lib, x, y: lib.logaddexp2(x, y),
    "xlogy": lambda lib, x, y: lib.xlogy(x, y), "ldexp": lambda lib, x, y: lib.ldexp(x, y),
    "heaviside": lambda lib, x, y: lib.heaviside(x, y), "float_power": lambda lib, x, y: lib.float_power(x, y),
    "<": lambda lib, x, y: x < y, "==": lambda lib, x, y: x == y, "isclose": lambda lib, x, y: lib.isclose(x, y),
    "-": lambda lib, x, y: x - y, "*": lambda lib, x, y: x * y, "/": lambda lib, x, y: x / y,
    "clamp(min=y)": lambda lib, x, y: lib.clamp(x, min=y), "clamp(max=y)": lambda lib, x, y: lib.clamp(x, max=y),
    "lerp": lambda lib, x, y: lib.lerp(x, y, 0.25), "remainder(x, 2.5)": lambda lib, x, y: lib.remainder(x, 2.5),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binary_math_on_every_pair_of_special_values_as_torch(dtype):
    x, y = np.repeat(_SPECIAL, len(_SPECIAL)).astype(dtype), np.tile(_SPECIAL, len(_SPECIAL)).astype(dtype)
    for where, fn in SPECIAL_BINARY.items():
        same(fn, x, y, where=f"{where} of {dtype} special values")


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool", "float64"])
def test_integer_products_and_activations_as_torch(dtype):
    rng = np.random.default_rng(50)
    a, b = rng.integers(0, 9, (2, 3, 4)).astype(dtype), rng.integers(0, 9, (4, 2)).astype(dtype)
    calls = {
        "a @ b": lambda lib, x, y: x @ y, "matrix @ vector": lambda lib, x, y: x @ y[:, 0],
        "vector @ vector": lambda lib, x, y: y[:, 0] @ y[:, 1], "bmm": lambda lib, x, y: lib.bmm(x, x.transpose(1, 2)),
        "mm": lambda lib, x, y: lib.mm(x[0], y), "mv": lambda lib, x, y: lib.mv(x[0], y[:, 0]),
        "linear": lambda lib, x, y: lib.nn.functional.linear(x, y.T),
        "linear of one sample": lambda lib, x, y: lib.nn.functional.linear(x[0, 0], y.T),
        "int @ float": lambda lib, x, y: x @ y.double(), "hardtanh": lambda lib, x, y: lib.nn.functional.hardtanh(x - 4),
        "relu6": lambda lib, x, y: lib.nn.functional.relu6(x * 2 - 4),
        "softmax(dtype=float64)": lambda lib, x, y: lib.softmax(x.float(), 1, dtype=lib.float64),
        "log_softmax(dtype=float64)": lambda lib, x, y: lib.log_softmax(x.float(), -1, dtype=lib.float64),
        "one_hot of an empty tensor": lambda lib, x, y: lib.nn.functional.one_hot(lib.tensor([], dtype=lib.int64)),
        "einsum ij,jk->ik": lambda lib, x, y: lib.einsum("ij,jk->ik", x[0], y),
        "einsum of three": lambda lib, x, y: lib.einsum("bij,jk,kl", x, y, y.T),
        "meshgrid of two dtypes": lambda lib, x, y: lib.meshgrid(x[0, 0], y[:, 0].double(), indexing="ij"),
        "meshgrid xy": lambda lib, x, y: lib.meshgrid(x[0, 0], y[:, 0], indexing="xy"),
    }
    for where, fn in calls.items():
        same(fn, a, b, where=f"{where} of {dtype}")


def test_closeness_checks_as_torch():
    a, b, c = np.array([1.0, 2, 3]), np.array([1, 2, 3]), np.array([1.0, 2])
    calls = {
        "allclose(float64, int64)": lambda lib, x, y, z: lib.allclose(x, y),
        "allclose(float64, float32)": lambda lib, x, y, z: lib.allclose(x, x.float()),
        "allclose of other shapes": lambda lib, x, y, z: lib.allclose(x, z),
        "allclose broadcast": lambda lib, x, y, z: lib.allclose(x, x[:1]),
        "equal(float64, int64)": lambda lib, x, y, z: lib.equal(x, y), "equal of other shapes": lambda lib, x, y, z: lib.equal(x, z),
        "isclose of ints": lambda lib, x, y, z: lib.isclose(y, y), "isclose(float64, int64)": lambda lib, x, y, z: lib.isclose(x, y),
        "isclose of bools": lambda lib, x, y, z: lib.isclose(y > 1, y > 1), "isclose(rtol=-1)": lambda lib, x, y, z: lib.isclose(x, x, rtol=-1),
        "isclose(atol=-1)": lambda lib, x, y, z: lib.isclose(x, x, atol=-1.0), "x == other shape": lambda lib, x, y, z: x == z,
        "isin": lambda lib, x, y, z: lib.isin(y, lib.tensor([1, 3])),
    }
    for where, fn in calls.items():
        same(fn, a, b, c, where=where)
