"""Elementwise ops: broadcasting binaries, scalar variants, unary maps, comparisons, Where,
and the activations' backward maps."""
import numpy as np

from glassgrad.testing import OpSpec


def _r(rng, dt, *shape):
    return rng.standard_normal(shape).astype(dt)


def _pos(rng, dt, *shape):
    return rng.uniform(0.5, 2.0, shape).astype(dt)


def _pair(rng, dt, n):
    # Broadcasting [n, 1, 3] with [2, 3]: both sides stretch.
    return [_r(rng, dt, n, 1, 3), _r(rng, dt, 2, 3)]


def _sigmoid(x):
    return (1 / (1 + np.exp(-x.astype(np.float64)))).astype(x.dtype)


SPECS = [
    OpSpec("Add", np.add, _pair, grad=(0, 1)),
    OpSpec("Sub", np.subtract, _pair, grad=(0, 1)),
    OpSpec("Mul", np.multiply, _pair, grad=(0, 1)),
    OpSpec("Div", np.divide, lambda rng, dt, n: [_r(rng, dt, n, 1, 3), _pos(rng, dt, 2, 3)], grad=(0, 1)),
    OpSpec("Maximum", np.maximum, _pair, grad=(0, 1)),
    OpSpec("Minimum", np.minimum, _pair, grad=(0, 1)),
    OpSpec("Add", np.add, lambda rng, dt, n: [rng.integers(-5, 5, (n, 3)).astype(dt), rng.integers(-5, 5, (3,)).astype(dt)],
           dtypes=("int64",), name="Add-int64"),
    OpSpec("AddScalar", lambda x, value: (x + value).astype(x.dtype), lambda rng, dt, n: [_r(rng, dt, n, 3)],
           attrs={"value": 2.5}, grad=(0,)),
    OpSpec("MulScalar", lambda x, value: (x * value).astype(x.dtype), lambda rng, dt, n: [_r(rng, dt, n, 3)],
           attrs={"value": -1.5}, grad=(0,)),
    OpSpec("PowScalar", lambda x, exponent: np.power(x, exponent).astype(x.dtype), lambda rng, dt, n: [_pos(rng, dt, n, 3)],
           attrs={"exponent": 2.5}, grad=(0,)),
    OpSpec("PowScalar", lambda x, exponent: np.power(x, exponent).astype(x.dtype), lambda rng, dt, n: [_r(rng, dt, n, 3)],
           attrs={"exponent": 2.0}, grad=(0,), name="PowScalar-square"),
    OpSpec("RDivScalar", lambda x, value: (value / x).astype(x.dtype), lambda rng, dt, n: [_pos(rng, dt, n, 3)],
           attrs={"value": 3.0}, grad=(0,)),
    OpSpec("Neg", np.negative, lambda rng, dt, n: [_r(rng, dt, n, 3)], grad=(0,)),
    OpSpec("Exp", np.exp, lambda rng, dt, n: [_r(rng, dt, n, 3)], grad=(0,)),
    OpSpec("Log", np.log, lambda rng, dt, n: [_pos(rng, dt, n, 3)], grad=(0,)),
    OpSpec("Sqrt", np.sqrt, lambda rng, dt, n: [_pos(rng, dt, n, 3)], grad=(0,)),
    OpSpec("ReLU", lambda x: np.maximum(x, 0).astype(x.dtype), lambda rng, dt, n: [_r(rng, dt, n, 5)], grad=(0,)),
    OpSpec("Sigmoid", _sigmoid, lambda rng, dt, n: [_r(rng, dt, n, 5) * 4], grad=(0,)),
    OpSpec("Tanh", np.tanh, lambda rng, dt, n: [_r(rng, dt, n, 5)], grad=(0,)),
    OpSpec("LeakyReLU", lambda x, negative_slope: np.where(x > 0, x, x * negative_slope).astype(x.dtype),
           lambda rng, dt, n: [_r(rng, dt, n, 5)], attrs={"negative_slope": 0.2}, grad=(0,)),
    OpSpec("ReLUBackward", lambda g, x: np.where(x > 0, g, 0).astype(g.dtype),
           lambda rng, dt, n: [_r(rng, dt, n, 4), _r(rng, dt, n, 4)], grad=(0,)),
    OpSpec("LeakyReLUBackward", lambda g, x, negative_slope: np.where(x > 0, g, g * negative_slope).astype(g.dtype),
           lambda rng, dt, n: [_r(rng, dt, n, 4), _r(rng, dt, n, 4)], attrs={"negative_slope": 0.2}, grad=(0,)),
    OpSpec("SigmoidBackward", lambda g, y: (g * y * (1 - y)).astype(g.dtype),
           lambda rng, dt, n: [_r(rng, dt, n, 4), rng.uniform(0.05, 0.95, (n, 4)).astype(dt)], grad=(0, 1)),
    OpSpec("TanhBackward", lambda g, y: (g * (1 - y * y)).astype(g.dtype),
           lambda rng, dt, n: [_r(rng, dt, n, 4), rng.uniform(-0.9, 0.9, (n, 4)).astype(dt)], grad=(0, 1)),
    OpSpec("Where", lambda c, a, b: np.where(c, a, b),
           lambda rng, dt, n: [rng.random((n, 1, 3)) > 0.5, _r(rng, dt, n, 2, 3), _r(rng, dt, 3)], grad=(1, 2)),
]
for _name, _fn in [("Equal", np.equal), ("NotEqual", np.not_equal), ("Less", np.less),
                   ("LessEqual", np.less_equal), ("Greater", np.greater), ("GreaterEqual", np.greater_equal)]:
    # Small integers make ties common, so == and <= really get exercised.
    SPECS.append(OpSpec(_name, _fn, lambda rng, dt, n: [rng.integers(-2, 3, (n, 1, 3)).astype(dt),
                                                        rng.integers(-2, 3, (2, 3)).astype(dt)],
                        dtypes=("float32", "float64", "int64")))
