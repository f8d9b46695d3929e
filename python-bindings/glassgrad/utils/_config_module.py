"""Modules of named settings, as torch._inductor.config and torch._dynamo.config are
(torch.utils._config_module): each name has PyTorch's default; reading or setting a name the
module does not have raises AttributeError ('<module>.<name> does not exist'), as PyTorch's does;
`patch(...)` sets names for a with-block or a decorated function; dotted names ('triton.cudagraphs')
reach the sub-settings, which read as attributes (config.triton.cudagraphs).

glassgrad.compile (compile.py) reads none of these: they tune PyTorch's own compiler. They exist
so that scripts which set them (karpathy/llm.c's `config.coordinate_descent_tuning = True`) run,
and they hold what the script set (docs/porting.md, "TorchScript and torch.compiler")."""
from __future__ import annotations

import contextlib
import copy
import functools
import sys
import types
from typing import Any, Dict


class _Settings:
    """The sub-settings under a prefix (config.triton): attribute access on the flat table."""

    def __init__(self, owner: "ConfigModule", prefix: str):
        object.__setattr__(self, "_owner", owner)
        object.__setattr__(self, "_prefix", prefix)

    def __getattr__(self, name: str) -> Any:
        return self._owner._read(self._prefix + name)

    def __setattr__(self, name: str, value: Any) -> None:
        self._owner._write(self._prefix + name, value)


class ConfigModule(types.ModuleType):
    """A module whose attributes are the settings in its table (module docstring)."""

    def _table(self) -> Dict[str, Any]:
        return self.__dict__["_values"]

    def _read(self, name: str) -> Any:
        table = self._table()
        if name in table:
            return table[name]
        if any(key.startswith(name + ".") for key in table):
            return _Settings(self, name + ".")
        raise AttributeError(f"{self.__name__}.{name} does not exist\n  fix: the settings are "
                             f"{', '.join(sorted(table))}")

    def _write(self, name: str, value: Any) -> None:
        if name not in self._table():
            self._read(name)  # raises for a name the module does not have
            raise AttributeError(f"{self.__name__}.{name} is a group of settings, not one; set one of them")
        self._table()[name] = value

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return self._read(name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("__") or name in self.__dict__:
            super().__setattr__(name, value)
        else:
            self._write(name, value)

    def get_config_copy(self) -> Dict[str, Any]:
        """The settings as a flat dict of dotted names."""
        return copy.deepcopy(self._table())

    def patch(self, arg1=None, arg2=None, **changes):
        """patch('name', value), patch({'name': value}) or patch(name=value): the settings changed
        for a with-block, or for each call of a function it decorates; restored after."""
        if isinstance(arg1, str):
            changes[arg1] = arg2
        elif isinstance(arg1, dict):
            changes.update(arg1)
        for name in changes:
            if name not in self._table():
                self._read(name)
        module = self

        class _Patch(contextlib.ContextDecorator):
            def __enter__(self):
                self.saved = {name: module._table()[name] for name in changes}
                module._table().update(changes)

            def __exit__(self, *exc):
                module._table().update(self.saved)
                return False
        return _Patch()


def install(module_name: str, defaults: Dict[str, Any]) -> None:
    """Turns the module `module_name` (being imported) into a ConfigModule with these defaults."""
    module = sys.modules[module_name]
    values = dict(defaults)
    module.__class__ = ConfigModule
    module.__dict__["_values"] = values
    for name in ("get_config_copy", "patch"):
        module.__dict__[name] = functools.partial(getattr(ConfigModule, name), module)
