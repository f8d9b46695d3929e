"""PyTorch's torch.return_types: the named tuples max(x, dim), sort, topk, kthvalue, median, mode,
cummax, aminmax, linalg.eigh, linalg.svd, ... return, one type per function, named and printed as
PyTorch's (glassgrad.return_types.max(\\nvalues=tensor(...),\\nindices=tensor(...)))."""
from __future__ import annotations

from collections import namedtuple
from typing import Callable, Dict, Sequence, TypeVar

from . import _output_numbers

_TYPES: Dict[str, type] = {}


def return_type(name: str, fields: Sequence[str] = ("values", "indices")) -> type:
    """The named tuple type of function `name`'s result, made once; it pickles by name (it is an
    attribute of this module)."""
    made = _TYPES.get(name)
    if made is None:
        base = namedtuple(name, list(fields))  # type: ignore[misc]  # one type per name, made on first use

        def __new__(cls, *args, **kwargs):  # the results of one PyTorch node: Tensor.output_nr
            return _output_numbers.number(base.__new__(cls, *args, **kwargs))

        made = torch_name(name)(type(name, (base,), {"__slots__": (), "__new__": __new__}))
    return made


def _printed(name: str) -> Callable[[tuple], str]:
    def __repr__(self) -> str:
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(getattr(self, "_fields"), self))
        return f"glassgrad.return_types.{name}(\n{body})"
    return __repr__


_Type = TypeVar("_Type", bound=type)


def torch_name(name: str) -> Callable[[_Type], _Type]:
    """A class decorator: the named tuple class (a typing.NamedTuple of the linalg functions) becomes
    PyTorch's torch.return_types.<name> (linalg_eigh, svd, ...): that name, PyTorch's printing,
    pickled by name (an attribute of this module) and listed in glassgrad.return_types."""
    def rename(cls: _Type) -> _Type:
        cls.__name__ = cls.__qualname__ = name
        cls.__module__ = __name__
        setattr(cls, "__repr__", _printed(name))
        _TYPES[name] = cls
        globals()[name] = cls
        return cls
    return rename


# The types PyTorch's torch.return_types names and glassgrad's functions return, made at import so
# that glassgrad.return_types lists them before any is used (docs/porting.md); their fields as
# PyTorch's.
PUBLIC: Dict[str, Sequence[str]] = {
    **{name: ("values", "indices") for name in ("max", "min", "median", "nanmedian", "mode", "kthvalue", "sort",
                                                "topk", "cummax", "cummin")},
    "aminmax": ("min", "max"), "frexp": ("mantissa", "exponent"), "histogram": ("hist", "bin_edges"),
    "histogramdd": ("hist", "bin_edges"), "triangular_solve": ("solution", "cloned_coefficient"), "qr": ("Q", "R"),
}
for _name, _fields in PUBLIC.items():
    return_type(_name, _fields)
