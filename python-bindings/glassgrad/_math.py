"""PyTorch's elementwise arithmetic and math functions (torch.add, torch.sin, torch.clamp, ...),
with its type promotion (glassgrad/_dtypes.py): each function is also the Tensor method of the
same name (glassgrad/_methods.py binds them), and the operators (+, /, //, %, **, unary -) call
them.

Every function records the kernel-backed op of its row in elementwise_ops.def (Sin, Abs, Pow,
Remainder, ...) after converting its operands to the result's dtype; a few are compositions of
rows (clamp, lerp, frac, round with decimals), with PyTorch's gradients at ties and kinks
(docs/porting.md, "Dtypes and gradients at kinks").
"""
from __future__ import annotations

import builtins
import functools
import math
import numbers
import warnings
from typing import Optional

import numpy as np

from . import _C, _args, _autocast, _dtypes, _python_ints
from ._dtypes import DTYPES
from ._tensor import RefusedValueError, Tensor, _NP, _op, _wrap, check_fits, raw_from_numpy, scalar_array, tensor
from ._out import accepts_out
from ._runtime import records_grad
from ._trace import user_stacklevel
from ._torch_operands import named_node, node_attrs
from ._opmath import REDUCED, round_number, rounded_once

_Number = (numbers.Number, np.number, np.bool_)


def is_number(x) -> bool:
    return isinstance(x, _Number) and not isinstance(x, Tensor)


def _scalar_like(x) -> bool:
    """A number, or what PyTorch's argument parser reads as one: a 0-d tensor not requiring grad."""
    return is_number(x) or (isinstance(x, Tensor) and x.ndim == 0 and not x.requires_grad)


def _scalar_first_overload(keyword: str, n_tensors: int, spelled: str, instead: str, numbers_too: bool = False):
    """Accepts PyTorch's deprecated overload that passes `keyword` (alpha, value) first and
    positionally, as scripts of PyTorch 0.4's time write it (optimizers copied from its source:
    p.data.add_(-lr, d_p), exp_avg_sq.addcmul_(1 - beta2, grad, grad)), with PyTorch's warning;
    the documented signature is unchanged (docs/porting.md). As PyTorch's parser, it takes for the
    number a 0-d tensor that does not require grad (fast.ai's LAMB step passes
    `-lr * min(r1/r2, 10)`, a 0-d tensor, so), as its value. numbers_too: the operands may be numbers
    too, as add's and sub's (x.add(2, 1.5) is x + 2 * 1.5 in PyTorch)."""
    def wrap(fn):
        @functools.wraps(fn)
        def call(input, *args, **kwargs):
            if (len(args) == n_tensors + 1 and _scalar_like(args[0]) and keyword not in kwargs
                    and all(isinstance(a, Tensor) or (numbers_too and is_number(a)) for a in args[1:])):
                name = fn.__name__
                warnings.warn(f"This overload of {name} is deprecated:\n\t{name}({spelled})\nConsider using one "
                              f"of the following signatures instead:\n\t{name}({instead})", UserWarning,
                              stacklevel=user_stacklevel())
                kwargs[keyword] = args[0].item() if isinstance(args[0], Tensor) else args[0]
                args = args[1:]
            return fn(input, *args, **kwargs)
        return call
    return wrap


def constant(value, dtype, device) -> Tensor:
    """A 0-d constant (a leaf: its value is data, not structure, so a new value keeps the plan)."""
    arr = scalar_array(value, _NP[_dtypes.plain(dtype)])
    return _wrap(_C.lazy_leaf(raw_from_numpy(arr, device, "constant", dtype), "constant", False, ""))


def _device_of(*xs):
    for x in xs:
        if isinstance(x, Tensor):
            return x.device
    return None


def as_operand(x, dtype, device) -> Tensor:
    """x (a tensor, a number, an array or nested lists) as a tensor of dtype, converting a tensor."""
    if isinstance(x, Tensor):
        return x.astype(dtype)
    if is_number(x):
        return constant(x, dtype, device)
    if isinstance(x, (np.ndarray, list, tuple)):
        return tensor(x, device=device).astype(dtype)
    raise TypeError(f"unsupported operand type {type(x).__name__} for a glassgrad.Tensor\n"
                    f"  fix: pass a glassgrad.Tensor or a number")


def _operands(a, b):
    """NumPy arrays taking part as tensors, so result_type sees their dtype. A list or tuple is
    refused with a TypeError, as PyTorch's functions refuse it (torch.add(x, [1, 2]))."""
    dev = _device_of(a, b)
    _python_ints.check_ints((a, b))
    fix = [tensor(x, device=dev) if isinstance(x, np.ndarray) else x for x in (a, b)]
    for x in fix:
        if not isinstance(x, Tensor) and not is_number(x):
            raise TypeError(f"expected a glassgrad.Tensor or a number as an operand, got {type(x).__name__}\n"
                            f"  fix: convert it first, e.g. glassgrad.tensor(value)")
    return fix[0], fix[1], dev


def result_type_operands(a, b):
    """a and b as tensors of their result_type (numbers as 0-d constants)."""
    a, b, dev = _operands(a, b)
    dt = _dtypes.result_type(a, b)
    return as_operand(a, dt, dev), as_operand(b, dt, dev)


def float_result_operands(a, b):
    """a and b as tensors of result_type(a, b), or of the default float when that is integral or
    bool: torch.copysign, xlogy and ldexp promote first and then go floating (an int8 tensor and
    a float16 tensor give float16, not float32; a 0-d float64 joins an int tensor as float64).
    Each operand converts from its own dtype (a 0-d int16 -1 beside a uint8 tensor is -1.0, never
    255 through uint8), as PyTorch's integer-to-float promotion does."""
    a, b, dev = _operands(a, b)
    dt = _dtypes.result_type(a, b)
    if not dt.is_floating_point:
        dt = _dtypes.DEFAULT_FLOAT
    return as_operand(a, dt, dev), as_operand(b, dt, dev)


def binary(op: str, a, b, dtype=None, attrs: Optional[dict] = None) -> Tensor:
    """op(a, b) computed in dtype (default: result_type(a, b)), both operands converted to it."""
    a, b, dev = _operands(a, b)
    dt = dtype or _dtypes.result_type(a, b)
    return _op(op, [as_operand(a, dt, dev), as_operand(b, dt, dev)], attrs)


def torch_node(node: str, *operands) -> dict:
    """The attribute naming PyTorch's node (Tensor.grad_fn) on a composite's last op, when an
    operand requires grad (the plain path records none)."""
    return {"torch_node": node} if any(isinstance(t, Tensor) and t.requires_grad for t in operands) else {}


def _float_input(x: Tensor) -> Tensor:
    """x converted to the default float type unless it is floating (torch.sin of an int tensor
    is float32)."""
    return x if x.dtype.is_floating_point else x.astype(_dtypes.DEFAULT_FLOAT)


def _unary_float(name: str):
    def fn(input: Tensor) -> Tensor:
        return _op(name, [_float_input(input)])
    return fn


# ---- arithmetic ---------------------------------------------------------------------------------
def _scaled(input, other, alpha, where: str):
    """alpha * other for add/sub, computed in result_type(input, other) (as PyTorch's, so a float32
    other added to float64 keeps float64's digits). alpha as PyTorch takes it: refused as a float
    for integer operands, a bool for bool ones (bool + 2 * bool is an or)."""
    x, y, dev = _operands(input, other)
    dt = _dtypes.result_type(x, y)
    if isinstance(alpha, np.bool_):
        alpha = float(alpha)  # PyTorch reads NumPy's bool as a float (scalar_dtype)
    if not dt.is_floating_point and isinstance(alpha, (float, np.floating)):
        raise RefusedValueError(f"{where}: For integral input tensors, argument alpha must not be a floating point "
                                f"number (alpha={alpha}, the result is {dt})\n  fix: an integer alpha, or convert "
                                f"first: x.float()")
    if dt == "bool":
        alpha = builtins.bool(alpha)
    elif isinstance(alpha, (bool, np.bool_)):
        raise RefusedValueError(f"{where}: Boolean alpha only supported for Boolean results (the result is {dt})\n"
                                f"  fix: alpha=1 or another number")
    else:
        check_fits(alpha, dt, f"{where}'s alpha")  # converted checked, as PyTorch's: int8's 300 is refused
        if dt in REDUCED:  # PyTorch's kernel rounds alpha, and alpha * other, to dt (_opmath)
            alpha = round_number(alpha, dt)
    if is_number(y):
        if dt == "bool":
            return builtins.bool(y and alpha)
        product = y * alpha
        integral = isinstance(product, (int, np.integer)) and not dt.is_floating_point
        return _python_ints.int64_wrapped(builtins.int(product)) if integral else product  # int64's product
    return scaled_by_argument(as_operand(y, dt, dev), alpha)


def _check_in_opmath(value, dt, where: str) -> None:
    """check_fits for a number that PyTorch converts checked to the type it computes dt in
    (addcmul's and addcdiv's value, lerp's weight): float32 for float16 and bfloat16, so that
    float16's 7e4 passes and float32's 1e39 is refused."""
    check_fits(value, "float32" if dt in ("float16", "bfloat16") else dt, where)


