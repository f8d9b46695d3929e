"""glassgrad.nn.functional: torch.nn.functional's names, argument orders, defaults and return
values, for the functions glassgrad has (import glassgrad.nn.functional as F).

The implementations live in glassgrad.functional (and the modules it imports); this module
exports exactly the torch.nn.functional spellings, so that a ported script's `F.` calls mean
what they meant in PyTorch. (glassgrad.flatten, with start_dim=1, is not here: torch.nn.functional
has no flatten; Tensor.flatten() and glassgrad.nn.Flatten follow PyTorch.)
"""
from .._losses import (binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy, l1_loss,  # noqa: F401
                       mse_loss, nll_loss)
from ..functional import (avg_pool2d, batch_norm, conv2d, leaky_relu, linear, log_softmax, max_pool2d, relu,  # noqa: F401
                          sigmoid, softmax, tanh)
