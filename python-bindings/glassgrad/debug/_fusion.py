"""Anomaly mode and hooks work op by op: while either is on, plans are compiled without fusion
(a fused elementwise chain is one step, so its ops could not be told apart). The fusion setting
comes back when both are off."""
from __future__ import annotations

from typing import Optional, Set

from .. import _C

_holders: Set[str] = set()
_saved: Optional[bool] = None


def suspend(who: str) -> None:
    global _saved
    if not _holders:
        _saved = bool(_C.fusion_enabled())
        _C.set_fusion(False)
    _holders.add(who)


def resume(who: str) -> None:
    global _saved
    if who not in _holders:
        return
    _holders.discard(who)
    if not _holders and _saved is not None:
        _C.set_fusion(_saved)
        _saved = None
