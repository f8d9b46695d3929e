"""torch.<name> spellings of F functions whose top-level signature is ATen's, not F's: the
reduction is an int (0 'none', 1 'mean', 2 'sum', PyTorch's enum), the arguments are positional in
ATen's order (torch.embedding takes the weight first, torch.instance_norm the affine parameters
before the running statistics), and the dropout variants take a required `train`. Each function
checks its arguments and calls the F function of the same job (one implementation per op)."""
from __future__ import annotations

import warnings
from typing import Optional

from . import _C, _args, _spatial
from ._tensor import Tensor

__all__ = ["adaptive_max_pool1d", "affine_grid_generator", "alpha_dropout", "alpha_dropout_",
           "binary_cross_entropy_with_logits", "convolution", "grid_sampler", "native_channel_shuffle", "native_dropout",
           "native_layer_norm", "constant_pad_nd",
           "cosine_embedding_loss", "ctc_loss", "dropout_", "embedding", "feature_alpha_dropout",
           "feature_alpha_dropout_", "feature_dropout", "feature_dropout_", "group_norm", "hinge_embedding_loss", "instance_norm",
           "kl_div", "margin_ranking_loss", "max_pool1d_with_indices", "poisson_nll_loss", "rrelu", "rrelu_",
           "triplet_margin_loss"]

_REDUCTIONS = ("none", "mean", "sum")  # at::Reduction's order
# The default reduction of the torch.* spellings: ATen's schemas say `int reduction=Mean`, but
# PyTorch's Python argument parser reads that default with atol ("Mean" -> 0), so torch.kl_div(x, y),
# torch.hinge_embedding_loss(x, y), torch.ctc_loss(...) called without one return the unreduced loss
# (x's shape). The F functions' and the loss modules' 'mean' default is unaffected.
_UNREDUCED = 0


def _reduction(reduction, where: str) -> str:
    """ATen's int reduction as F's string (a string is taken too: a port that kept F's spelling)."""
    if isinstance(reduction, str) and reduction in _REDUCTIONS:
        return reduction
    if isinstance(reduction, int) and not isinstance(reduction, bool) and 0 <= reduction < len(_REDUCTIONS):
        return _REDUCTIONS[reduction]
    raise _args.InvalidArgumentTypeError(
        f"{where}(): argument 'reduction' must be int (0 for 'none', 1 for 'mean', 2 for 'sum'), got {reduction!r}\n"
        f"  fix: torch.{where}(..., reduction=1) or F.{where}(..., reduction='mean')")


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,
                                     pos_weight: Optional[Tensor] = None, reduction=_UNREDUCED) -> Tensor:
    """torch.binary_cross_entropy_with_logits: F.binary_cross_entropy_with_logits, weight and
    pos_weight positional, reduction an int. An integer or bool input is PyTorch's
    NotImplementedError from its log-sigmoid kernel; an integer or bool target its RuntimeError that
    the float loss can't be cast to the target's dtype (ATen writes the loss in the target's dtype)."""
    from .nn import functional as F
    from ._inplace import _type_name
    where = "binary_cross_entropy_with_logits"
    _args.floating_input(input, "log_sigmoid_cpu")
    if not (target.dtype.is_floating_point or target.dtype.is_complex):
        raise RuntimeError(f"result type {_type_name(input.dtype)} can't be cast to the desired output type "
                           f"{_type_name(target.dtype)}\n  {where}: target is {target.dtype}\n  fix: target.float()")
    return F.binary_cross_entropy_with_logits(input, target, weight, reduction=_reduction(reduction, where),
                                              pos_weight=pos_weight)


