"""torch.nn.utils.clip_grad: the module path of the gradient-clipping functions (scripts import
`from torch.nn.utils.clip_grad import clip_grad_norm_`); they are glassgrad.debug.clip's."""
from ...debug.clip import clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from . import _deprecated

clip_grad_norm = _deprecated.clip_grad_norm

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]
