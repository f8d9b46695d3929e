"""NumPy's spellings of PyTorch's reduction arguments, which PyTorch's functions and methods accept
as aliases: `axis` for `dim` and `keepdims` for `keepdim` (`y_hat.argmax(axis=1)`,
`torch.sum(x, axis=0, keepdims=True)`, as course code writes them). The same wrapper holds
PyTorch's one rule on `keepdim`: a Python bool, so `x.sum(0, 1)` or `keepdim=None` is its
TypeError (docs/porting.md)."""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Dict, Iterable, Optional, TypeVar, cast

from . import _C, _args

_ALIASES = {"axis": "dim", "keepdims": "keepdim"}
_Fn = TypeVar("_Fn", bound=Callable[..., Any])


def _accepting_aliases(fn: _Fn) -> _Fn:
    params = inspect.signature(fn).parameters
    aliases = {a: n for a, n in _ALIASES.items() if n in params and a not in params}
    if not aliases:
        return fn
    names = list(params)
    # keepdim's place when it is passed by position (None: keyword only, or not a parameter)
    at = names.index("keepdim") if "keepdim" in params and params["keepdim"].kind == params["keepdim"].POSITIONAL_OR_KEYWORD \
        else None

    def checked(args: tuple, kwargs: dict, method: bool) -> dict:
        for alias, name in aliases.items():
            if alias in kwargs:
                if name in kwargs:
                    raise _C.InvalidArgumentError(f"{fn.__name__}() got both '{name}' and its alias '{alias}'\n"
                                                  f"  fix: pass {name}= only")
                kwargs[name] = kwargs.pop(alias)
        if "keepdim" in kwargs:
            _bool_keepdim(fn.__name__, kwargs["keepdim"])
        elif at is not None and len(args) > at:
            # PyTorch counts a method's arguments after self: x.sum(0, 1) has keepdim at 2, torch.sum(x, 0, 1) at 3
            _bool_keepdim(fn.__name__, args[at], at if method else at + 1)
        return kwargs

    @functools.wraps(fn)
    def call(*args, **kwargs):
        return fn(*args, **checked(args, kwargs, False))

    @functools.wraps(fn)
    def method(*args, **kwargs):
        return fn(*args, **checked(args, kwargs, True))
    # the Tensor method's form (_methods.py binds it), whose messages count positions after self
    setattr(call, "as_method", method)
    return cast(_Fn, call)


def _bool_keepdim(where: str, value, position: Optional[int] = None) -> None:
    """PyTorch's TypeError for a keepdim that is not a Python bool (an int, None, a NumPy bool, a tensor);
    position: where it was passed by position, as PyTorch's message names it."""
    _args.python_bool(value, "keepdim", where, "keepdim=True or keepdim=False (bool(k) for a number k)", position)


def accept_numpy_names(namespace: Dict[str, object], names: Iterable[str]) -> None:
    """Rebinds each function `names` lists in `namespace` (a module's globals) to one that also
    takes `axis` and `keepdims` where it takes `dim` and `keepdim`."""
    for name in names:
        fn = namespace[name]
        if callable(fn):
            namespace[name] = _accepting_aliases(fn)


def accept_numpy_names_on_methods(cls, names: Iterable[str]) -> None:
    """The methods `names` lists of cls (Tensor's own, not bound from a function) taking `axis` and
    `keepdims` too (x.gather(axis=1, index=i), x.softmax(axis=-1), as PyTorch's parser takes them)."""
    for name in names:
        wrapped = _accepting_aliases(getattr(cls, name))
        setattr(cls, name, getattr(wrapped, "as_method", wrapped))
