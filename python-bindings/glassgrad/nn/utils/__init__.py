"""glassgrad.nn.utils: torch.nn.utils's names for what glassgrad has (rnn: packed sequences;
clip_grad_norm_, clip_grad_value_)."""
from ...debug.clip import clip_grad_norm_, clip_grad_value_
from . import rnn

__all__ = ["rnn", "clip_grad_norm_", "clip_grad_value_"]