def kl_div(input: Tensor, target: Tensor, reduction=_UNREDUCED, *, log_target: bool = False) -> Tensor:
    """torch.kl_div: F.kl_div with an int reduction (1 'mean' is the mean over every element, as
    F.kl_div's 'mean', not 'batchmean'; without F's warning about it, as PyTorch's ATen op).
    An integer or bool input or target is PyTorch's RuntimeError ('Integral inputs not supported')."""
    from .nn import functional as F
    from ._regression_losses import refuse_integral_kl_div
    if isinstance(input, Tensor) and isinstance(target, Tensor):
        refuse_integral_kl_div(input, target, "torch.kl_div")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "reduction: 'mean' divides", UserWarning)
        return F.kl_div(input, target, reduction=_reduction(reduction, "kl_div"), log_target=log_target)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction=_UNREDUCED) -> Tensor:
    """torch.cosine_embedding_loss: F.cosine_embedding_loss with an int reduction."""
    from .nn import functional as F
    return F.cosine_embedding_loss(input1, input2, target, margin,
                                   reduction=_reduction(reduction, "cosine_embedding_loss"))


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, reduction=_UNREDUCED) -> Tensor:
    """torch.hinge_embedding_loss: F.hinge_embedding_loss with an int reduction."""
    from .nn import functional as F
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction, "hinge_embedding_loss"))


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction=_UNREDUCED) -> Tensor:
    """torch.margin_ranking_loss: F.margin_ranking_loss with an int reduction."""
    from .nn import functional as F
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction, "margin_ranking_loss"))


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2.0,
                        eps: float = 1e-06, swap: bool = False, reduction=_UNREDUCED) -> Tensor:
    """torch.triplet_margin_loss: F.triplet_margin_loss with an int reduction."""
    from .nn import functional as F
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction=_reduction(reduction, "triplet_margin_loss"))


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float, reduction) -> Tensor:
    """torch.poisson_nll_loss(input, target, log_input, full, eps, reduction): every argument
    required, as ATen's; F.poisson_nll_loss computes it."""
    from .nn import functional as F
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                              reduction=_reduction(reduction, "poisson_nll_loss"))


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths, blank: int = 0, reduction=_UNREDUCED,
             zero_infinity: bool = False) -> Tensor:
    """torch.ctc_loss: F.ctc_loss with an int reduction."""
    from .nn import functional as F
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                      _reduction(reduction, "ctc_loss"), zero_infinity)


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """torch.embedding(weight, indices, ...): the weight first, as ATen's, and a negative
    padding_idx means none (F.embedding counts a negative one from the end before calling it)."""
    from .nn import functional as F
    pad = _args.integer(padding_idx, "padding_idx", "embedding")
    return F.embedding(indices, weight, None if pad < 0 else pad, scale_grad_by_freq=scale_grad_by_freq,
                       sparse=sparse)


def instance_norm(input: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], running_mean: Optional[Tensor],
                  running_var: Optional[Tensor], use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Tensor:
    """torch.instance_norm: F.instance_norm in ATen's order (cudnn_enabled is PyTorch's backend
    switch: glassgrad has no cuDNN)."""
    from .nn import functional as F
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def group_norm(input: Tensor, num_groups: int, weight: Optional[Tensor] = None, bias: Optional[Tensor] = None,
               eps: float = 1e-05, cudnn_enabled: bool = True) -> Tensor:
    """torch.group_norm: F.group_norm with ATen's trailing cudnn_enabled (PyTorch's backend switch:
    glassgrad has no cuDNN). An input without a channel dim (0-d or 1-d) is ATen's IndexError from
    reading input.size(1), where F.group_norm's own check is a RuntimeError."""
    from .nn import functional as F
    if isinstance(input, Tensor) and input.ndim < 2:
        _args.absent_dim("group_norm", input.shape, input.ndim, "give the input a batch dim: x.reshape(1, *x.shape)")
    return F.group_norm(input, num_groups, weight, bias, eps)


def constant_pad_nd(input: Tensor, pad, value=0) -> Tensor:
    """torch.constant_pad_nd: F.pad's constant mode (pairs from the last axis back; negative
    amounts crop)."""
    from .nn import functional as F
    return F.pad(input, list(pad), "constant", value)