def scaled_by_argument(t: Tensor, k) -> Tensor:
    """t * k where k is a number PyTorch's op takes as a Scalar argument (add's and sub's alpha,
    lerp's weight): unlike x * 2, whose number PyTorch wraps as a tensor and saves, it saves nothing
    for the gradient, so a second backward through it is allowed (attribute scalar_arg: see
    check_saved in core-runtime/src/lazy/backward.cpp)."""
    _python_ints.check_int(k)
    if t.dtype == "bool" or not is_number(k) or isinstance(k, (bool, np.bool_)) \
            or not _python_ints.attribute_exact(k, t.dtype):
        return mul(t, k)
    return _op("MulScalar", [t], {"value": float(k), "scalar_arg": 1.0})


def _scalar_attr(value, dt) -> float:
    """A number as the value of AddScalar / MulScalar computing in dt: an int of [2**63, 2**64) is
    the int64 PyTorch reads for an integer dt (2**64 - 1 is -1; docs/porting.md, "Python numbers
    beside tensors"), as x + n reads it (_methods._with_number)."""
    if type(value) is int and not dt.is_floating_point:
        value = _python_ints.wrapped(value)
    return float(value)


@accepts_out
@_scalar_first_overload("alpha", 1, "Number alpha, Tensor other", "Tensor other, *, Number alpha = 1", True)
def add(input, other, *, alpha=1) -> Tensor:
    """input + alpha * other (torch.add), in result_type(input, other); bool + bool is or."""
    if not (type(alpha) is int and alpha == 1):
        other = _scaled(input, other, alpha, "add")
    x, y, _ = _operands(input, other)
    dt = _dtypes.result_type(x, y)
    if dt == "bool":
        return binary("LogicalOr", x, y, dt)
    if isinstance(x, Tensor) and is_number(y) and x.dtype == dt and _python_ints.attribute_exact(y, dt):
        return _op("AddScalar", [x], {"value": _added_number(y, dt)})
    if isinstance(y, Tensor) and is_number(x) and y.dtype == dt and _python_ints.attribute_exact(x, dt):
        return _op("AddScalar", [y], {"value": _added_number(x, dt)})
    return binary("Add", x, y, dt)


def _added_number(value, dt) -> float:
    """A number added to (or subtracted from) a tensor computing in dt, as PyTorch's add kernel
    reads it: converted to dt first, so float16's x + 0.1 adds float16's 0.1 (_opmath)."""
    return round_number(_scalar_attr(value, dt), dt) if dt in REDUCED else _scalar_attr(value, dt)


@accepts_out
@_scalar_first_overload("alpha", 1, "Number alpha, Tensor other", "Tensor other, *, Number alpha = 1", True)
def sub(input, other, *, alpha=1) -> Tensor:
    """input - alpha * other (torch.sub); refused for two bools, as PyTorch refuses it."""
    x, y, _ = _operands(input, other)
    # np.bool_ is not refused: it takes part as a float (scalar_dtype), as in PyTorch 2.14
    if any(isinstance(v, bool) or (isinstance(v, Tensor) and v.dtype == "bool") for v in (x, y)):
        raise _args.UnsupportedDTypeError("sub: subtracting with a bool operand is not supported (PyTorch refuses it too)\n"
                            "  fix: a ^ b or logical_xor(a, b) for 'differs', or convert first: a.long() - b")
    if not (type(alpha) is int and alpha == 1):
        x, y, _ = _operands(x, _scaled(x, y, alpha, "sub"))
    dt = _dtypes.result_type(x, y)
    if isinstance(x, Tensor) and is_number(y) and x.dtype == dt and _python_ints.attribute_exact(y, dt):
        return _op("AddScalar", [x], {"value": -_added_number(y, dt), "torch_node": "SubBackward0"})
    if isinstance(y, Tensor) and is_number(x) and y.dtype == dt and _python_ints.attribute_exact(x, dt):
        negated = _op("Neg", [y])
        listed = [0, 0] if y._h.requires_grad else []  # PyTorch's node lists y alone (_torch_operands)
        value = _added_number(x, dt)
        return _op("AddScalar", [negated], {"value": value, "torch_node": "RsubBackward1", "torch_operands": listed}
                   if listed else {"value": value, "torch_node": "RsubBackward1"})
    return binary("Sub", x, y, dt)


subtract = sub


def rsub(input, other, alpha=1) -> Tensor:
    """other - alpha * input (torch.rsub, Tensor.rsub): sub with its operands swapped."""
    return sub(other, input, alpha=alpha)


@accepts_out
def mul(input, other) -> Tensor:
    """input * other (torch.mul), in result_type(input, other); bool * bool is and."""
    x, y, _ = _operands(input, other)
    dt = _dtypes.result_type(x, y)
    if dt == "bool":
        return binary("LogicalAnd", x, y, dt)
    if isinstance(x, Tensor) and is_number(y) and x.dtype == dt and _python_ints.attribute_exact(y, dt):
        return _op("MulScalar", [x], {"value": _scalar_attr(y, dt)})
    if isinstance(y, Tensor) and is_number(x) and y.dtype == dt and _python_ints.attribute_exact(x, dt):
        return _op("MulScalar", [y], {"value": _scalar_attr(x, dt)})
    if dt in REDUCED and _wider_scalar_tensor(x, y, dt):
        return rounded_once(mul, "MulBackward0", x, y)
    return binary("Mul", x, y, dt)


def _wider_scalar_tensor(x, y, dt) -> bool:
    """Whether one operand of a float16 or bfloat16 product or quotient is a 0-d tensor of
    another floating dtype (float32, float64): PyTorch's kernel reads its value in float32,
    unrounded to dt (_opmath)."""
    return any(isinstance(t, Tensor) and t.ndim == 0 and t.dtype != dt and t.dtype.is_floating_point for t in (x, y)) \
        and all(isinstance(t, Tensor) for t in (x, y))


multiply = mul


class IntegerDivisionByZeroError(ZeroDivisionError, RuntimeError):
    """An integer tensor divided by zero: PyTorch raises RuntimeError('ZeroDivisionError'), Python's
    ints ZeroDivisionError; this is both."""


def _check_integer_divisor(where: str, other, dt) -> None:
    """An integer division by zero raises, as PyTorch's does on the CPU: a zero number at once, a
    tensor divisor once its values are computed (which this forces: an integer division by a
    tensor is rare, and a silent 0 would be wrong). Two bools have no such division (PyTorch's
    NotImplementedError)."""
    if DTYPES[_dtypes.plain(dt)].is_floating_point:
        return
    if dt == "bool":
        kernel = {"floor_divide": "div_floor", "div": "div_trunc"}.get(where, where)
        raise _args.UnsupportedDTypeError(f'"{kernel}_cpu" not implemented for \'Bool\'\n  {where}: bool operands '
                                          f"have no integer division\n  fix: convert first, e.g. a.long() // b.long()")
    # the divisor as the division sees it: converted to dt (int32 40960 is 0 as uint8)
    zero = other == 0 if is_number(other) else builtins.bool((np.asarray(other.astype(dt).numpy(force=True)) == 0).any())
    if zero:
        raise IntegerDivisionByZeroError(f"{where}: integer division by zero (PyTorch raises here too)\n"
                                f"  fix: divide by nonzero values, or in floats: x.float() {where} y")


@accepts_out
def div(input, other, *, rounding_mode: Optional[str] = None) -> Tensor:
    """input / other (torch.div): true division in a floating type (int64 / 2 is float32), or
    rounding_mode='trunc' / 'floor' in result_type(input, other)."""
    x, y, dev = _operands(input, other)
    if rounding_mode is None:
        dt = _dtypes.floating(_dtypes.result_type(x, y))
        if dt in REDUCED and isinstance(x, Tensor) and x.dtype == dt and (is_number(y) or _wider_scalar_tensor(x, y, dt)):
            # PyTorch divides by the number (or 0-d tensor) in float32, unrounded (_opmath)
            return named_node(div(x.float(), y.float() if isinstance(y, Tensor) else y).to(dt), "DivBackward0", x)
        if isinstance(x, Tensor) and is_number(y) and x.dtype == dt and y != 0:
            return _op("MulScalar", [x], {"value": 1.0 / float(y), "torch_node": "DivBackward0"}) \
                if _exact_reciprocal(y) else \
                binary("Div", x, y, dt)
        if isinstance(y, Tensor) and is_number(x) and y.dtype == dt:
            return _op("RDivScalar", [y], {"value": float(x)})
        return binary("Div", x, y, dt)
    if rounding_mode == "floor":
        return _floor_divide(x, y, "DivBackward2")
    if rounding_mode == "trunc":
        dt = _dtypes.result_type(x, y)
        if dt.is_floating_point:
            return trunc(binary("Div", x, y, dt))
        _check_integer_divisor("div", y, dt)
        x, y = as_operand(x, dt, dev), as_operand(y, dt, dev)  # a number too (lt below takes tensors)
        q = binary("FloorDivide", x, y, dt)
        r = binary("Fmod", x, y, dt)
        # floor and trunc differ by one where the remainder is nonzero and the signs differ
        fix = logical_and(ne(r, 0), ne(lt(x, 0), lt(y, 0)))
        return add(q, fix.astype(dt))
    raise _C.InvalidArgumentError(f"div: rounding_mode must be None, 'trunc' or 'floor', got {rounding_mode!r}")


def _exact_reciprocal(y) -> bool:
    """Whether x * (1 / y) equals x / y for every x: y a power of two (0.5, 2, 0.25, ...)."""
    m, _ = math.frexp(float(y))
    return builtins.abs(m) == 0.5


divide = div


def true_divide(input, other) -> Tensor:
    """input / other in a floating type (torch.true_divide, torch.div without rounding_mode)."""
    return div(input, other)


