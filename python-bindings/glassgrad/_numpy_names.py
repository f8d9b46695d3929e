"""NumPy's spellings of PyTorch's reduction arguments, which PyTorch's functions and methods accept
as aliases: `axis` for `dim` and `keepdims` for `keepdim` (`y_hat.argmax(axis=1)`,
`torch.sum(x, axis=0, keepdims=True)`, as course code writes them)."""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Dict, Iterable, TypeVar, cast

from . import _C

_ALIASES = {"axis": "dim", "keepdims": "keepdim"}
_Fn = TypeVar("_Fn", bound=Callable[..., Any])


def _accepting_aliases(fn: _Fn) -> _Fn:
    params = inspect.signature(fn).parameters
    aliases = {a: n for a, n in _ALIASES.items() if n in params and a not in params}
    if not aliases:
        return fn

    @functools.wraps(fn)
    def call(*args, **kwargs):
        for alias, name in aliases.items():
            if alias in kwargs:
                if name in kwargs:
                    raise _C.InvalidArgumentError(f"{fn.__name__}() got both '{name}' and its alias '{alias}'\n"
                                                  f"  fix: pass {name}= only")
                kwargs[name] = kwargs.pop(alias)
        return fn(*args, **kwargs)
    return cast(_Fn, call)


def accept_numpy_names(namespace: Dict[str, object], names: Iterable[str]) -> None:
    """Rebinds each function `names` lists in `namespace` (a module's globals) to one that also
    takes `axis` and `keepdims` where it takes `dim` and `keepdim`."""
    for name in names:
        fn = namespace[name]
        if callable(fn):
            namespace[name] = _accepting_aliases(fn)
