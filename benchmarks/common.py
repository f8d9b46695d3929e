"""Shared benchmark plumbing: machine/commit/date metadata, timing (warm-up, synchronize,
median of repeats, as /work/.library/device/METHOD.md describes), and CSV rows.

Every script appends rows to benchmarks/results/<script>.csv (or --csv PATH) with the columns
  date, commit, machine, device, workload, metric, value, unit, framework, ratio_vs_torch, notes
where ratio_vs_torch is glassgrad's value over PyTorch's (time: < 1 means glassgrad is faster).
"""
from __future__ import annotations

import csv
import datetime
import os
import platform
import statistics
import subprocess
import sys
import time
from typing import Callable, Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
COLUMNS = ["date", "commit", "machine", "device", "workload", "metric", "value", "unit", "framework",
           "ratio_vs_torch", "notes"]

# Make the in-tree package importable when it is not installed (development runs).
try:
    import glassgrad  # noqa: F401
except ImportError:  # pragma: no cover
    sys.path.insert(0, os.path.join(REPO, "python-bindings"))


def commit() -> str:
    try:
        out = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        sha = out.stdout.strip() or "unknown"
        dirty = subprocess.run(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        return sha + ("+dirty" if dirty else "")
    except OSError:
        return "unknown"


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{platform.node()} {cpu} x{os.cpu_count()}"


def torch_or_none():
    try:
        import torch
        return torch
    except ImportError:
        return None


def median_time(fn: Callable[[], None], repeats: int = 10, warmup: int = 2, sync: Optional[Callable[[], None]] = None) -> float:
    """Median seconds of fn() over `repeats` runs after `warmup` runs (synchronizing around each)."""
    for _ in range(warmup):
        fn()
    if sync:
        sync()
    times = []
    for _ in range(repeats):
        if sync:
            sync()
        t = time.perf_counter()
        fn()
        if sync:
            sync()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


class Results:
    def __init__(self, script: str, csv_path: Optional[str] = None):
        self.path = csv_path or os.path.join(HERE, "results", f"{script}.csv")
        self.rows: List[Dict[str, str]] = []
        self.meta = {"date": datetime.datetime.now().isoformat(timespec="seconds"), "commit": commit(),
                     "machine": machine()}

    def add(self, device: str, workload: str, metric: str, value: float, unit: str, framework: str = "glassgrad",
            ratio: Optional[float] = None, notes: str = "") -> None:
        row = dict(self.meta, device=device, workload=workload, metric=metric, value=f"{value:.6g}", unit=unit,
                   framework=framework, ratio_vs_torch="" if ratio is None else f"{ratio:.3f}", notes=notes)
        self.rows.append(row)
        print(f"{framework:10s} {device:8s} {workload:40s} {metric:18s} {value:12.4g} {unit}"
              + ("" if ratio is None else f"   ratio vs torch {ratio:.3f}"), flush=True)

    def write(self) -> str:
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        new = not os.path.exists(self.path)
        with open(self.path, "a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=COLUMNS)
            if new:
                w.writeheader()
            w.writerows(self.rows)
        return self.path
