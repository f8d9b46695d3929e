"""Recording ops: the layer scope stack (module paths such as "layer2.0.conv1") and the user's
source line, attached to every node so errors and printed plans point at the right place."""
from __future__ import annotations

import os
import sys
from typing import List

from . import _C

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_scopes: List[str] = []


def current_scope() -> str:
    return _scopes[-1] if _scopes else ""


class scope:
    """Context manager naming the layer whose ops are recorded inside it."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __enter__(self):
        _scopes.append(self.name)

    def __exit__(self, *exc):
        _scopes.pop()


_where = {}  # code object -> "file.py" for user code, None for glassgrad's own


def user_source() -> str:
    """'file.py:42' of the first caller outside the glassgrad package."""
    f = sys._getframe(2)
    while f is not None:
        code = f.f_code
        name = _where.get(code, False)
        if name is False:
            name = None if code.co_filename.startswith(_PACKAGE_DIR) else os.path.basename(code.co_filename)
            _where[code] = name
        if name is not None:
            return f"{name}:{f.f_lineno}"
        f = f.f_back
    return ""


def record(op: str, inputs, attrs=None, role: str = "forward"):
    """Records one node; returns the output handles. Errors surface here, at the user's line."""
    return _C.lazy_record(op, inputs, attrs or {}, current_scope(), user_source(), role)
