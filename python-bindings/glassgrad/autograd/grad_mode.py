"""torch.autograd.grad_mode: the module path of the gradient-mode switches (scripts import
`from torch.autograd.grad_mode import no_grad`); they are glassgrad's own (_runtime)."""
from .._runtime import enable_grad, inference_mode, no_grad, set_grad_enabled

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode"]
