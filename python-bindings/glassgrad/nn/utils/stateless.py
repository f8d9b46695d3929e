"""torch.nn.utils.stateless: functional_call, the spelling before torch.func's (PyTorch 2.0
deprecated it for torch.func.functional_call, a drop-in replacement). It warns as PyTorch's does
and calls glassgrad.func.functional_call (docs/autograd.md, "torch.func")."""
from __future__ import annotations

import warnings

__all__ = ["functional_call"]


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights: bool = True,
                    strict: bool = False):
    """module(*args, **kwargs) with the given tensors in the places of its parameters and buffers
    (torch.func.functional_call), after PyTorch's FutureWarning."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed "
                  "in a future version of PyTorch. Please use `torch.func.functional_call` instead which is a "
                  "drop-in replacement.", FutureWarning, stacklevel=2)
    from ...func import functional_call as call
    return call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)
