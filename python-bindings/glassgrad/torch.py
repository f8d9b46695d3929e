"""glassgrad under PyTorch's top-level defaults: what a PyTorch script gets from
`import glassgrad.torch as torch`, the one import line a port changes for a plain `import torch`
(docs/porting.md). Every name is glassgrad's (torch.nn, torch.optim, torch.tensor, ... resolve to
glassgrad's own objects), except where glassgrad's top level deliberately differs from PyTorch's
("Deliberate differences" in docs/porting.md):

- flatten(input, start_dim=0, end_dim=-1) flattens every axis by default, as torch.flatten does;
  glassgrad.flatten keeps the batch axis (start_dim=1), as the seed's scripts use it.

- softmax(input, dim) and log_softmax(input, dim) need a dim, as torch's top-level functions do;
  gg.softmax and gg.log_softmax default to dim=-1.

- batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
  cudnn_enabled) takes torch.batch_norm's order; gg.batch_norm is F.batch_norm's (running_mean
  and running_var before weight and bias)."""
from __future__ import annotations

import glassgrad as _gg
from glassgrad import Tensor


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """torch.flatten: axes start_dim..end_dim become one (all of them by default)."""
    return input.flatten(start_dim, end_dim)


def softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """torch.softmax: softmax along dim (required), after converting to dtype when given."""
    return input.softmax(dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """torch.log_softmax: log_softmax along dim (required), after converting to dtype when given."""
    return input.log_softmax(dim, dtype=dtype)


def batch_norm(input: Tensor, weight, bias, running_mean, running_var, training: bool, momentum: float, eps: float,
               cudnn_enabled: bool = True) -> Tensor:
    """torch.batch_norm: F.batch_norm with torch's top-level argument order (cudnn_enabled is
    torch's backend switch: glassgrad has no cuDNN)."""
    return _gg.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def __getattr__(name: str):
    try:
        return getattr(_gg, name)
    except AttributeError:
        raise AttributeError(f"module 'glassgrad.torch' has no attribute {name!r} (glassgrad has none either)\n"
                             f"  fix: see docs/porting.md for glassgrad's name of torch.{name}, or "
                             f"docs/coverage.md for what is not covered") from None


def __dir__():
    return sorted(set(dir(_gg)) | {"flatten", "softmax", "log_softmax", "batch_norm"})