def _train(train, where: str) -> bool:
    return _args.flag(train, "train", where)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """torch.alpha_dropout(input, p, train): F.alpha_dropout with train required."""
    from .nn import functional as F
    return F.alpha_dropout(input, p, _train(train, "alpha_dropout"))


def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """torch.alpha_dropout_: alpha_dropout written into input."""
    from .nn import functional as F
    return F.alpha_dropout(input, p, _train(train, "alpha_dropout_"), inplace=True)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """torch.feature_alpha_dropout(input, p, train): F.feature_alpha_dropout with train required."""
    from .nn import functional as F
    return F.feature_alpha_dropout(input, p, _train(train, "feature_alpha_dropout"))


def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """torch.feature_alpha_dropout_: feature_alpha_dropout written into input."""
    from .nn import functional as F
    return F.feature_alpha_dropout(input, p, _train(train, "feature_alpha_dropout_"), inplace=True)


def _feature_dropout(input: Tensor, p, train, inplace: bool, where: str) -> Tensor:
    """ATen's feature dropout: each input[n, c] (the first two axes, whatever the rank >= 2) is
    zeroed whole with probability p, the others scaled by 1 / (1 - p); input when not train."""
    p, train = _spatial._dropout_p(where, p, _train(train, where), inplace)
    if not train or p == 0.0 or input.numel() == 0:
        return input
    if input.ndim < 2:
        raise _C.ShapeError(f"{where}: Feature dropout requires at least 2 dimensions in the input, got "
                            f"{list(input.shape)}\n  fix: torch.dropout(x, p, train) for element-wise dropout")
    mask_shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    return _spatial._maybe_in_place(input, inplace, where, lambda: _spatial._masked(input, p, mask_shape))


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """torch.feature_dropout(input, p, train): channel dropout of (N, C, *) input."""
    return _feature_dropout(input, p, train, False, "feature_dropout")


def feature_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """torch.feature_dropout_: feature_dropout written into input."""
    return _feature_dropout(input, p, train, True, "feature_dropout_")


def dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """torch.dropout_(input, p, train): F.dropout written into input."""
    return _spatial.dropout(input, p, _train(train, "dropout_"), inplace=True)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          generator=None) -> Tensor:
    """torch.rrelu: F.rrelu, with ATen's generator argument (glassgrad's one generator draws the
    slopes: a Generator other than the default is refused)."""
    from ._extra_activations import rrelu as f
    _default_generator_only(generator, "rrelu")
    return f(input, lower, upper, training)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
           generator=None) -> Tensor:
    """torch.rrelu_: rrelu written into input."""
    from ._extra_activations import rrelu as f
    _default_generator_only(generator, "rrelu_")
    return f(input, lower, upper, training, inplace=True)


def _default_generator_only(generator, where: str) -> None:
    from ._random import default_generator
    if generator is not None and generator is not default_generator:
        raise _C.UnsupportedError(f"{where}: draws its slopes from glassgrad's default generator; a generator of its "
                                  f"own is not supported\n  fix: leave generator out (glassgrad.manual_seed(n) "
                                  f"makes the draw repeatable)")


def max_pool1d_with_indices(input: Tensor, kernel_size, stride=(), padding=0, dilation=1, ceil_mode: bool = False):
    """torch.max_pool1d_with_indices: (values, indices) of F.max_pool1d (stride () or None is
    kernel_size, as ATen's empty list)."""
    from .nn import functional as F
    return F.max_pool1d(input, kernel_size, stride if stride not in ((), [], None) else None, padding, dilation,
                        ceil_mode, return_indices=True)


