"""glassgrad.nn.utils: torch.nn.utils's names for what glassgrad has (rnn: packed sequences;
clip_grad_norm_, clip_grad_value_, get_total_norm, clip_grads_with_norm_ (also under clip_grad);
parameters_to_vector, vector_to_parameters; fuse_conv_bn_eval / fuse_linear_bn_eval (fusion);
parametrize, parametrizations (weight_norm, spectral_norm) and the older weight_norm /
spectral_norm hooks (and their remove_*); prune: pruning parameters with masks; skip_init;
convert_conv2d/3d_weight_memory_format; stateless.functional_call). clip_grad_norm, the spelling
before PyTorch 0.4, warns as PyTorch's does and calls clip_grad_norm_."""
from ...debug.clip import clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from . import clip_grad, fusion, memory_format, parametrizations, parametrize, prune, rnn, stateless
from ._deprecated import clip_grad_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights
from .init import skip_init
from .memory_format import convert_conv2d_weight_memory_format, convert_conv3d_weight_memory_format
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = ["prune", "rnn", "clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
           "parameters_to_vector", "vector_to_parameters", "parametrize", "parametrizations", "weight_norm",
           "remove_weight_norm", "spectral_norm", "remove_spectral_norm", "fusion", "fuse_conv_bn_eval",
           "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights", "skip_init", "stateless",
           "convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]
