"""The Tensor methods that are also functions in PyTorch (x.sin() is torch.sin(x), x.sum(1) is
torch.sum(x, 1), x + y is torch.add(x, y)): each function is written once, in _math.py,
_reductions.py, _shapes.py, _scans.py or _factories.py, with the tensor as its first parameter,
and bound here as the method of the same name, and the operators as the functions they are."""
from __future__ import annotations

import numbers

import numpy as np

from . import (_C, _args, _runtime, _trace, _python_ints, _arranging, _counting, _float_parts, _extra_activations, _factories, _indexed_reductions, _indexing, _math,
               _numpy_names, _opmath, _predicates, _reductions, _scans, _shapes, _statistics, _strided)
from .functional import relu, where
from ._inplace import in_place, in_place_saving_input, in_place_view
from ._tensor import _INFERENCE_TENSORS, Tensor, _op
from ._saved_tensor_hooks import STACK as _HOOK_STACK
from ._trace import _PACKAGE_DIR

# PyTorch's Tensor methods among the functions of these modules (torch names without a method,
# such as torch.stack or torch.arange, are left out).
_FUNCTION_METHODS = {
    _math: [n for n in _math.__all__ if n != "rsub"],  # torch.rsub has no method
    _reductions: [n for n in _reductions.__all__ if n not in ("var_mean", "std_mean")],
    _shapes: [n for n in _shapes.__all__ if n not in (
        "stack", "hstack", "vstack", "row_stack", "broadcast_shapes", "broadcast_tensors", "meshgrid",
        "atleast_1d", "atleast_2d", "atleast_3d", "cdist")],
    _factories: ["bernoulli", "multinomial"],
    _scans: _scans.METHODS,
    _counting: [n for n in _counting.__all__ if n != "histogramdd"],
    _indexed_reductions: _indexed_reductions.__all__,
    _arranging: ["diagonal_scatter", "select_scatter", "slice_scatter"],
    _statistics: ["cov", "corrcoef"],
}
for _module, _names in _FUNCTION_METHODS.items():
    for _name in _names:
        # a function's own method form where it has one (_numpy_names.py: positions counted after self)
        _function = getattr(_module, _name)
        setattr(Tensor, _name, getattr(_function, "as_method", _function))

# Methods only (no torch function of the name).
for _name in ("repeat", "unfold", "sum_to_size", "split_with_sizes", "resize", "resize_", "resize_as_", "resize_as"):
    setattr(Tensor, _name, getattr(_shapes, _name))
for _name in ("masked_scatter", "index_copy", "take", "put"):
    setattr(Tensor, _name, getattr(_indexing, _name))
for _name in ("view_as", "reshape_as", "expand_as", "type_as"):
    setattr(Tensor, _name, getattr(_shapes, _name))
for _name in ("new_zeros", "new_ones", "new_empty", "new_full", "new_tensor", "new", "new_empty_strided"):
    setattr(Tensor, _name, getattr(_factories, _name))
Tensor.relu = relu
setattr(Tensor, "frexp", _float_parts.frexp)
for _name in ("as_strided", "as_strided_", "as_strided_scatter"):
    setattr(Tensor, _name, getattr(_strided, _name))


def _varargs_method(function, name: str, keywords: tuple):
    """Tensor.<name>, which takes its sequence argument as one sequence or spread over the call
    (x.flip(0, 2) is x.flip((0, 2)), x.squeeze(0, 2) is x.squeeze((0, 2)), x.hsplit(1, 3) is
    x.hsplit((1, 3))) or by one of its keywords, where torch.<name>(x, ...) takes one value: a
    single positional value is passed on as it is, several as a tuple, none as the default."""
    def method(self: Tensor, *values, **kwargs):
        named = [k for k in keywords if k in kwargs]
        if named:
            if values or len(named) > 1:
                raise TypeError(f"{name}() got multiple values for argument '{named[-1]}'\n  fix: give it once: "
                                f"x.{name}({', '.join(keywords[:1])}=...) or x.{name}(...)")
            return function(self, kwargs.pop(named[0]), **kwargs)
        if not values:
            return function(self, **kwargs)
        # a 0-d integer tensor among the values is its int, as PyTorch's parser reads it (x.flip(tensor(0)))
        values = tuple(v if (held := _args.tensor_index(v)) is None else held for v in values)
        return function(self, values[0] if len(values) == 1 else values, **kwargs)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = (f"{(function.__doc__ or '').strip()}\n\nAs a method, its {'/'.join(keywords)} may also "
                      f"be spread over the call (x.{name}(0, 1) is x.{name}((0, 1))).")
    return method