def floor_divide(input, other) -> Tensor:
    """floor(input / other) (torch.floor_divide, the // operator), in result_type; a backward
    through it raises, as PyTorch's."""
    return _floor_divide(input, other, "NotImplemented")


def _floor_divide(input, other, node: str) -> Tensor:
    """floor_divide, its result requiring grad when an operand does, named as PyTorch's node
    `node`: div(rounding_mode='floor') (DivBackward2) gives a zero gradient, and a backward
    through // raises as PyTorch's, which defines no derivative for it."""
    x, y, _ = _operands(input, other)
    dt = _dtypes.result_type(x, y)
    _check_integer_divisor("floor_divide", y, dt)
    tensors = [t for t in (x, y) if isinstance(t, Tensor)]
    if not records_grad() or not any(t.requires_grad for t in tensors):
        return binary("FloorDivide", x, y, dt)
    q = binary("FloorDivide", x.detach() if isinstance(x, Tensor) else x, y.detach() if isinstance(y, Tensor) else y, dt)
    return _join_history(q, tensors, node, None if node == "DivBackward2" else "aten::floor_divide")


def _join_history(result: Tensor, operands, node: str, no_derivative: Optional[str]) -> Tensor:
    """`result` (computed from detached operands) joined to each operand that requires grad
    through a Where that always picks the result: the operand's gradient is 0, or, with
    `no_derivative` (PyTorch's op name, "aten::floor_divide"), a backward through it raises
    PyTorch's "derivative for ... is not implemented". Named as PyTorch's node `node`."""
    keep = constant(True, DTYPES["bool"], result.device)
    attrs = {"torch_node": node} if no_derivative is None else {"torch_node": node, "no_derivative": no_derivative}
    for t in operands:
        if t.requires_grad:
            result = _op("Where", [keep, result, t.astype(result.dtype)], attrs)
    return result


def remainder(input, other) -> Tensor:
    """input - floor(input / other) * other, the sign of other (torch.remainder, the % operator)."""
    x, y, _ = _operands(input, other)
    dt = _dtypes.result_type(x, y)
    _check_integer_divisor("remainder", y, dt)
    # PyTorch's node: RemainderBackward1 for two tensors, RemainderBackward0 with a number
    both = isinstance(x, Tensor) and isinstance(y, Tensor)
    return binary("Remainder", x, y, dt, torch_node("RemainderBackward1", x, y) if both else None)


def fmod(input, other) -> Tensor:
    """input - trunc(input / other) * other, the sign of input (torch.fmod; input a tensor, as PyTorch's)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"fmod(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}\n"
                        f"  fix: glassgrad.fmod(glassgrad.tensor({input!r}), other)")
    x, y, _ = _operands(input, other)
    dt = _dtypes.result_type(x, y)
    _check_integer_divisor("fmod", y, dt)
    both = isinstance(x, Tensor) and isinstance(y, Tensor)
    return binary("Fmod", x, y, dt, torch_node("FmodBackward1", x, y) if both else None)


def neg(input: Tensor) -> Tensor:
    """-x, elementwise (torch.neg and torch.negative); refused for bool, as in PyTorch."""
    if input.dtype == "bool":
        raise _args.UnsupportedDTypeError("neg: negation of a bool tensor is not supported (PyTorch refuses it too)\n"
                            "  fix: ~x or logical_not(x)")
    return _op("Neg", [input])


negative = neg


def positive(input: Tensor) -> Tensor:
    """The input itself (torch.positive); refused for bool, as PyTorch's unary +."""
    if input.dtype == "bool":
        raise _C.UnsupportedError(f"positive: The `+` operator, on a bool tensor is not supported (shape "
                                  f"{list(input.shape)}), as in PyTorch\n  fix: the tensor itself, or x.long()")
    return input


@_autocast.op("pow")
def pow(input, exponent) -> Tensor:
    """input ** exponent (torch.pow), in result_type(input, exponent); either may be a number.
    Gradients as PyTorch's: d/dx x**0 = 0 at 0 too, d/db a**b = 0 where a = 0 and b >= 0."""
    x, e, dev = _operands(input, exponent)
    dt = _dtypes.result_type(x, e)
    if not dt.is_floating_point and is_number(e) and e < 0:
        raise RefusedValueError("pow: integers to negative integer powers are not allowed (as in PyTorch)\n"
                                      "  fix: x.float() ** e")
    if dt == "bool":  # a ** b of bools, for a number b: true unless a is false and b true
        if not is_number(e):
            raise _C.UnsupportedError("pow: a bool tensor to the power of a bool tensor is not supported (nor in "
                                      "PyTorch)\n  fix: convert first, e.g. a.long() ** b.long()")
        return logical_or(x, logical_not(as_operand(e, dt, dev)))
    if isinstance(x, Tensor) and is_number(e):
        if dt != "float32":  # PyTorch computes float32's power in float64, float16's in float16
            check_fits(e, dt, "pow")
        return _op("PowScalar", [x.astype(dt)], {"exponent": float(e)})
    # PyTorch's nodes: PowBackward1 for two tensors, PowBackward2 for a number to a tensor's
    # powers (listing the exponent alone)
    if is_number(x):
        base = as_operand(x, dt, dev)
        power = as_operand(e, dt, dev)
        return _op("Pow", [base, power], node_attrs("PowBackward2", [base, power], e))
    return binary("Pow", x, e, dt, torch_node("PowBackward1", x, e))


_pow = pow  # the module's own pow, under a name that is no builtin's


def float_power(input, exponent) -> Tensor:
    """input ** exponent in float64 (torch.float_power)."""
    return _pow(as_operand(input, DTYPES["float64"], _device_of(input, exponent)),
               exponent if is_number(exponent) else as_operand(exponent, DTYPES["float64"], _device_of(input)))


def ldexp(input, other) -> Tensor:
    """input * 2 ** other (torch.ldexp): floating point even for integer inputs."""
    x, e = float_result_operands(input, other)
    return mul(x, exp2(e))


def abs(input: Tensor) -> Tensor:
    """|x| (torch.abs); its gradient at 0 is 0, as PyTorch's."""
    _refuse_bool_operand(input, "abs")
    return _op("Abs", [input])


def _refuse_bool_operand(input, name: str) -> None:
    """PyTorch has no kernel of these unary ops for bool: its NotImplementedError
    ('"abs_cpu" not implemented for 'Bool''), an UnsupportedDTypeError here."""
    if isinstance(input, Tensor) and input._h.dtype == "bool":
        raise _args.UnsupportedDTypeError(f'"{name}_cpu" not implemented for \'Bool\'\n  {name}: a bool tensor '
                                          f"{list(input.shape)} has no {name}\n  fix: convert first, e.g. x.long()")


absolute = abs


def sign(input: Tensor) -> Tensor:
    """-1, 0 or 1 (torch.sign; 0 for NaN; a bool tensor is its own sign); no gradient flows."""
    return input if input.dtype == "bool" else _op("Sign", [input])


sgn = sign


def square(input: Tensor) -> Tensor:
    """input ** 2 (torch.square; bool gives int64, as PyTorch's)."""
    return _pow(input, 2)


@_autocast.op("reciprocal")
def reciprocal(input: Tensor) -> Tensor:
    """1 / input in a floating type (torch.reciprocal)."""
    return _op("RDivScalar", [_float_input(input)], {"value": 1.0, "torch_node": "ReciprocalBackward0"})


sin, cos, tan = _unary_float("Sin"), _unary_float("Cos"), _unary_float("Tan")
asin, acos, atan = _unary_float("Asin"), _unary_float("Acos"), _unary_float("Atan")
sinh, cosh, tanh = _unary_float("Sinh"), _unary_float("Cosh"), _unary_float("Tanh")
asinh, acosh, atanh = _unary_float("Asinh"), _unary_float("Acosh"), _unary_float("Atanh")
exp, exp2, expm1 = _unary_float("Exp"), _unary_float("Exp2"), _unary_float("Expm1")
log, log2, log10, log1p = _unary_float("Log"), _unary_float("Log2"), _unary_float("Log10"), _unary_float("Log1p")
sqrt, erf, sigmoid = _unary_float("Sqrt"), _unary_float("Erf"), _unary_float("Sigmoid")


def rsqrt(input: Tensor) -> Tensor:
    x = _float_input(input)
    if x.dtype in REDUCED:  # PyTorch's float16 and bfloat16 kernel: 1 / sqrt(x), the root rounded first (_opmath)
        return _op("RDivScalar", [sqrt(x)], {"value": 1.0, **torch_node("RsqrtBackward0", x)})
    return _op("Rsqrt", [x])


arcsin, arccos, arctan = asin, acos, atan
arcsinh, arccosh, arctanh = asinh, acosh, atanh
for _f, _name, _what in [(sin, "sin", "sin(x)"), (cos, "cos", "cos(x)"), (tan, "tan", "tan(x)"),
                         (asin, "asin", "arcsine"), (acos, "acos", "arccosine"), (atan, "atan", "arctangent"),
                         (sinh, "sinh", "sinh(x)"), (cosh, "cosh", "cosh(x)"), (tanh, "tanh", "tanh(x)"),
                         (asinh, "asinh", "inverse sinh"), (acosh, "acosh", "inverse cosh"),
                         (atanh, "atanh", "inverse tanh"), (exp, "exp", "e^x"), (exp2, "exp2", "2^x"),
                         (expm1, "expm1", "e^x - 1, exact near 0"), (log, "log", "natural logarithm"),
                         (log2, "log2", "base-2 logarithm"), (log10, "log10", "base-10 logarithm"),
                         (log1p, "log1p", "log(1 + x), exact near 0"), (sqrt, "sqrt", "square root"),
                         (rsqrt, "rsqrt", "1 / sqrt(x)"), (erf, "erf", "the error function"),
                         (sigmoid, "sigmoid", "1 / (1 + e^-x)")]:
    _f.__name__ = _f.__qualname__ = _name
    _f.__doc__ = f"{_what}, elementwise (torch.{_name}); an integer input gives float32."
