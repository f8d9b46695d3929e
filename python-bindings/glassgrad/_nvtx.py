"""torch.cuda.nvtx as documented no-ops (docs/debugging.md, "Profiling with torch.profiler's
names"): glassgrad emits no NVTX ranges, so Nsight Systems shows its kernels without the
script's range names. The calls return what NVTX returns (the range depth, a range id), so
scripts that check them keep working."""
from __future__ import annotations

import contextlib
import itertools
from typing import Iterator, List

__all__ = ["mark", "range", "range_end", "range_pop", "range_push", "range_start"]

_stack: List[str] = []
_ids = itertools.count(1)


def range_push(msg: str) -> int:
    """Starts a nested range (nothing is emitted); returns its zero-based depth."""
    _stack.append(msg)
    return len(_stack) - 1


def range_pop() -> int:
    """Ends the innermost range; returns the depth it had, or -1 when none is open (as NVTX)."""
    if not _stack:
        return -1
    _stack.pop()
    return len(_stack)


def range_start(msg: str) -> int:
    """Starts a range that may end on another thread (nothing is emitted); returns its id."""
    return next(_ids)


def range_end(range_id: int) -> None:
    """Ends the range range_start returned (nothing is emitted)."""


def mark(msg: str) -> None:
    """An instantaneous event (nothing is emitted)."""


@contextlib.contextmanager
def range(msg: str, *args, **kwargs) -> Iterator[None]:  # torch.cuda.nvtx.range's name (shadows the builtin here)
    """with nvtx.range("name {}", arg): ... (the message formatted as str.format; nothing is emitted)."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