SPECS.append(OpSpec("Equal", np.equal, lambda rng, dt, n: [rng.random((n, 3)) > 0.5, rng.random((n, 3)) > 0.5],
                    dtypes=("bool",), name="Equal-bool"))


# ---- GELU (exact and tanh), SiLU, ELU, Softplus: PyTorch's formulas, restated in float64 ----
_erf = np.vectorize(__import__("math").erf)
_SQRT_2_PI = np.sqrt(2 / np.pi)


def _f64(x):
    return x.astype(np.float64)


def _gelu(x):
    return (_f64(x) * 0.5 * (1 + _erf(_f64(x) / np.sqrt(2)))).astype(x.dtype)


def _gelu_grad(g, x):
    x64 = _f64(x)
    pdf = np.exp(-0.5 * x64 * x64) / np.sqrt(2 * np.pi)
    return (g * (0.5 * (1 + _erf(x64 / np.sqrt(2))) + x64 * pdf)).astype(g.dtype)


def _gelu_tanh(x):
    x64 = _f64(x)
    return (0.5 * x64 * (1 + np.tanh(_SQRT_2_PI * (x64 + 0.044715 * x64 ** 3)))).astype(x.dtype)


def _gelu_tanh_grad(g, x):
    x64 = _f64(x)
    t = np.tanh(_SQRT_2_PI * (x64 + 0.044715 * x64 ** 3))
    d = 0.5 * (1 + t) + 0.5 * x64 * (1 - t * t) * _SQRT_2_PI * (1 + 3 * 0.044715 * x64 ** 2)
    return (g * d).astype(g.dtype)


def _silu_grad(g, x):
    s = _f64(_sigmoid(x.astype(np.float64)))
    return (g * s * (1 + _f64(x) * (1 - s))).astype(g.dtype)


# The backward maps have no gradient rule of their own (no double backward), so their entries
# check the forward map only.
def _spread(rng, dt, *shape):
    """Values over the activations' interesting range, including beyond softplus's threshold."""
    return (rng.standard_normal(shape) * 3).astype(dt)


