"""torch's top-level in-place functions (torch.sin_(x), torch.clamp_(x, 0, 1), torch.zero_(x),
...): each is the Tensor method of the same name, which changes x and returns it
(docs/porting.md, the in-place row)."""
from __future__ import annotations

from typing import List

__all__: List[str] = []

_METHODS = ["abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_",
            "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_", "clamp_min_", "clip_", "cos_",
            "cosh_", "deg2rad_", "detach_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_", "floor_",
            "frac_", "index_put_", "log10_", "log1p_", "log2_", "log_", "logit_", "neg_", "negative_", "rad2deg_",
            "reciprocal_", "resize_as_", "round_", "rsqrt_", "sigmoid_", "sinc_", "sin_", "sinh_", "sqrt_", "square_",
            "tan_", "tanh_", "trunc_", "xlogy_", "zero_"]


def _function(name: str):
    def fn(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.{name}(input, ...): input.{name}(...), which changes input and returns it."
    return fn


for _name in _METHODS:
    globals()[_name] = _function(_name)
    __all__.append(_name)
