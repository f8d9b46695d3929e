"""torchvision.datasets.utils' argument check: verify_str_arg."""
from __future__ import annotations

from typing import Iterable, Optional

__all__ = ["verify_str_arg"]


def verify_str_arg(value, arg: Optional[str] = None, valid_values: Optional[Iterable[str]] = None,
                   custom_msg: Optional[str] = None) -> str:
    """value if it is a str among valid_values (any str when None), else ValueError with
    torchvision's message ("Unknown value 'x' for argument split. Valid values are {'a', 'b'}.")."""
    if not isinstance(value, str):
        raise ValueError(f"Expected type str{'' if arg is None else f' for argument {arg}'}, but got type "
                         f"{type(value)}.")
    if valid_values is None:
        return value
    valid = list(valid_values)
    if value not in valid:
        raise ValueError(custom_msg if custom_msg is not None else
                         f"Unknown value '{value}' for argument {arg}. Valid values are "
                         f"{{{', '.join(repr(v) for v in valid)}}}.")
    return value
