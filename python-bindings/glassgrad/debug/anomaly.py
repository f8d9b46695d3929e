"""Anomaly mode: after every executed step, its float outputs are checked for NaN/Inf and the
first step that produced one stops the run with a NonFiniteError naming the op, the layer,
forward or backward, the line that recorded it and its inputs' statistics.

    with glassgrad.debug.detect_anomaly():
        loss = glassgrad.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()

or GLASSGRAD_DETECT_ANOMALY=1 for a whole run. It scans every output, and plans are compiled
without fusion while it is on (so it can stop at the exact op), so steps get slower: turn it on
to find a NaN, not for training."""
from __future__ import annotations

import functools
import os

from .. import _C
from . import _fusion


def set_detect_anomaly(on: bool) -> None:
    _C.set_detect_anomaly(bool(on))
    if on:
        _fusion.suspend("anomaly")
    else:
        _fusion.resume("anomaly")


def is_anomaly_enabled() -> bool:
    return bool(_C.detect_anomaly())


class detect_anomaly:
    """Context manager (and decorator) turning anomaly mode on (or off, with enabled=False)
    inside a block; the previous state comes back afterwards. Checks run when the plan runs,
    so the block must include what computes the values (.item(), optimizer.step(), ...)."""

    def __init__(self, enabled: bool = True):
        self.enabled = bool(enabled)
        self._prev = []

    def __enter__(self):
        self._prev.append(is_anomaly_enabled())
        set_detect_anomaly(self.enabled)
        return self

    def __exit__(self, *exc):
        set_detect_anomaly(self._prev.pop())

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with detect_anomaly(self.enabled):
                return fn(*args, **kwargs)
        return wrapper


def _from_environment() -> None:
    value = os.environ.get("GLASSGRAD_DETECT_ANOMALY", "").strip().lower()
    if value in ("1", "true", "yes", "on"):
        set_detect_anomaly(True)


_from_environment()
