"""ParameterList and ParameterDict: containers that register their parameters (so parameters(),
state_dict(), optimizers and .to() see them), as torch.nn's do. Entries are named by position
("weights.0") or by key ("scales.left"); a tensor that is not a Parameter becomes one."""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Iterable, Iterator, Mapping, Optional, Tuple, Union

from .._tensor import Tensor
from .module import Module, Parameter


def _as_parameter(value: Any) -> Any:
    return Parameter(value) if isinstance(value, Tensor) and not isinstance(value, Parameter) else value


def _describe(p: Any, kind_of) -> str:
    """PyTorch's entry line: "Parameter containing: [<type> of size 2x3]" (ParameterList names the
    dtype, ParameterDict the tensor type, as PyTorch's do; glassgrad's own names)."""
    if not isinstance(p, Tensor):
        return f"Object of type: {type(p).__name__}"
    size = "x".join(str(s) for s in p.shape)
    kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
    device = "" if p.device == "cpu" else f" ({p.device})"
    return f"{kind} containing: [{kind_of(p)} of size {size}{device}]"


def _entries_repr(entries) -> str:
    """PyTorch's extra_repr of the two containers: "  (key): entry" a line; Module.__repr__ puts
    a single line after the name, several indented below it."""
    return "\n".join(f"  ({k}): {text}" for k, text in entries)


class ParameterList(Module):
    """A list of parameters: index, iterate, append, extend, assign by index."""

    def __init__(self, values: Optional[Iterable[Any]] = None):
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def _key(self, idx: int) -> str:
        if not -self._size <= idx < self._size:
            raise IndexError(f"index {idx} is out of range for a ParameterList of {self._size}")
        return str(idx % self._size)

    def __getitem__(self, idx: Union[int, slice]):
        if isinstance(idx, slice):
            return ParameterList([self[i] for i in range(self._size)[idx]])
        return getattr(self, self._key(idx))

    def __setitem__(self, idx: int, param: Any) -> None:
        setattr(self, self._key(idx), _as_parameter(param))

    def __len__(self) -> int:
        return self._size

    __dir__ = Module._dir_without_positions

    def __iter__(self) -> Iterator[Any]:
        return iter(self[i] for i in range(self._size))

    def __iadd__(self, parameters: Iterable[Any]) -> "ParameterList":
        return self.extend(parameters)

    def append(self, value: Any) -> "ParameterList":
        self._size += 1
        setattr(self, str(self._size - 1), _as_parameter(value))
        return self

    def extend(self, values: Iterable[Any]) -> "ParameterList":
        if isinstance(values, Tensor) or not isinstance(values, Iterable):  # a tensor is not a list of rows here
            raise TypeError(f"ParameterList.extend should be called with an iterable, but got "
                            f"{type(values).__name__}\n  fix: ParameterList([weight]) for one tensor, or "
                            f".extend([a, b])")
        for v in values:
            self.append(v)
        return self

    def extra_repr(self) -> str:
        return _entries_repr([(i, _describe(p, lambda t: repr(t.dtype))) for i, p in enumerate(self)])


class ParameterDict(Module):
    """An ordered dict of parameters: keys, values, items, update, pop, get, `in`, assignment."""

    def __init__(self, parameters: Optional[Union[Mapping[str, Any], Iterable[Tuple[str, Any]]]] = None):
        super().__init__()
        self._keys: dict = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str):
        return getattr(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        if key in self._parameters:
            del self._parameters[key]
        else:
            object.__delattr__(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def values(self):
        return [self[k] for k in self._keys]

    def items(self):
        return [(k, self[k]) for k in self._keys]

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def pop(self, key: str) -> Any:
        value = self[key]
        del self[key]
        return value

    def clear(self) -> None:
        for k in list(self._keys):
            del self[k]

    def update(self, parameters) -> None:
        """PyTorch's order: an OrderedDict, a ParameterDict or (key, value) pairs keep theirs, a
        plain dict is added in sorted key order."""
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs: Iterable = parameters.items()
        elif isinstance(parameters, Mapping):
            pairs = sorted(parameters.items())
        else:
            pairs = parameters
        for j, pair in enumerate(pairs):
            if len(pair) != 2:
                raise ValueError(f"ParameterDict update sequence element #{j} has length {len(pair)}; 2 is required"
                                 f"\n  fix: pass (key, parameter) pairs or a dict")
            self[pair[0]] = pair[1]

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def popitem(self) -> Tuple[str, Any]:
        """The last key inserted and its value, removed."""
        if not self._keys:
            raise KeyError("popitem(): ParameterDict is empty")
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def copy(self) -> "ParameterDict":
        """A new ParameterDict holding the same parameters (not copies of them)."""
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def fromkeys(self, keys: Iterable[str], default: Any = None) -> "ParameterDict":
        return ParameterDict((k, default) for k in keys)

    def __reversed__(self) -> Iterator[str]:
        return reversed(list(self._keys))

    def __or__(self, other: "ParameterDict") -> "ParameterDict":
        out = self.copy()
        out.update(other)
        return out

    def __ror__(self, other: "ParameterDict") -> "ParameterDict":
        out = other.copy()
        out.update(self)
        return out

    def __ior__(self, other: "ParameterDict") -> "ParameterDict":
        self.update(other)
        return self

    def extra_repr(self) -> str:
        return _entries_repr([(k, _describe(p, lambda t: t.type())) for k, p in self.items()])