SPECS += [
    OpSpec("GELU", _gelu, lambda rng, dt, n: [_spread(rng, dt, n, 5)], grad=(0,)),
    OpSpec("GELUBackward", _gelu_grad, lambda rng, dt, n: [_r(rng, dt, n, 4), _spread(rng, dt, n, 4)]),
    OpSpec("GELUTanh", _gelu_tanh, lambda rng, dt, n: [_spread(rng, dt, n, 5)], grad=(0,)),
    OpSpec("GELUTanhBackward", _gelu_tanh_grad, lambda rng, dt, n: [_r(rng, dt, n, 4), _spread(rng, dt, n, 4)]),
    OpSpec("SiLU", lambda x: (_f64(x) * _f64(_sigmoid(_f64(x)))).astype(x.dtype),
           lambda rng, dt, n: [_spread(rng, dt, n, 5)], grad=(0,)),
    OpSpec("SiLUBackward", _silu_grad, lambda rng, dt, n: [_r(rng, dt, n, 4), _spread(rng, dt, n, 4)]),
    OpSpec("ELU", lambda x, alpha: np.where(x > 0, _f64(x), alpha * np.expm1(_f64(x))).astype(x.dtype),
           lambda rng, dt, n: [_spread(rng, dt, n, 5)], attrs={"alpha": 0.7}, grad=(0,)),
    OpSpec("ELUBackward", lambda g, x, alpha: np.where(x > 0, g, g * alpha * np.exp(_f64(x))).astype(g.dtype),
           lambda rng, dt, n: [_r(rng, dt, n, 4), _spread(rng, dt, n, 4)], attrs={"alpha": 0.7}),
    OpSpec("Softplus", lambda x, threshold: np.where(x > threshold, _f64(x), np.log1p(np.exp(_f64(x)))).astype(x.dtype),
           lambda rng, dt, n: [_spread(rng, dt, n, 5)], attrs={"threshold": 2.0}, grad=(0,)),
    OpSpec("SoftplusBackward",
           lambda g, x, threshold: np.where(x > threshold, g, g * _f64(_sigmoid(_f64(x)))).astype(g.dtype),
           lambda rng, dt, n: [_r(rng, dt, n, 4), _spread(rng, dt, n, 4)], attrs={"threshold": 2.0}),
]


# ---- Hardtanh's one-sided clamps, Hardswish, Hardsigmoid, Mish: PyTorch's formulas in float64 ----
def _off_kinks(rng, dt, *shape, kinks=(-3.0, 3.0)):
    """_spread's values moved at least 0.05 off each kink, so finite differences straddle none."""
    v = rng.standard_normal(shape) * 3
    for k in kinks:
        v = np.where(np.abs(v - k) < 0.05, k + np.where(v >= k, 0.1, -0.1), v)
    return v.astype(dt)


def _hardswish_grad(g, x):
    x64 = _f64(x)
    return (g * np.where(x64 <= -3, 0.0, np.where(x64 < 3, x64 / 3 + 0.5, 1.0))).astype(g.dtype)


def _mish(x):
    x64 = _f64(x)
    return (x64 * np.tanh(np.log1p(np.exp(x64)))).astype(x.dtype)


def _mish_grad(g, x):
    x64 = _f64(x)
    t = np.tanh(np.log1p(np.exp(x64)))
    return (g * (t + x64 * _f64(_sigmoid(x64)) * (1 - t * t))).astype(g.dtype)


SPECS += [
    OpSpec("HardtanhMin", lambda x, min_val: np.where(x < min_val, min_val, x).astype(x.dtype),
           lambda rng, dt, n: [_off_kinks(rng, dt, n, 5, kinks=(-0.5,))], attrs={"min_val": -0.5}, grad=(0,)),
    OpSpec("HardtanhMinBackward", lambda g, x, min_val: np.where(x <= min_val, 0, g).astype(g.dtype),
           lambda rng, dt, n: [_r(rng, dt, n, 4), _off_kinks(rng, dt, n, 4, kinks=(-0.5,))], attrs={"min_val": -0.5},
           grad=(0,)),
    OpSpec("HardtanhMax", lambda x, max_val: np.where(x > max_val, max_val, x).astype(x.dtype),
           lambda rng, dt, n: [_off_kinks(rng, dt, n, 5, kinks=(1.5,))], attrs={"max_val": 1.5}, grad=(0,)),
    OpSpec("HardtanhMaxBackward", lambda g, x, max_val: np.where(x >= max_val, 0, g).astype(g.dtype),
           lambda rng, dt, n: [_r(rng, dt, n, 4), _off_kinks(rng, dt, n, 4, kinks=(1.5,))], attrs={"max_val": 1.5},
           grad=(0,)),
    OpSpec("Hardswish", lambda x: (_f64(x) * np.clip(_f64(x) + 3, 0, 6) / 6).astype(x.dtype),
           lambda rng, dt, n: [_off_kinks(rng, dt, n, 5)], grad=(0,)),
    OpSpec("HardswishBackward", _hardswish_grad, lambda rng, dt, n: [_r(rng, dt, n, 4), _off_kinks(rng, dt, n, 4)]),
    OpSpec("Hardsigmoid", lambda x: (np.clip(_f64(x) + 3, 0, 6) / 6).astype(x.dtype),
           lambda rng, dt, n: [_off_kinks(rng, dt, n, 5)], grad=(0,)),
    OpSpec("HardsigmoidBackward", lambda g, x: np.where((x > -3) & (x < 3), _f64(g) * np.float32(1 / 6), 0).astype(g.dtype),
           lambda rng, dt, n: [_r(rng, dt, n, 4), _off_kinks(rng, dt, n, 4)], grad=(0,)),
    OpSpec("Mish", _mish, lambda rng, dt, n: [_spread(rng, dt, n, 5)], grad=(0,)),
    OpSpec("MishBackward", _mish_grad, lambda rng, dt, n: [_r(rng, dt, n, 4), _spread(rng, dt, n, 4)]),
]


