"""PyTorch's TypeError for a number, a list, an array or None passed where a torch.* function
takes only a Tensor: torch.exp(2.0) raises "exp(): argument 'input' (position 1) must be Tensor,
not float" and so does glassgrad.exp(2.0), with a fix line (docs/porting.md, the "Tensor
arguments" row). Where PyTorch has an overload taking a number (torch.add(2, x), torch.pow(2, x),
torch.where(c, x, 0.)) the function is not listed and the number is accepted as before.

_FUNCTIONS lists, for each torch.* name, its parameters in order that must be Tensors ('-' for one
that may be something else, a trailing '?' for an optional one that may be None), as PyTorch's
argument parser names them. glassgrad.batch_norm (F.batch_norm's signature here) and
torch.repeat_interleave (whose first overload takes the repeats) are not listed. _METHODS are the
names whose Tensor method refuses a non-tensor `other` too (x.maximum(2) raises "maximum():
argument 'other' (position 1) must be Tensor")."""
from __future__ import annotations

import functools
import inspect
from typing import Callable, List, Optional, Tuple

import numpy as np

from ._args import InvalidArgumentTypeError
from ._tensor import Tensor

_FUNCTIONS = """
abs=input abs_=input absolute=input acos=input acos_=input acosh=input acosh_=input adaptive_avg_pool1d=input
adaptive_max_pool1d=input addbmm=input,batch1,batch2 addcdiv=input,-,tensor2 addcmul=input,-,tensor2
addmm=input,mat1,mat2 addmv=input,mat,vec addmv_=input,mat,vec addr=input,vec1,vec2 adjoint=input
affine_grid_generator=theta alias_copy=input all=input allclose=input,other alpha_dropout=input alpha_dropout_=input
amax=input amin=input aminmax=input angle=input any=input arccos=input arccos_=input arccosh=input arccosh_=input
arcsin=input arcsin_=input arcsinh=input arcsinh_=input arctan=input arctan2=input,other arctan_=input arctanh=input
arctanh_=input argmax=input argmin=input argsort=input argwhere=input as_strided=input as_strided_=input
as_strided_copy=input as_strided_scatter=input,src asin=input asin_=input asinh=input asinh_=input atan=input
atan2=input,other atan_=input atanh=input atanh_=input avg_pool1d=input baddbmm=input,batch1,batch2
bernoulli=input bilinear=input1,input2,weight
binary_cross_entropy_with_logits=input,target,weight?,pos_weight? bincount=input,weights? binomial=count,prob bitwise_not=input
bmm=input,mat2 broadcast_to=input ceil=input ceil_=input celu=input celu_=input channel_shuffle=input
cholesky_inverse=input cholesky_solve=input,input2 chunk=input clamp=input clamp_=input clamp_max=input
clamp_max_=input clamp_min=input clamp_min_=input clip=input clip_=input clone=input combinations=input conj=input
constant_pad_nd=input conv1d=input conv2d=input conv3d=input conv_transpose1d=input,weight,bias?
conv_transpose2d=input,weight,bias? conv_transpose3d=input,weight,bias? convolution=input,weight,bias?
copysign=input corrcoef=input cos=input cos_=input cosh=input cosh_=input cosine_embedding_loss=input1,input2,target
cosine_similarity=x1,x2 count_nonzero=input cov=input cross=input,other ctc_loss=log_probs cudnn_is_acceptable=input
cummax=input cummin=input cumprod=input cumsum=input cumulative_trapezoid=y deg2rad=input deg2rad_=input det=input
detach=input detach_=input detach_copy=input diag=input diag_embed=input diagflat=input diagonal=input
diagonal_copy=input diagonal_scatter=input,src diff=input digamma=input dist=input,other dot=input,tensor
dropout=input dropout_=input dsplit=input embedding=weight,indices empty_like=input eq=input equal=input,other
erf=input erf_=input erfc=input erfc_=input erfinv=input exp=input exp2=input exp2_=input exp_=input
expand_copy=input expm1=input expm1_=input feature_alpha_dropout=input feature_alpha_dropout_=input
feature_dropout=input feature_dropout_=input fill=input fill_=input fix=input fix_=input flatten=input flip=input
fliplr=input flipud=input floor=input floor_=input fmax=input,other fmin=input,other fmod=input frac=input
frac_=input frexp=input frobenius_norm=input full_like=input gather=input gcd=input,other gcd_=input,other ge=input
ger=input,vec2 get_device=input gradient=input greater=input greater_equal=input grid_sampler=input,grid
group_norm=input gru_cell=input,hx,w_ih gt=input hardshrink=input heaviside=input,values
hinge_embedding_loss=input,target histc=input histogram=input histogramdd=input hsplit=input hypot=input,other
i0=input i0_=input igamma=input,other igammac=input,other index_add=input index_copy=input index_fill=input
index_put=input index_put_=input index_reduce=input index_select=input inner=input,other
instance_norm=input,weight?,bias? inverse=input is_complex=input is_conj=input is_distributed=input
is_floating_point=input is_inference=input is_neg=input is_nonzero=input is_same_size=input,other is_signed=input
isclose=input,other isfinite=input isinf=input isnan=input isneginf=input isposinf=input isreal=input
kl_div=input,target kron=input,other kthvalue=input layer_norm=input lcm=input,other lcm_=input,other
ldexp=input,other ldexp_=input,other le=input lerp=input less=input less_equal=input lgamma=input log=input
log10=input log10_=input log1p=input log1p_=input log2=input log2_=input log_=input log_softmax=input
logaddexp=input,other logaddexp2=input,other logcumsumexp=input logdet=input logical_and=input,other
logical_not=input logical_or=input,other logical_xor=input,other logit=input logit_=input logsumexp=input
lstm_cell=input lt=input lu_unpack=LU_data,LU_pivots margin_ranking_loss=input1,input2,target masked_fill=input
masked_scatter=input,mask,source masked_select=input,mask matmul=input,other matrix_exp=input matrix_power=input
max=input max_pool1d=input max_pool1d_with_indices=input max_pool2d=input max_pool3d=input maximum=input,other
mean=input median=input min=input minimum=input,other mm=input,mat2 mode=input moveaxis=input movedim=input
msort=input multinomial=input mv=input,vec mvlgamma=input nan_to_num=input nan_to_num_=input nanmean=input
nanmedian=input nanquantile=input nansum=input narrow=input narrow_copy=input native_channel_shuffle=input
native_dropout=input native_layer_norm=input ne=input neg=input neg_=input negative=input negative_=input
nextafter=input,other nonzero=input nonzero_static=input norm_except_dim=v not_equal=input nuclear_norm=input
numel=input ones_like=input orgqr=input,input2 outer=input,vec2 pairwise_distance=x1,x2 pdist=input permute=input
permute_copy=input pinverse=input pixel_shuffle=input pixel_unshuffle=input poisson=input
poisson_nll_loss=input,target positive=input prelu=input,weight prod=input put=input,index,source quantile=input
rad2deg=input rad2deg_=input rand_like=input randint_like=input randn_like=input ravel=input real=input
reciprocal=input reciprocal_=input relu=input relu_=input renorm=input reshape=input
resize_as_=input,the_template resolve_conj=input resolve_neg=input rms_norm=input rnn_relu_cell=input,hx,w_ih
rnn_tanh_cell=input,hx,w_ih roll=input rot90=input round=input round_=input rrelu=input rrelu_=input rsqrt=input
rsqrt_=input rsub=input scatter=input scatter_add=input scatter_reduce=input searchsorted=sorted_sequence
select=input select_copy=input select_scatter=input,src selu=input selu_=input sgn=input sigmoid=input
sigmoid_=input sign=input signbit=input sin=input sin_=input sinc=input sinc_=input sinh=input sinh_=input
slice_copy=input slice_scatter=input,src slogdet=input softmax=input sort=input split_copy=input
split_with_sizes=input split_with_sizes_copy=input spmm=input,mat2 sqrt=input sqrt_=input square=input square_=input
squeeze=input squeeze_copy=input std=input std_mean=input sum=input svd=input swapaxes=input swapdims=input t=input
t_copy=input take=input,index take_along_dim=input,indices tan=input tan_=input tanh=input tanh_=input
tensor_split=input threshold=input threshold_=input tile=input topk=input trace=input transpose=input
transpose_copy=input trapezoid=y trapz=y tril=input triplet_margin_loss=anchor,positive,negative triu=input
trunc=input trunc_=input unbind=input unbind_copy=input unflatten=input unfold_copy=input unsafe_chunk=input
unsafe_split=input unsafe_split_with_sizes=input unsqueeze=input unsqueeze_copy=input vander=x var=input
var_mean=input vdot=input,other view_copy=input vsplit=input where=condition xlogy_=input zero_=input
zeros_like=input arctan2_=input,other atan2_=input,other heaviside_=input,values hypot_=input,other
logical_and_=input,other logical_or_=input,other logical_xor_=input,other nextafter_=input,other
"""

