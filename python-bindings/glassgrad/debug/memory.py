"""The allocation log: every allocation and free on a device, with bytes, the buffer's name
(a parameter "conv1.weight", a plan buffer "conv1/Conv2D.y", "arena", a tensor "tensor@train.py:12")
and the device.

    with glassgrad.debug.allocation_log() as log:
        optimizer.step()
    print(log)                 # one line per event
    log.by_name()              # bytes allocated per name, largest first
"""
from __future__ import annotations

from typing import Dict, List

from .. import _C
from ..memory import allocation_log as _base_log


class allocation_log(_base_log):
    """glassgrad.allocation_log with printing and summaries. Each event is a dict: seq, event
    ('alloc' or 'free'), bytes, name, device, current (bytes in use after it)."""

    def allocations(self) -> List[dict]:
        return [e for e in self.events if e["event"] == "alloc"]

    def by_name(self) -> Dict[str, int]:
        """Bytes allocated per buffer name, largest first."""
        totals: Dict[str, int] = {}
        for e in self.allocations():
            totals[e["name"]] = totals.get(e["name"], 0) + e["bytes"]
        return dict(sorted(totals.items(), key=lambda kv: -kv[1]))

    def peak(self) -> int:
        """The most bytes in use on the device at any event of the log."""
        return max((e["current"] for e in self.events), default=0)

    def __str__(self) -> str:
        lines = [f"allocation log on {self.device}: {len(self.events)} events, peak in use "
                 f"{_C.format_bytes(self.peak())}"]
        for e in self.events:
            sign = "+" if e["event"] == "alloc" else "-"
            lines.append(f"  #{e['seq']:<6d} {e['event']:<5s} {sign}{_C.format_bytes(e['bytes']):>12s}  "
                         f"{e['name'] or '(unnamed)':<40s} {e['device']}  in use {_C.format_bytes(e['current'])}")
        return "\n".join(lines)