def adaptive_max_pool1d(input: Tensor, output_size):
    """torch.adaptive_max_pool1d: (values, indices), as ATen's (F.adaptive_max_pool1d gives the
    values only unless return_indices=True)."""
    from .nn import functional as F
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def convolution(input: Tensor, weight: Tensor, bias: Optional[Tensor], stride, padding, dilation, transposed: bool,
                output_padding, groups: int) -> Tensor:
    """torch.convolution: ATen's one convolution entry, F.conv1d/2d/3d or F.conv_transpose1d/2d/3d
    by the weight's spatial rank and `transposed` (every argument required, as ATen's)."""
    from .nn import functional as F
    spatial = weight.ndim - 2
    if spatial not in (1, 2, 3):
        raise _C.ShapeError(f"convolution: weight of shape {list(weight.shape)} is not (out, in / groups, *kernel) with "
                            f"1 to 3 spatial dims\n  fix: a Conv1d/2d/3d layer's weight")
    if _args.flag(transposed, "transposed", "convolution"):
        up = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[spatial - 1]
        return up(input, weight, bias, tuple(stride), tuple(padding), tuple(output_padding), groups, tuple(dilation))
    conv = (F.conv1d, F.conv2d, F.conv3d)[spatial - 1]
    return conv(input, weight, bias, tuple(stride), tuple(padding), tuple(dilation), groups)


_INTERPOLATION = ("bilinear", "nearest", "bicubic")  # GridSamplerInterpolation's order
_PADDING = ("zeros", "border", "reflection")          # GridSamplerPadding's order


def grid_sampler(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                 align_corners: bool) -> Tensor:
    """torch.grid_sampler: F.grid_sample with ATen's int modes (interpolation 0 bilinear, 1 nearest,
    2 bicubic; padding 0 zeros, 1 border, 2 reflection)."""
    from .nn import functional as F
    if interpolation_mode not in (0, 1, 2) or padding_mode not in (0, 1, 2):
        raise _C.InvalidArgumentError(f"grid_sampler: interpolation_mode {interpolation_mode} and padding_mode "
                                      f"{padding_mode} must be 0, 1 or 2\n  fix: 0, 0 for bilinear with zeros")
    return F.grid_sample(input, grid, _INTERPOLATION[interpolation_mode], _PADDING[padding_mode], align_corners)


def affine_grid_generator(theta: Tensor, size, align_corners: bool) -> Tensor:
    """torch.affine_grid_generator: F.affine_grid(theta, size, align_corners)."""
    from .nn import functional as F
    return F.affine_grid(theta, list(size), align_corners)


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """torch.native_channel_shuffle: F.channel_shuffle."""
    from .nn import functional as F
    return F.channel_shuffle(input, groups)


def native_layer_norm(input: Tensor, normalized_shape, weight: Optional[Tensor], bias: Optional[Tensor],
                      eps: float):
    """torch.native_layer_norm: (output, mean, rstd), F.layer_norm's output and the statistics of
    the normalized trailing dims (kept as size-1 dims; rstd = 1 / sqrt(var + eps))."""
    from .nn import functional as F
    from ._reductions import mean as _mean, var as _var
    from ._math import add, rsqrt
    dims = tuple(range(input.ndim - len(normalized_shape), input.ndim))
    out = F.layer_norm(input, list(normalized_shape), weight, bias, eps)
    mu = _mean(input, dims, keepdim=True)
    rstd = rsqrt(add(_var(input, dims, keepdim=True, correction=0), eps))
    return out, mu, rstd


def native_dropout(input: Tensor, p: float, train) -> tuple:
    """torch.native_dropout(input, p, train): (output, mask), mask the kept elements (bool); not
    train (or train None), the input and a mask of ones."""
    from ._factories import ones_like
    if not train:
        return input, ones_like(input, dtype="bool")
    from ._factories import rand
    p = _spatial._dropout_p("native_dropout", p, True, False)[0]
    keep = rand(input.shape, device=input.device) >= p
    scale = 0.0 if p == 1.0 else 1.0 / (1.0 - p)
    return input * keep.astype(input.dtype) * scale, keep