_METHODS = """
addbmm addcdiv addcmul addmm addmv addmv_ addr allclose arctan2 as_strided_scatter atan2 baddbmm bincount bmm
cholesky_solve cross diagonal_scatter dist dot equal fmax fmin gcd gcd_ ger heaviside hypot igamma igammac inner
is_same_size isclose kron lcm lcm_ ldexp ldexp_ logaddexp logaddexp2 logical_and logical_or logical_xor
masked_scatter masked_select matmul maximum minimum mm mv nextafter orgqr outer prelu put resize_as_ select_scatter
slice_scatter take take_along_dim vdot arctan2_ atan2_ heaviside_ hypot_ logical_and_ logical_or_ logical_xor_
nextafter_
"""


def _table() -> dict:
    out = {}
    for entry in _FUNCTIONS.split():
        name, params = entry.split("=")
        out[name] = [(i, p.rstrip("?"), p.endswith("?")) for i, p in enumerate(params.split(",")) if p != "-"]
    return out


def _type_name(value) -> str:
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


def refuse(name: str, param: str, position, value) -> None:
    """PyTorch's TypeError for `value` given where `name` takes a Tensor (position None: by keyword)."""
    raise refusal(name, param, position, value)


def refusal(name: str, param: str, position, value) -> InvalidArgumentTypeError:
    """refuse's exception, for a wrapper to raise itself (its traceback then ends at the call)."""
    at = "" if position is None else f" (position {position})"
    shown = repr(value) if len(repr(value)) <= 40 else _type_name(value)
    # a number, list or array converts (its example); None, a string or an object does not
    convertible = isinstance(value, (bool, int, float, complex, list, tuple, np.ndarray, np.generic))
    example = (f", e.g. glassgrad.tensor({shown if len(shown) <= 40 else '...'}) (on the other arguments' device "
               f"and dtype: torch.as_tensor(value, device=x.device, dtype=x.dtype))") if convertible else ""
    return InvalidArgumentTypeError(
        f"{name}(): argument '{param}'{at} must be Tensor, not {_type_name(value)}\n"
        f"  {name} takes a tensor here and was given {shown}\n"
        f"  fix: pass a tensor{example}")


