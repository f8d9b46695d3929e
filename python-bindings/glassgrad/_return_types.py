"""PyTorch's torch.return_types: the named tuples max(x, dim), sort, topk, kthvalue, median, mode,
cummax, aminmax, ... return, one type per function, printed as PyTorch prints them
(glassgrad.return_types.max(\\nvalues=tensor(...),\\nindices=tensor(...)))."""
from __future__ import annotations

from collections import namedtuple
from typing import Dict, Sequence

from . import _output_numbers

_TYPES: Dict[str, type] = {}


def return_type(name: str, fields: Sequence[str] = ("values", "indices")) -> type:
    """The named tuple type of function `name`'s result, made once; it pickles by name (it is an
    attribute of this module)."""
    made = _TYPES.get(name)
    if made is None:
        def __repr__(self) -> str:
            body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
            return f"glassgrad.return_types.{name}(\n{body})"

        base = namedtuple(name, list(fields))  # type: ignore[misc]  # one type per name, made on first use

        def __new__(cls, *args, **kwargs):  # the results of one PyTorch node: Tensor.output_nr
            return _output_numbers.number(base.__new__(cls, *args, **kwargs))

        made = type(name, (base,), {"__slots__": (), "__new__": __new__, "__repr__": __repr__, "__module__": __name__,
                                    "__qualname__": name})
        _TYPES[name] = made
        globals()[name] = made
    return made


# The types PyTorch's torch.return_types names and glassgrad's functions return, made at import so
# that glassgrad.return_types lists them before any is used (docs/porting.md); their fields as
# PyTorch's.
PUBLIC: Dict[str, Sequence[str]] = {
    **{name: ("values", "indices") for name in ("max", "min", "median", "nanmedian", "mode", "kthvalue", "sort",
                                                "topk", "cummax", "cummin")},
    "aminmax": ("min", "max"), "frexp": ("mantissa", "exponent"), "histogram": ("hist", "bin_edges"),
    "histogramdd": ("hist", "bin_edges"), "triangular_solve": ("solution", "cloned_coefficient"),
}
for _name, _fields in PUBLIC.items():
    return_type(_name, _fields)