# the ones PyTorch's CUDA autocast runs in float32 (_autocast_lists.py)
exp, expm1, log, log2, log10, log1p = (_autocast.op(f.__name__)(f) for f in (exp, expm1, log, log2, log10, log1p))
rsqrt, sinh, cosh, tan, asin, acos = (_autocast.op(f.__name__)(f) for f in (rsqrt, sinh, cosh, tan, asin, acos))
arcsin, arccos = asin, acos


def _rounding(name: str, doc: str):
    def fn(input: Tensor) -> Tensor:
        _refuse_bool_operand(input, name.lower())
        return _op(name, [input])
    fn.__doc__ = doc
    return fn


floor = _rounding("Floor", "The largest whole number <= x (torch.floor); integers unchanged; no gradient flows.")
ceil = _rounding("Ceil", "The smallest whole number >= x (torch.ceil); integers unchanged; no gradient flows.")
trunc = _rounding("Trunc", "x rounded toward 0 (torch.trunc); integers unchanged; no gradient flows.")
floor.__name__, ceil.__name__, trunc.__name__ = "floor", "ceil", "trunc"
fix = trunc


def round(input: Tensor, *, decimals=_args.ABSENT) -> Tensor:
    """x rounded to `decimals` places (0 when left out), halves to even (torch.round: round(x *
    10^d) / 10^d, or round(x / 10^-d) * 10^-d for negative d); no gradient flows. An integer
    tensor rounds to itself without decimals=; with it (0 too), PyTorch's kernels refuse it."""
    if decimals is not _args.ABSENT:  # PyTorch's overload with decimals has no integer kernel
        _args.floating_input(input, "round_vml_cpu" if decimals == 0 else "round_cpu")
    else:
        decimals = 0
    if decimals == 0:
        _refuse_bool_operand(input, "round")
        return _op("Round", [input])
    scale = 10.0 ** builtins.abs(decimals)
    if decimals > 0:
        return _op("Round", [input * scale]) / scale
    return _op("Round", [input / scale]) * scale


def frac(input: Tensor) -> Tensor:
    """x - trunc(x), the sign of x (torch.frac); refused for integers and bool, as in PyTorch."""
    if not input.dtype.is_floating_point:
        raise _C.UnsupportedError(f"frac: not implemented for {input.dtype} (shape {list(input.shape)}): an "
                                  f"integer has no fractional part (as in PyTorch)\n  fix: x.float().frac()")
    return _op("Sub", [input, trunc(input)], torch_node("FracBackward0", input))


@_autocast.op("atan2")
def atan2(input, other) -> Tensor:
    """The angle of (other, input) in (-pi, pi] (torch.atan2), in a floating type."""
    x, y, dev = _operands(input, other)
    dt = _dtypes.floating(_dtypes.result_type(x, y))
    out = binary("Atan2", x, y, dt)
    if not out._h.requires_grad:
        return out
    # At (0, 0) PyTorch's gradient is 0 for both (docs/autograd.md, "Gradients at ties and
    # bounds"): the angle there is the forward value, its gradient that of atan2(0, 1).
    a, b = as_operand(x, dt, dev), as_operand(y, dt, dev)
    origin = logical_and(eq(a, 0), eq(b, 0))
    away = binary("Atan2", _op("Where", [origin, constant(0, dt, dev), a]),
                  _op("Where", [origin, constant(1, dt, dev), b]), dt)
    inputs = [origin, out.detach(), away]
    return _op("Where", inputs, node_attrs("Atan2Backward0", inputs, a, b))


arctan2 = atan2


def hypot(input, other) -> Tensor:
    """sqrt(input^2 + other^2) (torch.hypot) without overflow of the squares, as C's hypot; refused
    for integers, as in PyTorch."""
    _refuse_integral("hypot", input, other)
    x, y = result_type_operands(input, other)  # squared in the result's dtype, not each operand's
    if x.dtype in REDUCED:
        return rounded_once(hypot, "HypotBackward0", x, y)
    if x.dtype == "float32":  # C's hypotf: no overflow of the squares, as float64 holds them (1e30 stays 1e30)
        return named_node(hypot(x.double(), y.double()).float(), "HypotBackward0", x, y)
    # float64: the larger side times sqrt(1 + r^2), r = smaller / larger <= 1, so nothing overflows
    # before the result does (C's hypot); an infinite side makes it inf even against NaN
    ax, ay = absolute(x), absolute(y)
    big, small = maximum(ax, ay), minimum(ax, ay)
    zero = eq(big.detach(), 0)
    ratio = div(small, _op("Where", [zero, constant(1, x.dtype, x.device), big]))
    either_inf = logical_or(isinf(x.detach()), isinf(y.detach()))
    # at (0, 0): sqrt(x^2 + y^2), the value 0 with PyTorch's gradient x / hypot = 0 / 0, NaN
    scaled = _op("Where", [zero, sqrt(add(square(x), square(y))), mul(big, sqrt(add(square(ratio), 1)))])
    return _op("Where", [either_inf, constant(math.inf, x.dtype, x.device), scaled], torch_node("HypotBackward0", x, y))


def _refuse_integral(where: str, *operands) -> None:
    """Raises where the operands' result_type is no floating type (PyTorch has no integer kernel)."""
    x, y = (list(operands) + [operands[0]])[:2]
    dt = _dtypes.result_type(*_operands(x, y)[:2])
    if not dt.is_floating_point:
        raise _C.UnsupportedError(f"{where}: not implemented for {dt} (as in PyTorch)\n  fix: convert first: "
                                  f"torch.{where}(x.float(), ...)")


@accepts_out
def maximum(input, other) -> Tensor:
    """The larger of each pair (torch.maximum; NaN wins); at a tie each side gets half the gradient.
    Two bool tensors give their logical or, as PyTorch's."""
    if _both_bool(input, other):
        return logical_or(input, other)
    return binary("Maximum", input, other)


@accepts_out
def minimum(input, other) -> Tensor:
    """The smaller of each pair (torch.minimum; NaN wins); at a tie each side gets half the gradient.
    Two bool tensors give their logical and, as PyTorch's."""
    if _both_bool(input, other):
        return logical_and(input, other)
    return binary("Minimum", input, other)


def _both_bool(input, other) -> bool:
    return all(isinstance(t, Tensor) and t.dtype == "bool" for t in (input, other))


def clamp(input: Tensor, min=None, max=None) -> Tensor:
    """Each element limited to [min, max] (torch.clamp); the bounds may be numbers or tensors
    (broadcast), and min > max gives max. The gradient reaches the input where
    min <= x <= max (bounds included, as PyTorch's), a tensor bound where it was selected."""
    return _clamp(input, *_one_kind_of_bounds("clamp", min, max))


def clip(input: Tensor, min=None, max=None) -> Tensor:
    """torch.clip: clamp under NumPy's name."""
    return _clamp(input, *_one_kind_of_bounds("clip", min, max))


def _one_kind_of_bounds(name: str, min, max) -> tuple:
    """min and max as PyTorch's two clamp overloads take them: both tensors or both numbers (either
    may be None). PyTorch's parser reads a 0-d tensor that does not require grad as a number, so
    such a tensor beside a number is that number; any other tensor beside a number is its TypeError."""
    given = [b for b in (min, max) if b is not None]
    if len(given) < 2 or isinstance(given[0], Tensor) == isinstance(given[1], Tensor):
        return min, max
    lo, hi = (b.item() if isinstance(b, Tensor) and b.ndim == 0 and not b.requires_grad else b for b in (min, max))
    if not isinstance(lo, Tensor) and not isinstance(hi, Tensor):
        return lo, hi

    def kind(b) -> str:
        return "Tensor" if isinstance(b, Tensor) else type(b).__name__ if type(b).__module__ == "builtins" \
            else f"{type(b).__module__}.{type(b).__name__}"
    tensor = "min" if isinstance(min, Tensor) else "max"
    raise TypeError(
        f"{name}() received an invalid combination of arguments - got (Tensor, {kind(min)}, {kind(max)}), but "
        f"expected one of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
        f" * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n"
        f"  {name}: {tensor} is a tensor of shape {list((min if tensor == 'min' else max).shape)} and the other "
        f"bound a number; the bounds are both tensors or both numbers\n"
        f"  fix: both tensors, x.{name}(lo, torch.full_like(lo, 1.0)), or two clamps: x.{name}(min=lo).{name}(max=1.0)")


