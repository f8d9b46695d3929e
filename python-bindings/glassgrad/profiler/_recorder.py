"""Recording: one profiler at a time collects op steps (a step observer, reading the executor's
own timing of each kernel call, glassgrad._C.last_step_seconds) and record_function blocks.

Ops run when a plan runs (at .item(), backward(), optimizer.step(), ...), not at the line that
records them (docs/debugging.md): an op event sits where its kernel ran, inside whichever
record_function block was open then. While recording, the executor runs each step on its own
(no batched CPU steps) and copies a buffer before an in-place write, as for any observer
(docs/debugging.md, hooks): small costs outside the timed kernel calls."""
from __future__ import annotations

import contextlib
import threading
import time
from typing import List, Optional

from .. import _C
from ._events import EventList, FunctionEvent, link_children


def _now_us() -> float:
    return time.perf_counter_ns() / 1e3


class Recorder:
    def __init__(self, record_shapes: bool = False, with_stack: bool = False):
        self.record_shapes, self.with_stack = record_shapes, with_stack
        self.events: List[FunctionEvent] = []
        self._observer: Optional[int] = None

    @property
    def recording(self) -> bool:
        return self._observer is not None

    def start(self) -> None:
        global _active
        if _active is not None and _active is not self:
            raise RuntimeError("profiler: another profiler is already recording\n  cause: glassgrad records one "
                               "profile at a time\n  fix: leave the other `with profile(...)` block first, or nest "
                               "record_function blocks inside one profile")
        self.events = []
        self._observer = _C.add_step_observer(self._observe)
        _active = self

    def stop(self) -> EventList:
        global _active
        if self._observer is not None:
            _C.remove_step_observer(self._observer)
            self._observer = None
        if _active is self:
            _active = None
        self.events.sort(key=lambda e: e.time_range.start)
        for i, e in enumerate(self.events):
            e.id = i
        link_children(self.events)
        return EventList(self.events)

    def add(self, event: FunctionEvent) -> None:
        self.events.append(event)

    def _observe(self, index, op, scope, role, source, inputs, outputs) -> None:
        end = _now_us()
        start = end - _C.last_step_seconds() * 1e6
        shapes = [list(t.shape) for t in inputs] if self.record_shapes else []
        stack = [source] if self.with_stack and source else []
        self.events.append(FunctionEvent(len(self.events), op, threading.get_ident(), start, end, shapes, stack,
                                         role=role, layer=scope))


_active: Optional[Recorder] = None


def active() -> Optional[Recorder]:
    return _active


class record_function(contextlib.ContextDecorator):
    """torch.profiler.record_function / torch.autograd.profiler.record_function: a named block in
    the profile (its host wall time), as a context manager or a decorator. Costs two clock
    reads while a profiler records, nothing otherwise."""

    def __init__(self, name: str, args: Optional[str] = None):
        self.name, self.args = name, args
        self._open: List[tuple] = []  # (recorder, start): a decorated function may recurse

    def __enter__(self) -> "record_function":
        rec = _active
        self._open.append((rec, _now_us() if rec is not None else 0.0))
        return self

    def __exit__(self, *exc) -> None:
        rec, start = self._open.pop()
        if isinstance(rec, Recorder) and rec is _active:
            rec.add(FunctionEvent(len(rec.events), self.name, threading.get_ident(), start, _now_us(),
                                  is_user_annotation=True, role="user_annotation"))
