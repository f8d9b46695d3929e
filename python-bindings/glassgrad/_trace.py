"""Recording ops: the layer scope stack (module paths such as "layer2.0.conv1") and the user's
source line, attached to every node so errors and printed plans point at the right place.

The stacks are per thread (like grad mode): a model called in one thread never lends its layer
names to ops another thread records at the same time."""
from __future__ import annotations

import os
import sys
import threading
from typing import List

from . import _C

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


class _Stacks(threading.local):
    def __init__(self):
        self.scopes: List[str] = []
        self.roles: List[str] = []


_local = _Stacks()


def current_scope() -> str:
    scopes = _local.scopes
    return scopes[-1] if scopes else ""


def in_scope() -> bool:
    """Whether a layer is being called on this thread (an enclosing Module.__call__)."""
    return bool(_local.scopes)


class scope:
    """Context manager naming the layer whose ops are recorded inside it, and optionally their
    role ("optimizer" for update nodes; ops default to "forward")."""

    __slots__ = ("name", "role")

    def __init__(self, name: str, role: str = ""):
        self.name = name
        self.role = role

    def __enter__(self):
        _local.scopes.append(self.name)
        if self.role:
            _local.roles.append(self.role)

    def __exit__(self, *exc):
        _local.scopes.pop()
        if self.role:
            _local.roles.pop()


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


def record(op: str, inputs, attrs=None, role: str = ""):
    """Records one node; returns the output handles. Errors surface here, at the user's line."""
    roles = _local.roles
    role = role or (roles[-1] if roles else "forward")
    return _C.lazy_record(op, inputs, attrs or {}, current_scope(), user_source(), role)