def _clamp(input: Tensor, min, max, node: str = "") -> Tensor:
    """clamp; node: PyTorch's backward node when it is not clamp's (clamp_min's ClampMinBackward0)."""
    if min is None and max is None:
        raise _C.InvalidArgumentError("torch.clamp: At least one of 'min' or 'max' must not be None\n"
                                      "  fix: x.clamp(min=0), x.clamp(max=1) or x.clamp(0, 1)")
    x = input
    out_dt = _dtypes.result_type(x, *[b for b in (min, max) if b is not None])
    if _dtypes.plain(out_dt) == "bool":
        _no_bool_clamp(x, min, max)
    x = x.astype(out_dt)
    for bound in (min, max):
        check_fits(bound, out_dt, "clamp")
    floating = DTYPES[_dtypes.plain(out_dt)].is_floating_point
    if floating and x.requires_grad:
        # A NaN input stays NaN and gets no gradient, as PyTorch's (its mask min <= x <= max is false).
        x = _op("Where", [isnan(x), x.detach(), x])
    # PyTorch's node (Tensor.grad_fn): ClampBackward1 for number bounds, ClampBackward0 for tensors
    named = {"torch_node": node or ("ClampBackward0" if isinstance(min, Tensor) or isinstance(max, Tensor)
                                    else "ClampBackward1")} if x._h.requires_grad else {}
    if min is not None:
        lo = as_operand(min, out_dt, x.device)
        # A NaN bound gives NaN, as PyTorch's clamp (a NaN input stays NaN: no comparison holds).
        x = _op("Where", [logical_or(lt(x, lo), isnan(lo)) if floating else lt(x, lo), lo, x],
                named if max is None else {})
    if max is not None:
        hi = as_operand(max, out_dt, x.device)
        x = _op("Where", [logical_or(gt(x, hi), isnan(hi)) if floating else gt(x, hi), hi, x], named)
    return x


def _no_bool_clamp(x: Tensor, min, max) -> None:
    """PyTorch's NotImplementedError for a bool result its clamp kernels lack: two tensor bounds
    ("clamp_cpu") or number bounds ("clamp_scalar_cpu", "clamp_min_scalar_cpu", "clamp_max_scalar_cpu").
    One tensor bound alone is PyTorch's maximum/minimum, which bools have (their logical or/and)."""
    tensors = [isinstance(b, Tensor) for b in (min, max) if b is not None]
    if tensors == [True]:
        return
    kind = "" if all(tensors) else "_scalar"
    which = "" if min is not None and max is not None else "_min" if max is None else "_max"
    kernel = f"clamp{which if kind else ''}{kind}_{x.device.type}"
    raise _args.UnsupportedDTypeError(
        f"\"{kernel}\" not implemented for 'Bool'\n  clamp: a bool tensor with bool bounds (min={_bound_text(min)}, "
        f"max={_bound_text(max)})\n  fix: one tensor bound, x.clamp(min=lo) or x.clamp(max=hi) (their logical or/and), "
        f"or clamp in another dtype: x.int().clamp(lo, hi).bool()")


def _bound_text(bound) -> str:
    return f"a bool tensor of shape {list(bound.shape)}" if isinstance(bound, Tensor) else repr(bound)



def clamp_min(input: Tensor, min) -> Tensor:
    """clamp(input, min=min) (torch.clamp_min)."""
    return _clamp(input, min, None, f"ClampMinBackward{int(isinstance(min, Tensor))}")


def clamp_max(input: Tensor, max) -> Tensor:
    """clamp(input, max=max) (torch.clamp_max)."""
    return _clamp(input, None, max, f"ClampMaxBackward{int(isinstance(max, Tensor))}")


def lerp(input, end, weight) -> Tensor:
    """input + weight * (end - input) (torch.lerp); weight a number or a tensor. As PyTorch: input
    and end of one floating dtype, a weight tensor of it too unless 0-d."""
    for name, t in (("end", end), ("weight", weight)):
        if isinstance(t, Tensor) and (t.ndim or name == "end") and t.dtype != input.dtype:
            raise _C.DTypeError(f"lerp: expected dtype {input.dtype} for `{name}` but got dtype {t.dtype} (input "
                                f"{list(input.shape)}, {name} {list(t.shape)})\n  fix: {name}.to(input.dtype)")
    if isinstance(weight, Tensor) and isinstance(end, Tensor):  # a 0-d weight joins the promotion, as PyTorch's
        dt = _dtypes.result_type(input, end, weight)  # (an integer input with a float 0-d weight gives floats)
        input, end = (t if t.dtype == dt else t.to(dt) for t in (input, end))
    if not input.dtype.is_floating_point:
        raise _C.UnsupportedError(f"lerp: not implemented for {input.dtype} (as in PyTorch)\n"
                                  f"  fix: convert first: torch.lerp(x.float(), end.float(), weight)")
    if input.dtype in REDUCED and isinstance(end, Tensor):  # computed in float32, rounded once (_opmath)
        if isinstance(weight, Tensor):
            return rounded_once(lerp, "LerpBackward1", input, end, weight)
        return rounded_once(lambda a, b: lerp(a, b, weight), "LerpBackward0", input, end)
    # PyTorch's kernel: start + weight * (end - start) for |weight| < 0.5, end - (end - start) * (1 - weight)
    # from there, so that weight 1 gives end exactly and lerp(-inf, 2, 0.6) is -inf (not -inf + inf)
    step = sub(end, input)
    if is_number(weight):
        _check_in_opmath(weight, input.dtype, "lerp's weight")
        node = torch_node("LerpBackward0", input, end)
        if -0.5 < weight < 0.5:
            return binary("Add", input, scaled_by_argument(step, weight), None, node)
        # 1 - weight as the kernel computes it, in float32 for the types narrower than float64
        rest = 1.0 - float(weight) if input.dtype == "float64" else float(np.float32(1) - np.float32(weight))
        return binary("Sub", end, scaled_by_argument(step, rest), None, node)
    near = binary("Less", _op("Abs", [weight]), 0.5)
    return _op("Where", [near, add(input, mul(weight, step)), sub(end, mul(step, rsub(weight, 1)))],
               torch_node("LerpBackward1", input, end, weight))


# ---- comparisons and logic (bool results) --------------------------------------------------------
def _compare(name: str, doc: str):
    def fn(input, other) -> Tensor:
        x, y, dev = _operands(input, other)
        dt = _dtypes.result_type(x, y)
        return _op(name, [as_operand(x, dt, dev), as_operand(y, dt, dev)])
    fn.__doc__ = doc + " (bool; the operands promoted to a common dtype first)"
    return fn


eq = _compare("Equal", "input == other, elementwise (torch.eq)")
ne = _compare("NotEqual", "input != other, elementwise (torch.ne)")
lt = _compare("Less", "input < other, elementwise (torch.lt)")
le = _compare("LessEqual", "input <= other, elementwise (torch.le)")
gt = _compare("Greater", "input > other, elementwise (torch.gt)")
ge = _compare("GreaterEqual", "input >= other, elementwise (torch.ge)")
for _f, _name in [(eq, "eq"), (ne, "ne"), (lt, "lt"), (le, "le"), (gt, "gt"), (ge, "ge")]:
    _f.__name__ = _f.__qualname__ = _name
not_equal, less, less_equal, greater, greater_equal = ne, lt, le, gt, ge
logical_and = _compare("LogicalAnd", "input and other, elementwise, nonzero meaning true (torch.logical_and)")
logical_or = _compare("LogicalOr", "input or other, elementwise, nonzero meaning true (torch.logical_or)")
logical_xor = _compare("LogicalXor", "input xor other, elementwise, nonzero meaning true (torch.logical_xor)")
logical_and.__name__, logical_or.__name__, logical_xor.__name__ = "logical_and", "logical_or", "logical_xor"


def logical_not(input: Tensor) -> Tensor:
    """input == 0, elementwise (torch.logical_not), bool."""
    return eq(input, False if input.dtype == "bool" else 0)


def _integer_bitwise(name: str, op, x, y, dt) -> Tensor:
    """An integer bitwise op, computed on the host in NumPy (glassgrad has no integer bit
    kernels): the operands are computed first, as unique's is (docs/porting.md, the bitwise row)."""
    np_dt = np.dtype(_NP[_dtypes.plain(dt)])
    dev = next(v.device for v in (x, y) if isinstance(v, Tensor))
    a, b = (v.numpy(force=True).astype(np_dt) if isinstance(v, Tensor) else np.asarray(v).astype(np_dt) for v in (x, y))
    return tensor(op(a, b), dtype=dt, device=dev)


def _bitwise(name: str, logical, op):
    def fn(input, other) -> Tensor:
        x, y, _ = _operands(input, other)
        dt = _dtypes.result_type(x, y)
        if dt == "bool":
            return logical(x, y)
        if dt.is_floating_point:
            raise _args.UnsupportedDTypeError(f'"{name}_cpu" not implemented for \'{_TORCH_NAMES.get(_dtypes.plain(dt), dt)}\'\n'
                                f"  cause: bitwise operations take bool or integer tensors, got {dt}\n"
                                f"  fix: x.long() first, or compare: (x > 0) {'&' if 'and' in name else '|'} (y > 0)")
        return _integer_bitwise(name, op, x, y, dt)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"torch.{name}: of bool tensors the logical operation; of integers the bits, computed on "
                  "the host (the operands first).")
    return fn


_TORCH_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16"}
bitwise_and = _bitwise("bitwise_and", logical_and, np.bitwise_and)
bitwise_or = _bitwise("bitwise_or", logical_or, np.bitwise_or)
bitwise_xor = _bitwise("bitwise_xor", logical_xor, np.bitwise_xor)


def bitwise_not(input: Tensor) -> Tensor:
    """~x (torch.bitwise_not): of a bool tensor logical_not, of integers every bit flipped
    (computed on the host, as the other integer bitwise ops)."""
    if input.dtype == "bool":
        return logical_not(input)
    if input.dtype.is_floating_point:
        raise _args.UnsupportedDTypeError(f"\"bitwise_not_cpu\" not implemented for '{_TORCH_NAMES.get(_dtypes.plain(input.dtype), input.dtype)}'"
                            f"\n  cause: bitwise operations take bool or integer tensors, got {input.dtype}\n"
                            "  fix: x.long() first, or logical_not(x) for x == 0")
    return tensor(np.invert(input.numpy(force=True)), dtype=input.dtype, device=input.device)


