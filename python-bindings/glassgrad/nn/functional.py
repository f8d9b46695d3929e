"""glassgrad.nn.functional: torch.nn.functional's names, argument orders, defaults and return
values, for the functions glassgrad has (import glassgrad.nn.functional as F).

The implementations live in glassgrad.functional and the modules it imports; this module exports
the torch.nn.functional spellings, so that a ported script's `F.` calls mean what they meant in
PyTorch. Where glassgrad's own top-level function differs (glassgrad.softmax's dim defaults to
-1; glassgrad.flatten keeps the batch axis, start_dim=1), the version here is PyTorch's.
"""
from typing import Optional

from .._attention import scaled_dot_product_attention
from .._losses import (binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy, l1_loss,
                       mse_loss, nll_loss)
from .._embedding import embedding, embedding_bag
from .._rms_norm import rms_norm
from .._pooling_1d import (adaptive_avg_pool1d, adaptive_max_pool1d, adaptive_max_pool1d_with_indices,
                           adaptive_max_pool2d, adaptive_max_pool2d_with_indices, avg_pool1d, max_pool1d,
                           max_pool1d_with_indices, max_unpool1d)
from .._pooling import max_pool2d_with_indices, max_unpool2d
from .._extra_activations import (celu, celu_, glu, hardshrink, logsigmoid, prelu, rrelu, rrelu_, selu,
                                  selu_, softmin, softshrink, softsign, tanhshrink, threshold, threshold_)
from .._distances import cosine_similarity, normalize, pairwise_distance
from .._margin_losses import (cosine_embedding_loss, hinge_embedding_loss, margin_ranking_loss,
                              multi_margin_loss, multilabel_soft_margin_loss, triplet_margin_loss)
from .._regression_losses import (gaussian_nll_loss, huber_loss, kl_div, poisson_nll_loss,
                                  smooth_l1_loss, soft_margin_loss)
from .._conv_transpose import conv1d, conv_tbc, conv_transpose1d, conv_transpose2d
from .._padding import pad
from .._conv3d import conv3d, conv_transpose3d
from .._ctc_loss import ctc_loss
from .._fold import fold, unfold
from .._lp_pool import adaptive_avg_pool3d, lp_pool1d, lp_pool2d, lp_pool3d
from .._pool3d import (adaptive_max_pool3d, adaptive_max_pool3d_with_indices, avg_pool3d, max_pool3d,
                       max_pool3d_with_indices, max_unpool3d)
from .._fractional_pool import (fractional_max_pool2d, fractional_max_pool2d_with_indices, fractional_max_pool3d,
                                fractional_max_pool3d_with_indices)
from .._bilinear import bilinear, channel_shuffle, gumbel_softmax
from .._bilinear import channel_shuffle as native_channel_shuffle  # PyTorch's name of the same kernel
from .._statistics import pdist
from .._interpolate import upsample, upsample_bilinear, upsample_nearest
from .._local_response_norm import local_response_norm
from .._ranking_losses import multilabel_margin_loss, triplet_margin_with_distance_loss
from .._grid_sample import affine_grid, grid_sample
from .._instancenorm import instance_norm
from .._spatial import (adaptive_avg_pool2d, dropout, dropout1d, dropout2d, dropout3d,
                        interpolate, one_hot, pixel_shuffle, pixel_unshuffle)
from .._tensor import Tensor
from ..functional import (avg_pool2d, batch_norm, conv2d, elu, gelu, layer_norm, leaky_relu, linear,
                          max_pool2d, relu, sigmoid, silu, softplus, tanh)
from .attention import multi_head_attention_forward
from ..functional import hardsigmoid, hardswish, hardtanh, mish, relu6
from .groupnorm import group_norm
from .dropout import *  # noqa: F403 (its __all__: the functions, and the layers, which nn exports)
from .layers import _softmax_dim
from .linear_cross_entropy import linear_cross_entropy


def softmax(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """softmax along dim (PyTorch's F.softmax; dim=None picks 0 for 0-, 1- and 3-d input, else 1)."""
    x = input.astype(dtype) if dtype is not None else input
    return x.softmax(_softmax_dim(x, dim, "softmax", _stacklevel))


def log_softmax(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """log_softmax along dim (PyTorch's F.log_softmax; dim=None as softmax)."""
    x = input.astype(dtype) if dtype is not None else input
    return x.log_softmax(_softmax_dim(x, dim, "log_softmax", _stacklevel))


# The in-place activations (F.relu_(x) is F.relu(x, inplace=True): x itself, changed).
def relu_(input: Tensor) -> Tensor:
    """max(x, 0) written into x (PyTorch's F.relu_, torch.relu_)."""
    return relu(input, inplace=True)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """F.leaky_relu written into x (PyTorch's F.leaky_relu_)."""
    return leaky_relu(input, negative_slope, inplace=True)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """F.elu written into x (PyTorch's F.elu_)."""
    return elu(input, alpha, inplace=True)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """F.hardtanh written into x (PyTorch's F.hardtanh_)."""
    return hardtanh(input, min_val, max_val, inplace=True)