# ---- PyTorch's math rows (torch.abs, torch.sin, ..., torch.atan2, torch.remainder) ----
def _away(v, points, gap=0.05):
    """v moved at least gap away from each kink in points (finite differences straddle none)."""
    for p in points:
        near = np.abs(v - p) < gap
        v = np.where(near, p + np.where(v >= p, gap, -gap) * 2, v)
    return v


def _unary(name, ref, lo=-2.0, hi=2.0, kinks=(), grad=True, dtypes=("float32", "float64")):
    def inputs(rng, dt, n):
        return [_away(rng.uniform(lo, hi, (n, 4)), kinks).astype(dt)]
    return OpSpec(name, lambda x: ref(x.astype(np.float64)).astype(x.dtype), inputs, grad=(0,) if grad else (),
                  dtypes=dtypes)


def _ints(rng, dt, n):
    return [rng.integers(-9, 10, (n, 4)).astype(dt)]


SPECS += [
    _unary("Abs", np.abs, kinks=(0.0,)),
    OpSpec("Abs", np.abs, _ints, dtypes=("int64",), name="Abs-int64"),
    OpSpec("Abs", lambda x: np.abs(x), lambda rng, dt, n: [np.array([-0.0, 0.0, -1.5, np.nan] * n, dt)],
           name="Abs-signed-zero-nan"),
    _unary("Sign", np.sign, kinks=(0.0,), grad=False),
    OpSpec("Sign", lambda x: np.sign(x).astype(x.dtype), _ints, dtypes=("int64",), name="Sign-int64"),
    OpSpec("Sign", lambda x: np.nan_to_num(np.sign(x), nan=0.0).astype(x.dtype),
           lambda rng, dt, n: [np.array([-0.0, 0.0, -1.5, np.nan] * n, dt)], name="Sign-zero-nan"),
    _unary("Sin", np.sin, -4, 4), _unary("Cos", np.cos, -4, 4), _unary("Tan", np.tan, -1.2, 1.2),
    _unary("Asin", np.arcsin, -0.9, 0.9), _unary("Acos", np.arccos, -0.9, 0.9), _unary("Atan", np.arctan, -4, 4),
    _unary("Sinh", np.sinh), _unary("Cosh", np.cosh), _unary("Asinh", np.arcsinh, -4, 4),
    _unary("Acosh", np.arccosh, 1.1, 4), _unary("Atanh", np.arctanh, -0.9, 0.9),
    _unary("Exp2", np.exp2, -4, 4), _unary("Log2", np.log2, 0.1, 4), _unary("Log10", np.log10, 0.1, 4),
    _unary("Log1p", np.log1p, -0.9, 4), _unary("Expm1", np.expm1, -3, 3),
    _unary("Erf", np.vectorize(__import__("math").erf), -3, 3), _unary("Rsqrt", lambda x: 1 / np.sqrt(x), 0.1, 4),
    # floor / ceil / round / trunc: halves included (round ties to even, as PyTorch); no gradient
    OpSpec("Floor", np.floor, lambda rng, dt, n: [(rng.integers(-20, 20, (n, 4)) / 4).astype(dt)]),
    OpSpec("Ceil", np.ceil, lambda rng, dt, n: [(rng.integers(-20, 20, (n, 4)) / 4).astype(dt)]),
    OpSpec("Round", np.round, lambda rng, dt, n: [(rng.integers(-20, 20, (n, 4)) / 4).astype(dt)]),
    OpSpec("Trunc", np.trunc, lambda rng, dt, n: [(rng.integers(-20, 20, (n, 4)) / 4).astype(dt)]),
    OpSpec("Floor", lambda x: x, _ints, dtypes=("int64",), name="Floor-int64"),
    OpSpec("Round", lambda x: x, _ints, dtypes=("int64",), name="Round-int64"),
    OpSpec("Pow", lambda a, b: np.power(a, b).astype(a.dtype),
           lambda rng, dt, n: [_pos(rng, dt, n, 1, 3), rng.uniform(-2, 2, (2, 3)).astype(dt)], grad=(0, 1)),
    OpSpec("Pow", lambda a, b: np.power(a, b), lambda rng, dt, n: [rng.integers(-3, 4, (n, 3)).astype(dt),
                                                                   rng.integers(0, 5, (3,)).astype(dt)],
           dtypes=("int64",), name="Pow-int64"),
    OpSpec("PowScalar", lambda x, exponent: np.power(x, int(exponent)), _ints, attrs={"exponent": 3.0},
           dtypes=("int64",), name="PowScalar-int64"),
    OpSpec("Atan2", lambda a, b: np.arctan2(a, b).astype(a.dtype), _pair, grad=(0, 1)),
    OpSpec("Remainder", lambda a, b: np.remainder(a, b).astype(a.dtype),
           lambda rng, dt, n: [rng.uniform(-5, 5, (n, 1, 3)).astype(dt),
                               _away(rng.uniform(-2, 2, (2, 3)), (0.0,), 0.3).astype(dt)], grad=(0, 1)),
    OpSpec("Remainder", np.remainder, lambda rng, dt, n: [rng.integers(-9, 10, (n, 3)).astype(dt),
                                                          np.array([3, -4, 7], dt)],
           dtypes=("int64",), name="Remainder-int64"),
    OpSpec("Fmod", lambda a, b: np.fmod(a, b).astype(a.dtype),
           lambda rng, dt, n: [rng.uniform(-5, 5, (n, 1, 3)).astype(dt),
                               _away(rng.uniform(-2, 2, (2, 3)), (0.0,), 0.3).astype(dt)], grad=(0, 1)),
    OpSpec("Fmod", np.fmod, lambda rng, dt, n: [rng.integers(-9, 10, (n, 3)).astype(dt), np.array([3, -4, 7], dt)],
           dtypes=("int64",), name="Fmod-int64"),
    OpSpec("FloorDivide", lambda a, b: np.floor_divide(a, b).astype(a.dtype),
           lambda rng, dt, n: [rng.uniform(-5, 5, (n, 1, 3)).astype(dt),
                               _away(rng.uniform(-2, 2, (2, 3)), (0.0,), 0.3).astype(dt)]),
    OpSpec("FloorDivide", np.floor_divide, lambda rng, dt, n: [rng.integers(-9, 10, (n, 3)).astype(dt),
                                                               np.array([3, -4, 7], dt)],
           dtypes=("int64",), name="FloorDivide-int64"),
    # an integer division by zero gives 0 instead of trapping (PyTorch refuses a zero divisor
    # on the CPU, which glassgrad's Python functions check for a number); INT64_MIN // -1 wraps
    OpSpec("FloorDivide", lambda a, b: np.array([0, 0, -(2**63)] * (a.size // 3), np.int64).reshape(a.shape),
           lambda rng, dt, n: [np.array([5, -7, -(2**63)] * n, dt).reshape(n, 3), np.array([0, 0, -1], dt)],
           dtypes=("int64",), name="FloorDivide-int64-zero", noncontiguous=False),
]
for _name, _fn in [("LogicalAnd", np.logical_and), ("LogicalOr", np.logical_or), ("LogicalXor", np.logical_xor)]:
    SPECS.append(OpSpec(_name, _fn, lambda rng, dt, n: [rng.integers(-1, 2, (n, 1, 3)).astype(dt),
                                                        rng.integers(-1, 2, (2, 3)).astype(dt)],
                        dtypes=("float32", "float64", "int64", "uint8", "bool")))
