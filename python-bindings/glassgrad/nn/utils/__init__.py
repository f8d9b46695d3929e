"""glassgrad.nn.utils: torch.nn.utils's names for what glassgrad has (rnn: packed sequences;
clip_grad_norm_, clip_grad_value_, get_total_norm, clip_grads_with_norm_; parameters_to_vector,
vector_to_parameters; fuse_conv_bn_eval / fuse_linear_bn_eval (fusion); parametrize, parametrizations (weight_norm, spectral_norm) and the older
weight_norm / spectral_norm hooks (and their remove_*); prune: pruning parameters with masks).
clip_grad_norm, the spelling before PyTorch 0.4, warns as PyTorch's does and calls clip_grad_norm_."""
import warnings

from ...debug.clip import clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from . import fusion, parametrizations, parametrize, prune, rnn
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = ["prune", "rnn", "clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
           "parameters_to_vector", "vector_to_parameters", "parametrize", "parametrizations", "weight_norm",
           "remove_weight_norm", "spectral_norm", "remove_spectral_norm", "fusion", "fuse_conv_bn_eval",
           "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach=None):
    """The deprecated spelling of clip_grad_norm_ (PyTorch's too): the same clipping, with PyTorch's
    FutureWarning."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)