# PyTorch's methods whose sequence argument may be spread over the call; torch.<name> takes one
for _name, _function, _keywords in (
        ("flip", _shapes.flip, ("dims",)), ("tile", _shapes.tile, ("dims",)),
        ("squeeze", _shapes.squeeze, ("dim",)), ("count_nonzero", _reductions.count_nonzero, ("dim",)),
        ("broadcast_to", _shapes.broadcast_to, ("size",)),
        ("hsplit", _shapes.hsplit, ("indices", "sections")), ("vsplit", _shapes.vsplit, ("indices", "sections")),
        ("dsplit", _shapes.dsplit, ("indices", "sections"))):
    setattr(Tensor, _name, _varargs_method(_function, _name, _keywords))


def _where(self: Tensor, condition: Tensor, other) -> Tensor:
    """self where condition holds, else other (Tensor.where: torch.where(condition, self, other))."""
    return where(condition, self, other)


_where.__name__ = "where"
Tensor.where = _where


# A list or tuple is no operand (PyTorch: x + [1, 2] is a TypeError, x == [1, 2] is False).
# An ndarray is an operand of == and != only: as in PyTorch, x + a, x @ a, ... leave it to NumPy's
# reflected operator, which runs on np.asarray(x) (refused while x requires grad) with NumPy's
# promotion (float32 tensor + int64 array is float64) and hands back a tensor through
# __array_wrap__; a + x and x < a are TypeErrors (NumPy defers to __array_priority__).
_OPERANDS = (Tensor, numbers.Number, np.number, np.bool_)
_EQUALITY_OPERANDS = _OPERANDS + (np.ndarray,)


def _operator(fn, operands=_OPERANDS):
    """fn(self, other) as a binary operator: NotImplemented for another kind of operand (None, a
    string, a list, ...), so that Python tries the other operand's operator and then identity
    (x == None is False, as in PyTorch)."""
    def method(self, other):
        return fn(self, other) if isinstance(other, operands) else NotImplemented
    method.__name__ = fn.__name__
    return method


def _reflected(fn):
    def method(self, other):
        return fn(other, self) if isinstance(other, _OPERANDS) else NotImplemented
    method.__name__ = f"r{fn.__name__}"
    return method


_BINARY = {"add": _math.add, "sub": _math.sub, "mul": _math.mul, "truediv": _math.div,
           "floordiv": _math.floor_divide, "mod": _math.remainder, "pow": _math.pow, "matmul": _shapes.matmul,
           "and": _math.bitwise_and, "or": _math.bitwise_or, "xor": _math.bitwise_xor,
           "lshift": _math.bitwise_left_shift, "rshift": _math.bitwise_right_shift}
_OPERATORS = {f"__{n}__": _operator(f) for n, f in _BINARY.items()}
_OPERATORS.update({f"__r{n}__": _reflected(f) for n, f in _BINARY.items()})


def _rtruediv(self, other):
    """other / self: PyTorch's is self.reciprocal() * other, rounding twice (2.5 / x of bfloat16 or
    float32 may differ from torch.div(2.5, x) in the last place; the graph is MulBackward0 of
    ReciprocalBackward0), and an ndarray on the left gets NumPy's product with the reciprocal
    (where a + x is a TypeError)."""
    if isinstance(other, np.ndarray):
        return self.reciprocal() * other
    return _math.mul(_math.reciprocal(self), other) if isinstance(other, _OPERANDS) else NotImplemented


_OPERATORS["__rtruediv__"] = _rtruediv
_OPERATORS.update({f"__{n}__": _operator(getattr(_math, n)) for n in ("lt", "le", "gt", "ge")})
_OPERATORS.update({f"__{n}__": _operator(getattr(_math, n), _EQUALITY_OPERANDS) for n in ("eq", "ne")})


