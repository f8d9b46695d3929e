"""Recording ops: the layer scope stack (module paths such as "layer2.0.conv1") and the user's
source line, attached to every node so errors and printed plans point at the right place.

The stacks are per thread (like grad mode): a model called in one thread never lends its layer
names to ops another thread records at the same time."""
from __future__ import annotations

import os
import sys
import threading
import types
from typing import List, Optional, Tuple

from . import _C

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


class _Stacks(threading.local):
    def __init__(self):
        self.scopes: List[str] = []
        self.roles: List[str] = []
        self.layers: List[str] = []
        # The three in one attribute, for the readers on every op and layer call (the runtime's
        # lazy_record_op, Module.__call__): each read of a thread-local attribute looks up the
        # thread's dict. The lists are only appended to and popped, never replaced.
        self.stacks: Tuple[List[str], List[str], List[str]] = (self.scopes, self.roles, self.layers)
        self.differentiations = 0
        self.recording: Optional["recording_step"] = None  # glassgrad.compile's trace, while one runs


_local = _Stacks()


def note_differentiation() -> None:
    """Counts a backward() or autograd.grad() call on this thread: compile tells a training step
    (it differentiates inside the call) from a forward whose result is differentiated later."""
    _local.differentiations += 1


def differentiations() -> int:
    return _local.differentiations


def current_scope() -> str:
    scopes = _local.scopes
    return scopes[-1] if scopes else ""


class scope:
    """Context manager naming the layer whose ops are recorded inside it, and optionally their
    role ("optimizer" for update nodes; ops default to "forward") and the layer as messages name
    it ("Linear 'fc'": the engine's checks word their errors for it, op_schema.h NodeMeta)."""

    __slots__ = ("name", "role", "layer")

    def __init__(self, name: str, role: str = "", layer: str = ""):
        self.name = name
        self.role = role
        self.layer = layer

    def __enter__(self):
        scopes, roles, layers = _local.stacks  # (one read of the thread's stacks)
        scopes.append(self.name)
        layers.append(self.layer)
        if self.role:
            roles.append(self.role)

    def __exit__(self, *exc):
        scopes, roles, layers = _local.stacks
        scopes.pop()
        layers.pop()
        if self.role:
            roles.pop()


def user_source() -> str:
    """'file.py:42' of the first caller outside the glassgrad package (the frame walk runs in C++,
    python-bindings/src/bind_frames.cpp: it runs once per recorded op)."""
    return _C.user_source(_PACKAGE_DIR)


def user_stacklevel() -> int:
    """The stacklevel, for a warnings.warn in the caller, of the first frame outside the glassgrad
    package (the user's line, whichever of glassgrad's wrappers the call went through): the walk
    of user_source, counted in frames."""
    f: Optional[types.FrameType] = sys._getframe(2)
    level = 2
    while f is not None and f.f_code.co_filename.startswith(_PACKAGE_DIR):
        f, level = f.f_back, level + 1
    return level


def _meta(role: str):
    """(scope, role, layer) of a node recorded now on this thread (role: the caller's, or the
    innermost scope's, or "forward")."""
    local = _local
    scopes, roles, layers = local.scopes, local.roles, local.layers
    return (scopes[-1] if scopes else "", role or (roles[-1] if roles else "forward"), layers[-1] if layers else "")


def record(op: str, inputs, attrs=None, role: str = ""):
    """Records one node; returns the output handles. Errors surface here, at the user's line.
    (_meta is written out here; _tensor._op's and _op_multi's _C.lazy_record_op[_outputs] read
    the same stacks in the runtime. Nearly every op of a step goes through those: a change here
    goes there too.)"""
    local = _local
    scopes, layers = local.scopes, local.layers
    if not role:
        roles = local.roles
        role = roles[-1] if roles else "forward"
    return _C.lazy_record(op, inputs, attrs or {}, scopes[-1] if scopes else "", _C.user_source(_PACKAGE_DIR), role,
                          layers[-1] if layers else "")


def record_updates(op: str, rows, targets, attrs, journal=None):
    """Records one `op` node per row of input handles and points targets[i][j] at output j of row
    i (an optimizer's in-place updates, in one call). All rows are recorded before any target
    moves: an error leaves every target as it was. journal (a _C.UpdateJournal): each target's
    value before it moved is appended to it, in target order."""
    scope_, role, layer = _meta("")
    _C.lazy_record_updates(op, rows, targets, attrs, scope_, _C.user_source(_PACKAGE_DIR), role, layer, journal)


# How many recording_step blocks are open, on any thread: while none is, Module.__call__ skips
# reading this thread's `recording` (a thread-local read on every layer call of every step).
RECORDINGS = [0]
_RECORDINGS_LOCK = threading.Lock()


class recording_step:
    """While glassgrad.compile records a step (this thread): the layers it calls (their training
    flags guard the replay) and its random inputs, tensors whose data must be drawn anew on every
    replay (a dropout mask), keyed by their buffer's identity, in the order drawn."""

    def __enter__(self):
        self.modules = []
        self.random = {}
        self._seen = set()
        self._prev = getattr(_local, "recording", None)
        with _RECORDINGS_LOCK:
            RECORDINGS[0] += 1
        _local.recording = self
        return self

    def __exit__(self, *exc):
        _local.recording = self._prev
        with _RECORDINGS_LOCK:
            RECORDINGS[0] -= 1


def recording() -> bool:
    """True while glassgrad.compile records a step on this thread (torch.compiler.is_compiling)."""
    return getattr(_local, "recording", None) is not None


def note_module_call(module) -> None:
    rec = _local.recording
    if rec is not None and id(module) not in rec._seen:
        rec._seen.add(id(module))
        rec.modules.append(module)


def random_input(identity, draw) -> None:
    """Declares that the leaf whose buffer has this identity (compile._identity) holds random
    numbers that draw() -> a runtime tensor of the same shape, dtype and device makes anew on every
    replay of a compiled step (in the order the traced call drew them)."""
    rec = getattr(_local, "recording", None)
    if rec is not None:
        rec.random[identity] = draw