def _keywords(fn: Callable) -> frozenset:
    try:
        return frozenset(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return frozenset()


def _checking(fn: Callable, name: str, params: List[Tuple[int, str, bool]], first: int, accepted: tuple) -> Callable:
    """fn refusing a value not of the `accepted` types at each listed parameter, positional
    (args[i]) or by keyword (where fn has a parameter of PyTorch's name); `first` is the position
    PyTorch's message gives args[0] (1 for a function, 0 for a method, whose args[0] is the tensor
    itself)."""
    keywords = _keywords(fn)
    by_keyword = [(i, param, optional) for i, param, optional in params if param in keywords]

    def refused(args, kwargs) -> Optional[InvalidArgumentTypeError]:
        for i, param, optional in params:
            if i < len(args):
                value = args[i]
                if not isinstance(value, accepted) and not (optional and value is None):
                    return refusal(name, param, i + first, value)
        if kwargs:
            for i, param, optional in by_keyword:
                if i >= len(args) and param in kwargs:
                    value = kwargs[param]
                    if not isinstance(value, accepted) and not (optional and value is None):
                        return refusal(name, param, None, value)
        return None

    # The common calls (each listed parameter a tensor given by position) decided by one or two
    # isinstance tests: 411 of the 433 functions list one or two parameters, none optional. Any
    # other call (a keyword, a missing or non-tensor argument) goes through `refused`. A refusal is
    # raised by the wrapper itself, written out in each (a helper would be a frame more): the
    # traceback shows the script's line and this one frame of glassgrad's (PyTorch's shows none).
    required = [i for i, _, optional in params if not optional]
    if len(required) == len(params) == 1:
        i = required[0]

        @functools.wraps(fn)
        def call(*args, **kwargs):
            if len(args) > i and isinstance(args[i], accepted):
                return fn(*args, **kwargs)
            error = refused(args, kwargs)
            if error is not None:
                raise error
            return fn(*args, **kwargs)
        return call
    if len(required) == len(params) == 2:
        i, j = required

        @functools.wraps(fn)
        def call_two(*args, **kwargs):
            if len(args) > j and isinstance(args[i], accepted) and isinstance(args[j], accepted):
                return fn(*args, **kwargs)
            error = refused(args, kwargs)
            if error is not None:
                raise error
            return fn(*args, **kwargs)
        return call_two

    @functools.wraps(fn)
    def call_any(*args, **kwargs):
        error = refused(args, kwargs)
        if error is not None:
            raise error
        return fn(*args, **kwargs)
    return call_any


def install(namespace: dict, accepted: tuple = (Tensor,)) -> None:
    """Wraps each listed torch.* function of the namespace (glassgrad's top level) and the listed
    Tensor methods (their own tensor, args[0], is not checked); `accepted` are the types taken as
    tensors (glassgrad's sparse tensors besides Tensor: torch.mm(sparse, dense))."""
    table = _table()
    for name, params in table.items():
        fn = namespace.get(name)
        if callable(fn):
            namespace[name] = _checking(fn, name, params, 1, accepted)
    for name in _METHODS.split():
        method = getattr(Tensor, name, None)
        params = [p for p in table[name] if p[0] > 0]
        if callable(method) and params:
            setattr(Tensor, name, _checking(method, name, params, 0, accepted))
