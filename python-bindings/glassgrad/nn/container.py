"""ModuleList and ModuleDict: containers that register their modules (so parameters(),
state_dict(), .to() and error messages see them) without calling them, as torch.nn's do.
Entries are named by position ("layers.0.weight") or by key ("heads.cls.weight")."""
from __future__ import annotations

from collections import OrderedDict, abc
from typing import Any, Iterable, Iterator, Mapping, Optional, Tuple, Union

from .module import Module


class ModuleList(Module):
    """A list of modules: index, iterate, append, extend, insert; call them in your forward."""

    def __init__(self, modules: Optional[Iterable[Module]] = None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _items(self):
        return list(self._modules.values())

    def _reindex(self, items) -> None:
        self._modules.clear()
        for i, m in enumerate(items):
            self.add_module(str(i), m)

    def __getitem__(self, idx: Union[int, slice]):
        items = self._items()
        if isinstance(idx, slice):
            return ModuleList(items[idx])
        if not -len(items) <= idx < len(items):
            raise IndexError(f"index {idx} is out of range for a ModuleList of {len(items)}")
        return items[idx]

    def __setitem__(self, idx: int, module: Module) -> None:
        items = self._items()
        items[idx] = module
        self._reindex(items)

    def __delitem__(self, idx: Union[int, slice]) -> None:
        items = self._items()
        del items[idx]
        self._reindex(items)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._items())

    __dir__ = Module._dir_without_positions

    def __repr__(self) -> str:
        """PyTorch's: runs of modules that print alike are one entry, "(0-5): 6 x Layer(...)"."""
        reprs = [repr(m) for m in self._items()]
        if not reprs:
            return self._get_name() + "()"  # a subclass prints its own name, as in PyTorch
        runs = []  # [first, last, repr]
        for i, r in enumerate(reprs):
            if runs and runs[-1][2] == r:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        lines = [(f"({a}): {r}" if a == b else f"({a}-{b}): {b - a + 1} x {r}").replace("\n", "\n  ")
                 for a, b, r in runs]
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def __iadd__(self, modules: Iterable[Module]) -> "ModuleList":
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> "ModuleList":
        return ModuleList(self._items() + list(other))

    def append(self, module: Module) -> "ModuleList":
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> "ModuleList":
        if not isinstance(modules, abc.Iterable):
            raise TypeError(f"ModuleList.extend should be called with an iterable, but got {type(modules).__name__}"
                            f"\n  fix: extend([module]), or append(module) for one module")
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> None:
        items = self._items()
        items.insert(index, module)
        self._reindex(items)

    def pop(self, key: Union[int, slice]) -> Module:
        """Removes and returns the module at `key` (ModuleList.pop); the rest are renumbered."""
        v = self[key]
        del self[key]
        return v

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleList is not callable: iterate over it in your forward "
                                  "(for layer in self.layers: x = layer(x)), or use Sequential")


class ModuleDict(Module):
    """An ordered dict of modules: [key], keys(), values(), items(), update(), pop()."""

    def __init__(self, modules: Optional[Union[Mapping[str, Module], Iterable[Tuple[str, Module]]]] = None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Module:
        return self._modules.pop(key)

    def update(self, modules) -> None:
        """Adds or replaces the modules of a mapping, or of an iterable of (key, module) pairs, with
        PyTorch's TypeError and ValueError for anything else."""
        if not isinstance(modules, abc.Iterable):
            raise TypeError(f"ModuleDict.update should be called with an iterable of key/value pairs, but got "
                            f"{type(modules).__name__}\n  fix: update({{'name': module}}) or update([('name', module)])")
        if isinstance(modules, (Mapping, OrderedDict, ModuleDict)):
            for key, module in modules.items():
                self[key] = module
            return
        for j, pair in enumerate(modules):
            if not isinstance(pair, abc.Iterable):
                raise TypeError(f"ModuleDict update sequence element #{j} should be Iterable; is"
                                f"{type(pair).__name__}\n  fix: pairs ('name', module)")
            entry: Any = pair  # read with len() and [i], as PyTorch's update reads it
            if len(entry) != 2:
                raise ValueError(f"ModuleDict update sequence element #{j} has length {len(entry)}; 2 is required"
                                 f"\n  fix: pairs ('name', module)")
            self[entry[0]] = entry[1]

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleDict is not callable: call its modules in your forward "
                                  "(self.heads['cls'](x))")