def invert(input: Tensor) -> Tensor:
    """~x (Tensor.__invert__): bitwise_not, whose floating refusal is PyTorch's operator TypeError
    here rather than the function's NotImplementedError."""
    if input.dtype.is_floating_point:
        raise _C.DTypeError(f"~ (operator.invert) is only implemented on integer and Boolean-type tensors\n"
                            f"  ~x: x is {input.dtype} {list(input.shape)}\n"
                            f"  fix: x.logical_not() for x == 0, or ~x.long() for the bits of its integer values")
    return bitwise_not(input)


def isnan(input: Tensor) -> Tensor:
    """Where x is NaN (torch.isnan): x != x."""
    return ne(input, input) if input.dtype.is_floating_point else _false_like(input)


def isinf(input: Tensor) -> Tensor:
    """Where x is +-inf (torch.isinf)."""
    return eq(absolute(input), math.inf) if input.dtype.is_floating_point else _false_like(input)


def isposinf(input: Tensor) -> Tensor:
    """Where x is +inf (torch.isposinf)."""
    return eq(input, math.inf) if input.dtype.is_floating_point else _false_like(input)


def isneginf(input: Tensor) -> Tensor:
    """Where x is -inf (torch.isneginf)."""
    return eq(input, -math.inf) if input.dtype.is_floating_point else _false_like(input)


def isfinite(input: Tensor) -> Tensor:
    """Where x is neither inf nor NaN (torch.isfinite): x - x == 0 holds exactly for those."""
    if not input.dtype.is_floating_point:
        return logical_not(_false_like(input))
    return eq(sub(input, input), 0)


def isreal(input: Tensor) -> Tensor:
    """All true: glassgrad's dtypes are real (torch.isreal)."""
    return logical_not(_false_like(input))


def _false_like(x: Tensor) -> Tensor:
    return ne(x, x) if x.dtype != "bool" else logical_and(x, logical_not(x))


