"""glassgrad.nn.utils: torch.nn.utils's names for what glassgrad has (rnn: packed sequences;
clip_grad_norm_, clip_grad_value_; prune: pruning parameters with masks)."""
from ...debug.clip import clip_grad_norm_, clip_grad_value_
from . import prune, rnn

__all__ = ["prune", "rnn", "clip_grad_norm_", "clip_grad_value_"]
