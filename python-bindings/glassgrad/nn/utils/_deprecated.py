"""torch.nn.utils's spellings that PyTorch keeps with a deprecation warning."""
import warnings

from ...debug.clip import clip_grad_norm_


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach=None):
    """The deprecated spelling of clip_grad_norm_ (PyTorch's too): the same clipping, with PyTorch's
    FutureWarning."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)