_EXACT = 1 << 53  # the ints a scalar node's attribute (a double) holds exactly


def _with_number(name: str, node: str, sign: float):
    """x + 3, 3 + x, x - 3, x * 0.5: a tensor with a Python int (any dtype but bool) or float (a
    floating tensor) keeps the tensor's dtype (result_type's rule for a number), so the scalar
    node is recorded directly, without the general path's promotion and dispatch (`i + 1` of an
    index in a Python loop). Other operands take `general`, the operator above."""
    general = _OPERATORS[name]
    tensor_sum = name == "__add__"  # x + y of two tensors of one dtype: torch.add's Add, recorded directly
    subtract = name == "__sub__"  # x - 3: PyTorch's SubBackward0 (Tensor.grad_fn), an AddScalar here

    def method(self, other):
        kind = type(other)
        if kind is int or kind is float:
            dt = self.dtype
            if kind is int and not -(1 << 63) <= other < (1 << 63):  # rare: checked, and wrapped for integers
                _python_ints.check_int(other, name)
                other = other if dt.is_floating_point else _python_ints.wrapped(other)
            # an int beyond 2**53 meets an integer tensor through `general`, exactly (_python_ints.attribute_exact)
            if dt.is_floating_point or (kind is int and dt != "bool" and -_EXACT <= other <= _EXACT):
                value = sign * other
                if node == "AddScalar" and dt in _opmath.REDUCED:  # added as dt holds it, as PyTorch's (_opmath)
                    value = _opmath.round_number(value, dt)
                # the node's name only where a grad_fn can show it: an index's `i - 1` stays cheap
                return _op(node, [self], {"value": value, "torch_node": "SubBackward0"}
                           if subtract and self._h.requires_grad else {"value": value})
        elif tensor_sum and isinstance(other, Tensor):
            # The residual adds of every step: one dtype (not bool, which add makes an or) is its
            # own result_type, so _math.add would convert nothing and record Add of the two. The
            # runtime records it in one call when neither is a view (whose layout _op reads) and
            # nothing of _op's inference or saved-tensor checks applies; None: the path below.
            if not (_INFERENCE_TENSORS or _HOOK_STACK or _runtime._inference_blocks):
                try:
                    h = _C.lazy_record_sum(self, other, _trace._local, _PACKAGE_DIR)
                except _C.DTypeError:  # a dtype Add refuses: _op's message below
                    h = None
                if h is not None:
                    t = Tensor.__new__(Tensor)
                    t._h = h
                    return t
            dt = self._h.dtype
            if dt == other._h.dtype and dt != "bool":
                return _op("Add", [self, other])
        return general(self, other)
    method.__name__ = name
    return method


for _name, _node, _sign in (("__add__", "AddScalar", 1.0), ("__radd__", "AddScalar", 1.0),
                            ("__sub__", "AddScalar", -1.0), ("__mul__", "MulScalar", 1.0),
                            ("__rmul__", "MulScalar", 1.0)):
    _OPERATORS[_name] = _with_number(_name, _node, _sign)
_OPERATORS.update({"__invert__": _math.invert, "__neg__": _math.neg, "__abs__": _math.abs})
for _name, _fn in _OPERATORS.items():
    setattr(Tensor, _name, _fn)


def _mT(self: Tensor) -> Tensor:
    """The last two dims swapped (Tensor.mT): a 0-d tensor itself, with PyTorch's deprecation
    warning; a 1-d one refused as PyTorch refuses it."""
    return _shapes.matrix_transpose(self, "mT", "This function is the identity in these cases.")


Tensor.mT = property(_mT)


