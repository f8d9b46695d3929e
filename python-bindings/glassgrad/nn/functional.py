"""glassgrad.nn.functional: torch.nn.functional's names, argument orders, defaults and return
values, for the functions glassgrad has (import glassgrad.nn.functional as F).

The implementations live in glassgrad.functional (and the modules it imports); this module
exports exactly the torch.nn.functional spellings, so that a ported script's `F.` calls mean
what they meant in PyTorch. (glassgrad.flatten, with start_dim=1, is not here: torch.nn.functional
has no flatten; Tensor.flatten() and glassgrad.nn.Flatten follow PyTorch.)
"""
from ..functional import (avg_pool2d, batch_norm, conv2d, cross_entropy, leaky_relu, linear, log_softmax,  # noqa: F401
                          max_pool2d, relu, sigmoid, softmax, tanh)