def isclose(input: Tensor, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """|input - other| <= atol + rtol * |other| elementwise, equal infinities too (torch.isclose);
    NaN is close to NaN only with equal_nan=True. As PyTorch: a tensor other of input's dtype, and
    tolerances >= 0 (a number other is taken, promoted)."""
    if isinstance(input, Tensor) and isinstance(other, Tensor) and input.dtype != other.dtype:
        raise _C.DTypeError(f"isclose: {input.dtype} did not match {other.dtype} (shapes {list(input.shape)} and "
                            f"{list(other.shape)}): PyTorch compares tensors of one dtype\n  fix: other.to(input.dtype)")
    for name, tol in (("rtol", rtol), ("atol", atol)):
        if tol < 0:
            raise _C.InvalidArgumentError(f"isclose: {name} must be greater than or equal to zero, but got {tol}\n"
                                          f"  fix: {name}={-tol}")
    x, y, dev = _operands(input, other)
    dt = _dtypes.result_type(x, y)
    x, y = as_operand(x, dt, dev), as_operand(y, dt, dev)
    if not dt.is_floating_point:
        x, y = x.astype(_dtypes.DEFAULT_FLOAT), y.astype(_dtypes.DEFAULT_FLOAT)
    diff = absolute(sub(x, y))
    close = logical_or(eq(x, y), logical_and(isfinite(diff), le(diff, add(mul(absolute(y), float(rtol)), float(atol)))))
    if equal_nan:
        close = logical_or(close, logical_and(isnan(x), isnan(y)))
    return close


def allclose(input: Tensor, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """Whether every element is close (torch.allclose); computes now."""
    return builtins.bool(isclose(input, other, rtol, atol, equal_nan).all().item())


def equal(input: Tensor, other: Tensor) -> bool:
    """Whether both have the same shape and the same values (torch.equal); computes now."""
    if tuple(input.shape) != tuple(other.shape):
        return False
    return builtins.bool(eq(input, other).all().item())


# ---- fused forms and special values ------------------------------------------------------------
def _three_way_dtype(input, tensor1, tensor2):
    a, b, _ = _operands(tensor1, tensor2)
    return _dtypes.result_type(input, a, b)


@_scalar_first_overload("value", 2, "Number value, Tensor tensor1, Tensor tensor2",
                        "Tensor tensor1, Tensor tensor2, *, Number value = 1")
@_autocast.op("addcmul")
def addcmul(input: Tensor, tensor1, tensor2, *, value=1) -> Tensor:
    """input + value * tensor1 * tensor2 (torch.addcmul), the three broadcast together in their
    result_type; for an integer result value is taken as an integer, as PyTorch does."""
    dt = _three_way_dtype(input, tensor1, tensor2)
    if dt == "bool":  # PyTorch's kernel has no bool version
        raise _args.UnsupportedDTypeError("\"addcmul_cpu_out\" not implemented for 'Bool'\n  addcmul: input, tensor1 "
                                          "and tensor2 are bool\n  fix: convert first, e.g. torch.addcmul(x.long(), "
                                          "a.long(), b.long())")
    dev = _device_of(input, tensor1, tensor2)
    _check_in_opmath(value, dt, "addcmul's value")
    value = value if dt.is_floating_point else builtins.int(value)
    if dt in REDUCED:  # value in float32, the sum rounded once (_opmath)
        return rounded_once(lambda a, b, c: addcmul(a, b, c, value=value), "AddcmulBackward0",
                            *(as_operand(t, dt, dev) for t in (input, tensor1, tensor2)))
    prod = mul(as_operand(tensor1, dt, dev), as_operand(tensor2, dt, dev))
    return binary("Add", as_operand(input, dt, dev), prod if value == 1 else mul(prod, value), dt,
                  torch_node("AddcmulBackward0", input, tensor1, tensor2))


@_scalar_first_overload("value", 2, "Number value, Tensor tensor1, Tensor tensor2",
                        "Tensor tensor1, Tensor tensor2, *, Number value = 1")
@_autocast.op("addcdiv")
def addcdiv(input: Tensor, tensor1, tensor2, *, value=1) -> Tensor:
    """input + value * tensor1 / tensor2 (torch.addcdiv), the three broadcast together; PyTorch
    refuses two integer tensors (its historic integer division)."""
    a, b, _ = _operands(tensor1, tensor2)
    if not any(isinstance(t, Tensor) and t.dtype.is_floating_point for t in (a, b)):
        raise _C.DTypeError(
            "Integer division with addcdiv is no longer supported, and in a future release addcdiv will perform "
            "a true division of tensor1 and tensor2.\n  addcdiv: tensor1 and tensor2 are "
            f"{getattr(a, 'dtype', type(a).__name__)} and {getattr(b, 'dtype', type(b).__name__)}\n"
            "  fix: input + value * tensor1 / tensor2 (a true division), or tensor1.float()")
    dt = _three_way_dtype(input, tensor1, tensor2)
    _check_in_opmath(value, dt, "addcdiv's value")
    if dt in REDUCED:  # value in float32, the sum rounded once (_opmath)
        dev = _device_of(input, tensor1, tensor2)
        return rounded_once(lambda x, p, q: addcdiv(x, p, q, value=value), "AddcdivBackward0",
                            *(as_operand(t, dt, dev) for t in (input, tensor1, tensor2)))
    return binary("Add", input, mul(div(a, b), value), None, torch_node("AddcdivBackward0", input, tensor1, tensor2))


def _dtype_limits(dt):
    from ._type_info import finfo  # bfloat16's too, which NumPy lacks
    info = finfo(dt)
    return info.max, info.min


def nan_to_num(input: Tensor, nan: Optional[float] = None, posinf: Optional[float] = None,
               neginf: Optional[float] = None) -> Tensor:
    """NaN, +inf and -inf replaced by nan, posinf and neginf (torch.nan_to_num; NaN by 0 and the
    infinities by the dtype's largest and smallest finite values when None). Integer and bool tensors are
    returned unchanged; the gradient is 1 at finite elements and 0 at replaced ones."""
    if not input.dtype.is_floating_point:
        return input
    big, small = _dtype_limits(input.dtype)
    hi = big if posinf is None else posinf
    lo = small if neginf is None else neginf
    x = _op("Where", [isnan(input), constant(0.0 if nan is None else nan, input.dtype, input.device), input])
    x = _op("Where", [isposinf(input), constant(hi, input.dtype, input.device), x])
    return _op("Where", [isneginf(input), constant(lo, input.dtype, input.device), x],
               torch_node("NanToNumBackward0", input))


def logit(input: Tensor, eps: Optional[float] = None) -> Tensor:
    """log(z / (1 - z)) (torch.logit), z = input clamped to [eps, 1 - eps] when eps is given (the
    gradient is then 0 outside that range, as PyTorch's); integers give float32."""
    z = _float_input(input)
    if eps is not None:
        # PyTorch's kernel: z < eps ? eps : (z > 1 - eps ? 1 - eps : z), the low bound first, so an
        # eps above 0.5 (bounds crossed) gives eps below 1 - eps and 1 - eps above it, not clamp's
        # all-(1 - eps); the constants give the gradient 0 outside [eps, 1 - eps]
        eps = _args.real(eps, "eps", "logit", as_float=True)
        lo = constant(eps, z.dtype, z.device)
        # float16 and bfloat16: 1 - eps in that dtype, as PyTorch's kernel computes it (_opmath)
        hi = rsub(lo, 1) if z.dtype in REDUCED else constant(1.0 - eps, z.dtype, z.device)
        z = _op("Where", [_op("Less", [z, lo]), lo, _op("Where", [_op("Greater", [z, hi]), hi, z])])
        if z.dtype in REDUCED:  # its kernel's z / (1 - z), each step rounded to the dtype, then the log
            return named_node(log(div(z, rsub(z, 1))), "LogitBackward0", input)
        return named_node(sub(log(z), log1p(neg(z))), "LogitBackward0", input)
    from ._special_more import logit_without_eps  # that module imports this one
    return named_node(logit_without_eps(z), "LogitBackward0", input)


_power = pow  # this module's pow, under a name that is no builtin's


def _shift(input, other, left: builtins.bool) -> Tensor:
    x, y, dev = _operands(input, other)
    dt = _dtypes.result_type(x, y)
    what = "bitwise_left_shift" if left else "bitwise_right_shift"
    if dt.is_floating_point:
        raise _args.UnsupportedDTypeError(f"\"{'lshift' if left else 'rshift'}_cpu\" not implemented for 'Float'\n  {what}: shifts "
                            f"are defined for integer tensors, got {dt}\n  fix: x.long() {'<<' if left else '>>'} n, "
                            f"or multiply by 2 ** n for floats")
    if dt == "bool":
        raise _args.UnsupportedDTypeError(f"\"{'lshift' if left else 'rshift'}_cpu\" not implemented for 'Bool'\n  {what}: two bool "
                            f"tensors have no shift, as in PyTorch\n  fix: x.long() {'<<' if left else '>>'} n")
    # Computed in int64 and cast back (wrapping, as PyTorch's narrower types do): x << n is x * 2^n
    # and x >> n is floor(x / 2^n) in two's complement. A shift by the type's width or more, or by a
    # negative count, gives 0 (or -1 for a negative x shifted right), as PyTorch's kernels do; an
    # int64 shifted left by 63 keeps its lowest bit as the sign (2^63 is no int64).
    wide_dt = DTYPES["int64"]
    # a number joins in the result's dtype first, wrapping (-2 >> a uint8 tensor shifts 254), as PyTorch's
    x, y = (as_operand(as_operand(v, dt, dev) if is_number(v) else v, wide_dt, dev) for v in (x, y))
    width = 8 * np.dtype(_NP[_dtypes.plain(dt)]).itemsize
    wide = logical_or(ge(y, min(width, 63)), lt(y, 0))
    n = _op("Where", [wide, constant(0, wide_dt, dev), y])
    scale = _power(constant(2, wide_dt, dev), n)
    zero = constant(0, wide_dt, dev)
    if left:
        out = _op("Where", [wide, zero, mul(x, scale)])
        if width == 64:  # x << 63: the lowest bit becomes the sign bit
            top = _op("Where", [ne(fmod(x, 2), 0), constant(np.iinfo(np.int64).min, wide_dt, dev), zero])
            out = _op("Where", [eq(y, 63), top, out])
        return out.astype(dt)
    shifted = floor_divide(x, scale)
    return _op("Where", [wide, _op("Where", [lt(x, 0), constant(-1, wide_dt, dev), zero]), shifted]).astype(dt)


def bitwise_left_shift(input, other) -> Tensor:
    """input << other for integers (torch.bitwise_left_shift): input * 2**other, wrapping as int64 does."""
    return _shift(input, other, True)


def bitwise_right_shift(input, other) -> Tensor:
    """input >> other for integers (torch.bitwise_right_shift): an arithmetic shift, floor(input / 2**other)."""
    return _shift(input, other, False)


# ---- more of torch's elementwise functions (composed from the rows above) -----------------------
def logaddexp(input, other) -> Tensor:
    """log(exp(a) + exp(b)) without overflow (torch.logaddexp): max(a, b) + log1p(exp(-|a - b|)),
    -inf where both are -inf; at a tie each side gets half the gradient."""
    _refuse_integral("logaddexp", input, other)
    # promoted first, then floating (an int tensor beside a 0-d float64 gives float64, as PyTorch's)
    a, b = float_result_operands(input, other)
    if a.dtype in REDUCED:
        return rounded_once(logaddexp, "LogaddexpBackward0", a, b)
    top = maximum(a, b)
    both_empty = isneginf(top.detach())
    # an infinite maximum is the result (inf - inf would be NaN): the gap there is taken as 0
    gap = _op("Where", [isinf(top.detach()), constant(0, a.dtype, a.device), sub(a, b)])
    out = add(top, log1p(exp(neg(absolute(gap)))))
    if a._h.requires_grad or b._h.requires_grad:
        # equal infinities: PyTorch's gradient 1 / (1 + exp(b - a)) is NaN there (inf - inf)
        tie = logical_and(isinf(a.detach()), eq(a.detach(), b.detach()))
        top = add(top, add(_nan_gradient_at(tie, a), _nan_gradient_at(tie, b)))
    inputs = [both_empty, top, out]
    return _op("Where", inputs, node_attrs("LogaddexpBackward0", inputs, a, b))


def _nan_gradient_at(mask: Tensor, t: Tensor) -> Tensor:
    """Zeros whose gradient with respect to t is NaN where mask holds (t may be infinite there) and 0
    elsewhere: sqrt(exp(-|t|)) is 0 at an infinite t with derivative 0 / 0."""
    zero = constant(0, t.dtype, t.device)
    s = _op("Where", [mask, neg(absolute(t)), zero])
    root = sqrt(exp(s))
    return _op("Where", [mask, sub(root, root.detach()), zero])


def logaddexp2(input, other) -> Tensor:
    """log2(2^a + 2^b) (torch.logaddexp2)."""
    _refuse_integral("logaddexp2", input, other)
    ln2 = math.log(2.0)
    a, b = float_result_operands(input, other)
    if a.dtype in REDUCED:
        return rounded_once(logaddexp2, "Logaddexp2Backward0", a, b)
    return div(logaddexp(mul(a, ln2), mul(b, ln2)), ln2)


def xlogy(input, other) -> Tensor:
    """input * log(other), 0 where input is 0 (unless other is NaN) (torch.xlogy)."""
    x, y = float_result_operands(input, other)
    # x * log(y), with y := 1 where x == 0 and y <= 0 or y = inf (the value 0 there, and no
    # 0 * log(0) in the gradient): d/dx is log(y), 0 where x == 0 and y <= 0, as PyTorch's
    undefined = logical_and(eq(x, 0), logical_or(le(y, 0), isposinf(y)))
    safe_y = _op("Where", [undefined, constant(1, y.dtype, y.device), y])
    out = mul(x, log(safe_y))
    if x._h.requires_grad or y._h.requires_grad:
        # PyTorch's gradients there: d/dx = log(y) = inf at (0, inf), d/dy = x / y = NaN at (0, 0)
        x0 = eq(x.detach(), 0)
        out = add(out, add(_steep_zero(logical_and(x0, isposinf(y.detach())), x),
                           mul(_steep_zero(logical_and(x0, eq(y.detach(), 0)), y), 0)))
    inputs = [isnan(y), y.detach(), out]
    return _op("Where", inputs, node_attrs("XlogyBackward0", inputs, x, y))


def _steep_zero(mask: Tensor, t: Tensor) -> Tensor:
    """Zeros whose derivative with respect to the finite t is +inf where mask holds, 0 elsewhere:
    sqrt(t - t.detach()) at 0."""
    one = constant(1, t.dtype, t.device)
    root = sqrt(_op("Where", [mask, sub(t, t.detach()), one]))
    return _op("Where", [mask, root, constant(0, t.dtype, t.device)])


def sinc(input: Tensor) -> Tensor:
    """sin(pi x) / (pi x), 1 at 0 (torch.sinc; its gradient 0 there)."""
    x = _float_input(input)
    if x.dtype in REDUCED:
        return rounded_once(sinc, "SincBackward0", x)
    zero = eq(x, 0)
    safe = _op("Where", [zero, constant(1, x.dtype, x.device), x])
    px = mul(safe, math.pi)
    return _op("Where", [zero, constant(1, x.dtype, x.device), div(sin(px), px)], torch_node("SincBackward0", x))


def rad2deg(input: Tensor) -> Tensor:
    """Radians to degrees (torch.rad2deg); integers give float32."""
    return mul(_float_input(input), 180.0 / math.pi)


def deg2rad(input: Tensor) -> Tensor:
    """Degrees to radians (torch.deg2rad); integers give float32."""
    return mul(_float_input(input), math.pi / 180.0)


def signbit(input: Tensor) -> Tensor:
    """Whether each element's sign bit is set (torch.signbit): x < 0, and -0.0 too."""
    if input.dtype == "bool" or input.dtype == "uint8":
        return _false_like(input)
    if not input.dtype.is_floating_point:
        return lt(input, 0)
    return logical_or(lt(input, 0), logical_and(eq(input, 0), lt(reciprocal(input), 0)))


def copysign(input, other) -> Tensor:
    """|input| with the sign of other (torch.copysign; -0.0 counts as negative), a float result;
    the gradient reaches input (0 where input is 0, as PyTorch's), other's is zero."""
    a, b = float_result_operands(input, other)
    mag = absolute(a)
    out = _op("Where", [signbit(b), neg(mag), mag], torch_node("CopysignBackward0", a, b))
    # other's gradient is a zero tensor in PyTorch (not None): b joins the result through a Where
    return _join_history(out, [b], "CopysignBackward0", None) if isinstance(b, Tensor) and b.requires_grad else out


@accepts_out
def fmax(input, other) -> Tensor:
    """The larger of each pair, a NaN losing to a number (torch.fmax); at a tie the gradient goes
    to input, as PyTorch's."""
    a, b = result_type_operands(input, other)
    take_a = logical_or(ge(a, b), isnan(b))
    return _op("Where", [take_a, a, b], torch_node("FmaxBackward0", a, b))


@accepts_out
def fmin(input, other) -> Tensor:
    """The smaller of each pair, a NaN losing to a number (torch.fmin); at a tie the gradient goes
    to input, as PyTorch's."""
    a, b = result_type_operands(input, other)
    take_a = logical_or(le(a, b), isnan(b))
    return _op("Where", [take_a, a, b], torch_node("FminBackward0", a, b))


def heaviside(input: Tensor, values) -> Tensor:
    """0 where input < 0, values where input == 0, 1 where input > 0 (torch.heaviside; a backward
    through it raises, as PyTorch's). input and values must have the same dtype, as PyTorch requires."""
    if isinstance(values, Tensor) and values.dtype != input.dtype:
        raise _C.DTypeError(f"heaviside is not yet implemented for tensors with different dtypes\n  heaviside: input "
                            f"is {input.dtype}, values {values.dtype}\n  fix: values.to(input.dtype)")
    x, v = result_type_operands(input, values)
    tensors = [t for t in (x, v) if isinstance(t, Tensor)]
    x, v = x.detach(), v.detach()
    step = gt(x, 0).astype(x.dtype)
    out = _op("Where", [eq(x, 0), v, step])
    if records_grad() and any(t.requires_grad for t in tensors):  # PyTorch's backward raises
        out = _join_history(out, tensors, "NotImplemented", "aten::heaviside")
    return out


def xlog1py(input, other) -> Tensor:
    """input * log1p(other), 0 where input is 0 (unless other is NaN) (torch.special.xlog1py), as
    xlogy with log1p: d/dx is log1p(y), 0 where x == 0 and the log is undefined or infinite."""
    x, y = float_result_operands(input, other)
    if x.dtype in REDUCED:  # computed in float32, rounded once (_opmath)
        return rounded_once(xlog1py, "SpecialXlog1PyBackward0", x, y)
    undefined = logical_and(eq(x, 0), logical_or(le(y, -1), isposinf(y)))
    safe_y = _op("Where", [undefined, constant(0, y.dtype, y.device), y])
    return _op("Where", [isnan(y), y.detach(), mul(x, log1p(safe_y))])


def angle(input: Tensor) -> Tensor:
    """The argument of each element (torch.angle): for real numbers pi where x < 0, else 0, NaN
    for NaN, in a floating type (integers give float32); its gradient is 0, as PyTorch's."""
    x = _float_input(input)
    xd = x.detach()
    pi, zero = constant(math.pi, x.dtype, x.device), constant(0, x.dtype, x.device)
    value = _op("Where", [isnan(xd), xd, _op("Where", [lt(xd, 0), pi, zero])])
    # every element takes value; x stands in the branch never taken, so its gradient is 0, not None
    return _op("Where", [logical_or(eq(xd, xd), isnan(xd)), value, x])


def nextafter(input, other) -> Tensor:
    """The next floating-point value after input towards other, elementwise (torch.nextafter), in
    result_type(input, other), floating types only (float16 and bfloat16 too, as PyTorch's CPU
    kernel). Computed now from both values (C's nextafter through NumPy; bfloat16 by stepping its
    bits), as a new tensor on input's device. Its gradient is PyTorch's: 1 to input (where input
    is finite), zeros to other."""
    x, y = result_type_operands(input, other)
    kind = _dtypes.plain(x.dtype)
    if kind not in ("float16", "bfloat16", "float32", "float64"):
        raise _C.UnsupportedError(f"nextafter: \"nextafter_cpu\" not implemented for {x.dtype}, as in PyTorch (a "
                                  f"floating type is needed)\n  fix: convert first: torch.nextafter(a.double(), "
                                  f"b.double())")
    if kind == "bfloat16":
        a, b = np.broadcast_arrays(x.float().numpy(force=True), y.float().numpy(force=True))
        out = tensor(_bfloat16_nextafter(a, b), dtype=x.dtype, device=x.device)
    else:
        a, b = np.broadcast_arrays(x.numpy(force=True), y.numpy(force=True))
        with np.errstate(over="ignore"):  # the largest finite value's step to inf is the result
            out = tensor(np.nextafter(a, b), device=x.device)
    if not (x.requires_grad or y.requires_grad):
        return out
    # out + (x - x) + 0 * y's place: exactly out's values, x's gradient 1 and y's 0 (Where keeps the
    # zeros exact where x or y is infinite, and the terms broadcast the result as PyTorch's)
    zero = as_operand(0, x.dtype, x.device)
    if y.requires_grad:
        out = _op("Add", [out, _op("Where", [as_operand(False, DTYPES["bool"], x.device), y, zero])])
    return _op("Add", [out, _op("Where", [isfinite(x), x - x.detach(), zero])], {"torch_node": "NextafterBackward0"})


def _bfloat16_nextafter(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """nextafter for bfloat16 values held in float32 arrays (NumPy has no bfloat16): a bfloat16 is
    the upper 16 bits of its float32, so one step is one unit of those bits, away from zero when
    moving outwards and towards it otherwise (sign-magnitude order), as C's nextafter steps."""
    bits = (a.view(np.uint32) >> 16).astype(np.int64)
    outwards = (b > a) == (a > 0)
    stepped = np.where(a == 0, np.where(b > 0, 1, 0x8001), np.where(outwards, bits + 1, bits - 1))
    out = ((stepped.astype(np.uint32) & 0xFFFF) << 16).view(np.float32)
    out = np.where(a == b, b, out)
    return np.where(np.isnan(a) | np.isnan(b), np.float32(np.nan), out).astype(np.float32)


def real(input: Tensor) -> Tensor:
    """The real part (torch.real): a real tensor itself."""
    return input


def imag(input: Tensor) -> Tensor:
    """torch.imag: refused for a real tensor, as PyTorch refuses it (Tensor.imag raises)."""
    return input.imag


def conj(input: Tensor) -> Tensor:
    """The complex conjugate (torch.conj): a real tensor itself."""
    return input


def _integer_operands(where: str, input, other):
    x, y = result_type_operands(input, other)
    if x.dtype.is_floating_point or x.dtype == "bool":
        raise _C.UnsupportedError(f"{where}: not implemented for {x.dtype} (integers only, as in PyTorch)\n"
                                  f"  fix: convert first: torch.{where}(a.long(), b.long())")
    return x, y


def gcd(input, other) -> Tensor:
    """The greatest common divisor of each pair of integers (torch.gcd), >= 0, gcd(0, 0) = 0:
    Euclid's steps on |a| and |b| until every pair has a zero, read as the loop goes (it syncs,
    as PyTorch's CUDA gcd does not need to; no gradient, as integers have none)."""
    x, y = _integer_operands("gcd", input, other)
    a, b = absolute(x), absolute(y)
    zero, one = constant(0, a.dtype, a.device), constant(1, a.dtype, a.device)
    for _ in range(2 * 8 * np.dtype(_NP[_dtypes.plain(a.dtype)]).itemsize):  # > Euclid's worst case (Fibonacci)
        live = ne(b, 0)
        if not builtins.bool(live.any().item()):
            break
        rest = _op("Where", [live, remainder(a, _op("Where", [live, b, one])), zero])
        a, b = _op("Where", [live, b, a]), rest
    return a


def lcm(input, other) -> Tensor:
    """The least common multiple of each pair of integers (torch.lcm): |a / gcd(a, b) * b|, 0
    where either is 0."""
    x, y = _integer_operands("lcm", input, other)
    g = gcd(x, y)
    zero, one = constant(0, x.dtype, x.device), constant(1, x.dtype, x.device)
    return _op("Where", [eq(g, 0), zero, absolute(mul(floor_divide(x, _op("Where", [eq(g, 0), one, g])), y))])


__all__ = ["add", "sub", "subtract", "rsub", "mul", "multiply", "div", "divide", "true_divide", "floor_divide", "remainder",
           "fmod", "neg", "negative", "positive", "pow", "float_power", "abs", "absolute", "sign", "sgn", "square",
           "reciprocal", "sin", "cos", "tan", "asin", "acos", "atan", "arcsin", "arccos", "arctan", "sinh", "cosh",
           "tanh", "asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh", "exp", "exp2", "expm1", "log", "log2",
           "log10", "log1p", "sqrt", "rsqrt", "erf", "sigmoid", "floor", "ceil", "trunc", "fix", "round", "frac",
           "atan2", "arctan2", "hypot", "maximum", "minimum", "clamp", "clip", "clamp_min", "clamp_max", "lerp",
           "eq", "ne", "lt", "le", "gt", "ge", "not_equal", "less", "less_equal", "greater", "greater_equal",
           "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor",
           "bitwise_not", "isnan", "isinf", "isposinf", "isneginf", "isfinite", "isreal", "isclose", "allclose",
           "equal", "addcmul", "addcdiv", "nan_to_num", "logit", "bitwise_left_shift", "bitwise_right_shift",
           "logaddexp", "logaddexp2", "xlogy", "sinc", "rad2deg", "deg2rad", "signbit", "copysign", "fmax", "fmin",
           "heaviside", "ldexp", "gcd", "lcm", "angle", "nextafter"]
