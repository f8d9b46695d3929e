"""glassgrad.nn.utils: torch.nn.utils's names for what glassgrad has (rnn: packed sequences;
clip_grad_norm_, clip_grad_value_, get_total_norm, clip_grads_with_norm_; parameters_to_vector,
vector_to_parameters; prune: pruning parameters with masks)."""
from ...debug.clip import clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from . import prune, rnn
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = ["prune", "rnn", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
           "parameters_to_vector", "vector_to_parameters"]