# In-place forms (x.add_(y), x.sin_(), x += y): each is the method above written back into x's
# storage by _inplace.in_place, which converts the result as PyTorch does (no float result into
# an integer tensor). The ones that change the shape are the view ops below.
_IN_PLACE = """abs absolute acos acosh add addbmm addmm addmv arccos arccosh arcsin arcsinh arctan arctan2
arctanh asin asinh atan atan2 atanh baddbmm bitwise_and bitwise_not bitwise_or bitwise_xor ceil clamp clamp_max
clamp_min clip cos cosh cumprod cumsum div divide eq erf exp exp2 expm1 fix floor floor_divide fmod frac ge greater
greater_equal gt hypot le lerp less less_equal log log10 log1p log2 logical_and logical_not logical_or logical_xor lt
mul multiply ne neg negative not_equal pow reciprocal relu remainder round rsqrt sgn sigmoid sign sin sinh sqrt square
sub subtract tan tanh tril triu true_divide trunc addcmul addcdiv nan_to_num bitwise_left_shift bitwise_right_shift
masked_scatter index_copy put scatter_reduce index_reduce xlogy sinc rad2deg deg2rad copysign heaviside renorm gcd lcm nextafter""".split()
for _name in _IN_PLACE:
    setattr(Tensor, _name + "_", in_place(getattr(Tensor, _name), _name + "_"))
setattr(Tensor, "logit_", in_place_saving_input(getattr(Tensor, "logit"), "logit_"))  # its Function saves the input
_AUGMENTED = {"add": "add_", "sub": "sub_", "mul": "mul_", "truediv": "div_", "floordiv": "floor_divide_",
              "mod": "remainder_", "pow": "pow_", "and": "bitwise_and_", "or": "bitwise_or_", "xor": "bitwise_xor_",
              "lshift": "bitwise_left_shift_", "rshift": "bitwise_right_shift_"}
for _name, _op_name in _AUGMENTED.items():
    setattr(Tensor, f"__i{_name}__", in_place(getattr(Tensor, f"__{_name}__"), _op_name))
# In-place view ops of the methods bound above (transpose_ is the Tensor class's own).
Tensor.unsqueeze_ = in_place_view(Tensor.unsqueeze)
Tensor.squeeze_ = in_place_view(Tensor.squeeze)
Tensor.t_ = in_place_view(Tensor.t)
Tensor.swapdims_ = in_place_view(Tensor.swapdims)
Tensor.swapaxes_ = in_place_view(Tensor.swapaxes)
Tensor.fill_diagonal_ = in_place(_indexing.fill_diagonal, "fill_diagonal_")
for _name in ("addr", "ldexp"):
    setattr(Tensor, _name + "_", in_place(getattr(Tensor, _name), _name + "_"))
for _name in ("hardshrink", "prelu"):
    setattr(Tensor, _name, getattr(_extra_activations, _name))


def _split(self: Tensor, split_size, dim: int = 0):
    """Pieces of split_size along dim, or of the listed sizes (Tensor.split: the method's
    parameter is split_size, torch.split's split_size_or_sections)."""
    return _shapes.split(self, split_size, dim)


_split.__name__ = "split"
setattr(Tensor, "split", _split)
# PyTorch's unsafe_ spellings skip its autograd's check of multiple-view outputs (_multi_views)
setattr(Tensor, "unsafe_chunk", _shapes.unsafe_chunk)
setattr(Tensor, "unsafe_split", _shapes.unsafe_split)
setattr(Tensor, "unsafe_split_with_sizes", _shapes.unsafe_split_with_sizes)
setattr(Tensor, "nonzero_static", _shapes.nonzero_static)
for _name in ("is_distributed", "is_set_to", "dim_order"):
    setattr(Tensor, _name, getattr(_predicates, _name))
setattr(Tensor, "const_data_ptr", Tensor.data_ptr)


def _float_power_(self: Tensor, exponent) -> Tensor:
    """Tensor.float_power_: float_power written into this tensor, which must be float64 (the
    result's dtype), as PyTorch requires."""
    if self.dtype != "float64":
        raise _args.UnsupportedDTypeError(f"the base given to float_power_ has dtype {self.dtype} but the operation's "
                                          f"result requires dtype glassgrad.float64\n  fix: x = x.double() first, "
                                          f"or x.float_power(e) for a new tensor")
    return in_place(_math.float_power, "float_power_")(self, exponent)


setattr(Tensor, "float_power_", _float_power_)

# Tensor's own methods that PyTorch's parser also gives `axis` for `dim` (_numpy_names.py)
_numpy_names.accept_numpy_names_on_methods(Tensor, ["gather", "index_select", "take_along_dim", "softmax",
                                                    "log_softmax"])
