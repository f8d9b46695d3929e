"""glassgrad.nn.modules: torch.nn.modules' package layout (activation, container, linear, rnn,
...), each submodule naming glassgrad.nn's layers where PyTorch defines them (see _names.py);
the package itself answers every one of those names, as torch.nn.modules does."""
from . import (activation, adaptive, batchnorm, channelshuffle, container, conv, distance, dropout, flatten, fold,
               instancenorm, lazy, linear, linear_cross_entropy_options, loss, module, normalization, padding,
               pixelshuffle, pooling, rnn, sparse, transformer, upsampling, utils)  # utils: torch.nn.modules.utils

_SUBMODULES = (activation, adaptive, batchnorm, channelshuffle, container, conv, distance, dropout, flatten, fold,
               instancenorm, lazy, linear, linear_cross_entropy_options, loss, module, normalization, padding,
               pixelshuffle, pooling, rnn, sparse, transformer, upsampling)
__all__ = sorted({name for m in _SUBMODULES for name in m.__all__})


def __getattr__(name: str):
    for m in _SUBMODULES:
        if name in dir(m):
            return getattr(m, name)
    raise AttributeError(f"module 'glassgrad.nn.modules' has no attribute '{name}'")
