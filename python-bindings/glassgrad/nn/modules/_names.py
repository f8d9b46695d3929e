"""torch.nn.modules' layout over glassgrad.nn: each submodule (linear, rnn, ...) answers the names
PyTorch defines there with glassgrad.nn's class of that name. Scripts reach layers by these paths
(`torch.nn.modules.linear.Linear` in the safe_globals of a whole-model checkpoint, `from
torch.nn.modules.module import Module`), and a class pickled by its module path must resolve.

A name is looked up when it is read, so layers added to glassgrad.nn later appear without an edit
here; __all__ lists the ones glassgrad has now, and a name PyTorch has and glassgrad does not is
an AttributeError that says so."""
from __future__ import annotations

import importlib
from typing import Callable, List, Tuple

# Names glassgrad.nn does not export itself, and the module that defines them.
_ELSEWHERE = {"NonDynamicallyQuantizableLinear": "glassgrad.nn.attention", "LazyModuleMixin": "glassgrad.nn.lazy"}


def _lookup(name: str):
    module = importlib.import_module(_ELSEWHERE.get(name, "glassgrad.nn"))
    return getattr(module, name)


def forward_names(module_name: str, torch_names: List[str]) -> Tuple[List[str], Callable, Callable]:
    """(__all__, __getattr__, __dir__) for the submodule `module_name`, which holds
    `torch_names` in PyTorch."""
    short = module_name.rsplit(".", 1)[-1]
    known = set(torch_names)

    def __getattr__(name: str):
        if name not in known:
            raise AttributeError(f"module 'glassgrad.nn.modules.{short}' has no attribute '{name}'")
        try:
            return _lookup(name)
        except AttributeError:
            raise AttributeError(f"glassgrad.nn.modules.{short}.{name}: glassgrad has no nn.{name} yet (PyTorch "
                                 f"defines it in torch.nn.modules.{short}); docs/porting.md lists the layers "
                                 f"glassgrad has") from None

    def __dir__():
        return sorted(known)

    present = []
    for name in torch_names:
        try:
            _lookup(name)
            present.append(name)
        except AttributeError:
            pass
    return present, __getattr__, __dir__
