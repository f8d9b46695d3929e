"""nn.Container, PyTorch's deprecated container: Container(name=module, ...) registers the given
modules, with PyTorch's FutureWarning (subclass nn.Module instead)."""
from __future__ import annotations

import warnings
from typing import Any

from .module import Module


class Container(Module):
    def __init__(self, **kwargs: Any) -> None:
        warnings.warn("`nn.Container` is deprecated. All of its functionality is now implemented in `nn.Module`. "
                      "Subclass that instead.", FutureWarning, stacklevel=2)
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)
