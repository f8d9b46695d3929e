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

import importlib
import importlib.abc
import importlib.machinery
import sys
from typing import Dict

import glassgrad as _gg
from glassgrad import Tensor, _absent_dtypes, _left_out_modules
from glassgrad._numpy_names import accept_numpy_names
from glassgrad import torch_version as _torch_version


class _SameModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """`import glassgrad.torch.nn.functional as F`, `from glassgrad.torch.autograd import
    Variable`: a module imported under glassgrad.torch is glassgrad's own module, the very object
    glassgrad.nn.functional is (as `torch.nn` by attribute is glassgrad.nn). Loading the file again
    under the longer name would make a second Tensor class, whose tensors the first refuses."""

    def __init__(self) -> None:
        self._specs: Dict[str, importlib.machinery.ModuleSpec] = {}

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(__name__ + "."):
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec):
        module = importlib.import_module("glassgrad." + spec.name[len(__name__) + 1:])
        self._specs[module.__name__] = module.__spec__
        return module

    def exec_module(self, module) -> None:
        # the import system gave the module the alias's spec: its own comes back (relative
        # imports inside it resolve against glassgrad's package, not glassgrad.torch's)
        module.__spec__ = self._specs.pop(module.__name__, module.__spec__)


# A package without a folder of its own: submodule imports are answered by _SameModules. (Without
# this, __getattr__ below would hand the import system glassgrad's __path__.)
__path__: list = []
if not any(isinstance(f, _SameModules) for f in sys.meta_path):
    sys.meta_path.insert(0, _SameModules())


# torch.__version__, which courses print first: glassgrad's own version, compared as the PyTorch
# release glassgrad.torch follows (torch_version.py). The module protocol names below are this
# module's own, so it is set here rather than found by __getattr__.
__version__: str = _torch_version.__version__


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """torch.flatten: axes start_dim..end_dim become one (all of them by default)."""
    return input.flatten(start_dim, end_dim)


def softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """torch.softmax: softmax along dim (required), after converting to dtype when given."""
    return input.softmax(dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """torch.log_softmax: log_softmax along dim (required), after converting to dtype when given."""
    return input.log_softmax(dim, dtype=dtype)


accept_numpy_names(globals(), ["softmax", "log_softmax"])  # axis= for dim=, as PyTorch's parser takes it


def batch_norm(input: Tensor, weight, bias, running_mean, running_var, training: bool, momentum: float, eps: float,
               cudnn_enabled: bool = True) -> Tensor:
    """torch.batch_norm: F.batch_norm with torch's top-level argument order (cudnn_enabled is
    torch's backend switch: glassgrad has no cuDNN)."""
    return _gg.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def __getattr__(name: str):
    if name.startswith("__") and name.endswith("__"):  # module protocol names are this module's own
        raise AttributeError(f"module 'glassgrad.torch' has no attribute {name!r}")
    absent = _absent_dtypes.error("glassgrad.torch", name)
    if absent is not None:
        raise absent
    try:
        return getattr(_gg, name)
    except AttributeError:
        if "glassgrad." + name in _left_out_modules.LEFT_OUT:  # torch.fx.symbolic_trace(...) without an import
            raise AttributeError(f"module 'glassgrad.torch' has no attribute {name!r}: "
                                 f"{_left_out_modules.message('glassgrad.' + name)}") from None
        raise AttributeError(f"module 'glassgrad.torch' has no attribute {name!r} (glassgrad has none either)\n"
                             f"  fix: see docs/porting.md for glassgrad's name of torch.{name}, or "
                             f"docs/coverage.md for what is not covered") from None


def __dir__():
    return sorted(set(dir(_gg)) | {"flatten", "softmax", "log_softmax", "batch_norm"})
