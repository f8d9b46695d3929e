"""PyTorch's out= on the torch.* functions whose glassgrad function does not take it itself
(docs/porting.md, the out= row): the top-level names are wrapped by accepts_out once the package
has imported them. The Tensor methods bound from the same functions (_methods.py) stay as they
are: PyTorch's methods take no out=, and a method call keeps its one Python frame."""
from __future__ import annotations

import functools
import inspect

from ._out import accepts_out, dtype_out

# torch.* functions with out= (tensor, or a tuple for the functions returning values and indices)
_NAMES = """abs acos acosh addbmm addcdiv addcmul addmm addmv addr all amax amin angle any argmax argmin asin
asinh atan atan2 atanh baddbmm bitwise_and bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift
bitwise_xor bucketize ceil chain_matmul clamp clip column_stack copysign cos cosh cross cummax cummin cumprod
cumsum deg2rad diag diff dot dstack eq erf erfc erfinv exp exp2 expm1 fix float_power floor floor_divide fmod
frac gather gcd ge gt heaviside histc hstack hypot index_select inner isneginf isposinf kron kthvalue lcm ldexp
le lerp log log10 log1p log2 logaddexp logaddexp2 logcumsumexp logical_and logical_not logical_or logical_xor
logit logsumexp lt masked_select max mean median min mode msort mv nan_to_num nanmean nanmedian nanquantile
nansum narrow_copy ne neg negative nextafter norm outer pow prod quantile rad2deg reciprocal remainder renorm
round rsqrt searchsorted sgn sigmoid sign signbit sin sinc sinh sort sqrt square std std_mean sum take_along_dim
tan tanh topk tril triu trunc var var_mean vdot vstack where xlogy
absolute arccos arccosh arcsin arcsinh arctan arctan2 arctanh aminmax ger greater greater_equal index_add index_copy
index_reduce less less_equal matrix_power nonzero not_equal row_stack tensordot take scatter scatter_add scatter_reduce slice_scatter""".split()


# the functions whose out must have the result's dtype exactly, where PyTorch's kernel checks it ("Found dtype
# Double but expected Float": the unary ops that keep their input's dtype, the reductions that keep it, the
# selections and copies; the functions with a fixed result dtype, argmax's int64 or signbit's bool);
# every other function takes an out its result casts to (torch.can_cast)
_SAME_DTYPE_OUT = set("""abs absolute addmm amax amin aminmax bitwise_not ceil floor round trunc fix frac sign sgn
neg negative nan_to_num diag heaviside histc index_select inner lerp logcumsumexp masked_select msort norm quantile
nanquantile tensordot tril triu slice_scatter argmax argmin isneginf isposinf signbit nonzero searchsorted
float_power where""".split())
# the functions whose out may have these dtypes only, whatever the result's
_OUT_DTYPES = {"all": ("bool", "uint8"), "any": ("bool", "uint8")}


# the functions whose overload with out= takes tensors where the one without takes numbers too
_TENSORS_WITH_OUT = {"where": ("input", "other")}


# the functions with dtype= among them: out's dtype must be dtype's; True where, without dtype=,
# the result is computed in out's dtype (dtype_out)
_DTYPE_OUT = {"sum": True, "prod": True, "nansum": True, "cumsum": True, "cumprod": True, "mean": False,
              "nanmean": False}


# the functions whose overload with out= needs a dim: PyTorch's overload for every element takes no
# out (torch.sum(x, out=y) is its TypeError; torch.sum(x, None, out=y) is not)
_OUT_NEEDS_DIM = ("sum", "prod", "median", "nanmedian")


# torch.special.* functions with out= whose glassgrad function (the top-level one) has none
SPECIAL_NAMES = "erf exp2 expit expm1 log1p logit logsumexp round sinc xlog1py xlogy".split()


def add_out(namespace: dict, names=_NAMES) -> None:
    """Wraps each function of `names` in namespace whose signature has no out= yet."""
    for name in names:
        fn = namespace.get(name)
        if fn is None or not callable(fn):
            continue
        try:
            params = inspect.signature(fn).parameters
        except (TypeError, ValueError):
            continue
        if "out" not in params:
            namespace[name] = dtype_out(fn, _DTYPE_OUT[name], name in ("nansum", "nanmean")) \
                if name in _DTYPE_OUT else accepts_out(fn, name in _SAME_DTYPE_OUT, _OUT_DTYPES.get(name, ()))
            if name in _TENSORS_WITH_OUT:
                namespace[name] = _tensors_with_out(namespace[name], name, _TENSORS_WITH_OUT[name])
            if name in _OUT_NEEDS_DIM:
                namespace[name] = _out_needs_dim(namespace[name], name)


def _out_needs_dim(fn, name: str):
    """fn refusing out= (whatever its value) when no dim is given, as PyTorch's argument parser
    refuses it (_OUT_NEEDS_DIM)."""
    from ._args import InvalidArgumentTypeError

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if "out" in kwargs and len(args) < 2 and "dim" not in kwargs:
            raise InvalidArgumentTypeError(f"{name}() received an invalid combination of arguments: out= without "
                                           f"dim (PyTorch's {name} of every element takes no out)\n  fix: "
                                           f"out.copy_(torch.{name}(x)), or {name}(x, dim, out=out)")
        return fn(*args, **kwargs)
    return call


def _tensors_with_out(fn, name: str, params: tuple):
    """fn refusing a number at params (args[1], args[2], ...) when out= is given: PyTorch's
    overload with out= takes tensors only (torch.where(c, x, 0., out=y) is its TypeError
    "where(): argument 'other' (position 3) must be Tensor, not float")."""
    from ._tensor import Tensor
    from ._tensor_arguments import refuse

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if kwargs.get("out") is not None:
            for i, param in enumerate(params, start=1):
                value = args[i] if i < len(args) else kwargs.get(param)
                if value is not None and not isinstance(value, Tensor):
                    refuse(name, param, i + 1 if i < len(args) else None, value)
        return fn(*args, **kwargs)
    return call
