"""Shared benchmark plumbing: machine/commit/date metadata, timing (warm-up, synchronize,
median of repeats; docs/performance.md describes the method), devices, PyTorch detection,
and CSV rows.

Every script appends rows to benchmarks/results/<script>.csv (or --csv PATH) with the columns
  date, commit, machine, device, workload, metric, value, unit, framework, ratio_vs_torch, notes
where ratio_vs_torch is glassgrad's value over PyTorch's on the same workload in the same process
(time: < 1 means glassgrad is faster; memory: < 1 means glassgrad needs less), then the roofline
columns (roofline.py: FLOPs, bytes, rates and fractions of the device's peaks), blank where a
row has none. One run of a script shares one date and commit: that pair identifies the run in
plots and reports. A CSV written before a column was added is rewritten with the whole header
when a run appends to it (its old rows get blanks).

--tiny runs (CI) write to a temporary CSV unless --csv is given, so they never enter the history.
"""
from __future__ import annotations

import argparse
import csv
import datetime
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Callable, Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
RESULTS = os.path.join(HERE, "results")
ROOFLINE_COLUMNS = ["flop", "algorithm_flop", "bytes", "gflop_per_s", "gbyte_per_s", "peak_gflop_per_s",
                    "peak_gbyte_per_s", "fma_peak_fraction", "bandwidth_peak_fraction"]  # roofline.COLUMNS
COLUMNS = ["date", "commit", "machine", "device", "workload", "metric", "value", "unit", "framework",
           "ratio_vs_torch", "notes"] + ROOFLINE_COLUMNS

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


def load_average() -> Optional[float]:
    try:
        return os.getloadavg()[0]
    except OSError:  # pragma: no cover
        return None


def numpy_state(model) -> Dict[str, "object"]:
    """The model's state_dict as NumPy copies taken now: state_dict() values are tensors sharing the
    parameters' memory (as PyTorch's), and a benchmark that hands initial weights to its PyTorch
    twin after training one side must not see them move."""
    return {k: (v.detach().cpu().numpy().copy() if hasattr(v, "detach") else v) for k, v in model.state_dict().items()}


def torch_or_none():
    try:
        import torch
        return torch
    except ImportError:
        return None


# ---------------------------------------------------------------------------------------------
# Devices and synchronization


def gg_device(name: str) -> str:
    """Sets glassgrad's default device from --device and returns its canonical name."""
    import glassgrad as gg
    gg.set_default_device(name)
    return gg.default_device()


def gg_sync(device: str) -> Callable[[], None]:
    """What makes glassgrad's work finished when it returns: everything recorded is realized,
    and on CUDA the device has drained its queue (the backend's synchronize binding,
    _C.cuda_synchronize(index), or glassgrad.cuda.synchronize() where only that exists)."""
    import glassgrad as gg

    def cpu_sync() -> None:
        gg._C.lazy_realize([])

    if not device.startswith("cuda"):
        return cpu_sync
    index = int(device.split(":", 1)[1]) if ":" in device else 0
    raw = getattr(gg._C, "cuda_synchronize", None)
    if raw is not None:
        def device_sync() -> None:
            raw(index)
    else:
        cuda_mod = getattr(gg, "cuda", None)
        py_sync = getattr(cuda_mod, "synchronize", None) if cuda_mod is not None else None
        if py_sync is None:
            raise RuntimeError("this glassgrad build has no CUDA synchronize: CUDA work cannot be timed honestly")
        device_sync = py_sync

    def cuda_sync() -> None:
        gg._C.lazy_realize([])
        device_sync()

    return cuda_sync


def add_op_bench_arguments(p: argparse.ArgumentParser, rounds: int, calls: int) -> None:
    """The options OpBench reads: --rounds, --calls, --label, --tiny, --no-torch, --csv."""
    p.add_argument("--rounds", type=int, default=rounds, help="alternating rounds")
    p.add_argument("--calls", type=int, default=calls, help="calls per round and framework")
    p.add_argument("--label", default="", help="text added to every row's notes (e.g. which build)")
    p.add_argument("--tiny", action="store_true")
    p.add_argument("--no-torch", action="store_true")
    p.add_argument("--csv", default=None)


class OpBench:
    """What an op-level benchmark's child process sets up (indexing_latency.py,
    attention_backward.py): the glassgrad device, torch (None under --no-torch or without it), the
    multiprocessor count on CUDA (0 elsewhere), the rows' notes and workload suffix, the CSV
    results, glassgrad's synchronize, and the rounds and calls (1 and 2 when --tiny)."""

    def __init__(self, script: str, args) -> None:
        import glassgrad as gg
        self.dev = gg_device(args.device)
        self.torch = None if args.no_torch else torch_or_none()
        self.sms = int(gg.cuda.device_info()["multiprocessors"]) if self.dev.startswith("cuda") else 0
        self.note = (f"{self.sms} SMs" if self.sms else self.dev) + (f"; {args.label}" if args.label else "")
        self.where = f" on {self.sms} SMs" if self.sms else ""
        self.res = Results(script, args.csv, tiny=args.tiny)
        self.sync = gg_sync(self.dev)
        self.rounds, self.calls = (1, 2) if args.tiny else (args.rounds, args.calls)


def torch_setup(torch, device: str) -> Tuple[str, Callable[[], None]]:
    """PyTorch's device for glassgrad's, with TF32 off on the GPU (FP32 against FP32), and its
    synchronize."""
    if device.startswith("cuda"):
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        tdev = "cuda:" + (device.split(":", 1)[1] if ":" in device else "0")
        return tdev, (lambda: torch.cuda.synchronize(tdev))
    return "cpu", (lambda: None)


def torch_name(torch) -> str:
    return f"torch {torch.__version__}"


# ---------------------------------------------------------------------------------------------
# Timing


def time_repeats(fn: Callable[[], None], repeats: int = 10, warmup: int = 2,
                 sync: Optional[Callable[[], None]] = None) -> List[float]:
    """Seconds of each of `repeats` runs of fn() after `warmup` runs, synchronizing before and
    after each run so that asynchronous device work is inside the interval."""
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
    return times


def alternating_medians(contenders: Dict[str, Tuple[Callable[[], None], Callable[[], None]]], rounds: int,
                        steps: int, warmup: int = 3) -> Tuple[Dict[str, float], Dict[str, List[float]]]:
    """{name: (fn, sync)} timed in alternating rounds of `steps` synchronized calls each, after
    `warmup` calls of each (plans, autotuning, graphs, the other library's kernel choices):
    (median seconds by name, every time by name)."""
    for fn, sync in contenders.values():
        for _ in range(warmup):
            fn()
        sync()
    times: Dict[str, List[float]] = {k: [] for k in contenders}
    for _ in range(rounds):
        for name, (fn, sync) in contenders.items():
            times[name] += time_repeats(fn, repeats=steps, warmup=0, sync=sync)
    return {k: statistics.median(v) for k, v in times.items()}, times


def back_to_back(fn: Callable[[], None], sync: Callable[[], None], n: int) -> float:
    """Seconds per call of n calls of fn() back to back, with one synchronization before and one
    after (what a pipelined loop sees: launch overhead overlaps device work)."""
    sync()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    sync()
    return (time.perf_counter() - t) / n


def median_time(fn: Callable[[], None], repeats: int = 10, warmup: int = 2,
                sync: Optional[Callable[[], None]] = None) -> float:
    """Median seconds of fn() over `repeats` runs after `warmup` runs (synchronizing around each)."""
    return statistics.median(time_repeats(fn, repeats, warmup, sync))


def adaptive_repeats(fn: Callable[[], None], sync: Optional[Callable[[], None]], budget_s: float,
                     lo: int = 5, hi: int = 200) -> int:
    """How many repeats fit in about budget_s, from one timed call (which also warms up)."""
    one = max(time_repeats(fn, repeats=1, warmup=0, sync=sync)[0], 1e-7)
    return int(max(lo, min(hi, budget_s / one)))


def spread_note(times: List[float]) -> str:
    """The spread of the repeats, for the notes column (min and max relative to the median)."""
    med = statistics.median(times)
    return f"n={len(times)} min {min(times) / med:.2f}x max {max(times) / med:.2f}x of median"


# ---------------------------------------------------------------------------------------------
# Arguments and results


def add_common_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--device", default="cpu", help="cpu or cuda (PyTorch runs on the same device)")
    p.add_argument("--tiny", action="store_true", help="tiny sizes, a few seconds (CI: proves the script runs)")
    p.add_argument("--no-torch", action="store_true", help="skip PyTorch even when it is importable")
    p.add_argument("--csv", default=None, help="CSV to append to (default benchmarks/results/<script>.csv; "
                                               "--tiny: a temporary file)")
    p.add_argument("--notes", default="", help="free text added to every row's notes (e.g. 'machine busy')")
    p.add_argument("--threads", type=int, default=0,
                   help="CPU threads for glassgrad and PyTorch alike (default: each library's own default)")


def apply_threads(n: int, torch=None) -> str:
    """Sets both libraries' CPU thread counts when n > 0; returns a note naming the counts used."""
    import glassgrad as gg
    if n > 0:
        gg.set_num_threads(n)
        if torch is not None:
            torch.set_num_threads(n)
    note = f"glassgrad {gg.get_num_threads()} threads"
    if torch is not None:
        note += f", torch {torch.get_num_threads()} threads"
    return note


class Results:
    def __init__(self, script: str, csv_path: Optional[str] = None, tiny: bool = False, notes: str = ""):
        if csv_path is None and tiny:  # a scratch file, rewritten by every tiny run
            csv_path = os.path.join(tempfile.gettempdir(), f"glassgrad-bench-tiny-{script}.csv")
            if os.path.exists(csv_path):
                os.remove(csv_path)
        elif csv_path is None:
            csv_path = os.path.join(RESULTS, f"{script}.csv")
        self.path = csv_path
        self.rows: List[Dict[str, str]] = []
        self.meta = {"date": datetime.datetime.now().isoformat(timespec="seconds"), "commit": commit(),
                     "machine": machine()}
        load = load_average()
        parts = ["tiny"] if tiny else []
        if load is not None:
            parts.append(f"load {load:.1f} on {os.cpu_count()} cpus")
        if notes:
            parts.append(notes)
        self.run_notes = "; ".join(parts)

    def add(self, device: str, workload: str, metric: str, value: float, unit: str, framework: str = "glassgrad",
            ratio: Optional[float] = None, notes: str = "", roofline: Optional[Dict[str, str]] = None) -> None:
        """One row; `roofline` holds the roofline columns (roofline.columns), blank when None."""
        note = "; ".join(n for n in (self.run_notes, notes) if n)  # run notes first: "tiny" leads
        row = dict(self.meta, device=device, workload=workload, metric=metric, value=f"{value:.6g}", unit=unit,
                   framework=framework, ratio_vs_torch="" if ratio is None else f"{ratio:.4g}", notes=note)
        row.update({c: (roofline or {}).get(c, "") for c in ROOFLINE_COLUMNS})
        self.rows.append(row)
        print(f"{framework:18s} {device:6s} {workload:44s} {metric:22s} {value:12.4g} {unit:6s}"
              + ("" if ratio is None else f" ratio vs torch {ratio:.4g}"), flush=True)

    def write(self) -> str:
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        new = not os.path.exists(self.path) or os.path.getsize(self.path) == 0
        if not new:
            with open(self.path, newline="") as f:
                header = next(csv.reader(f), [])
            if header != COLUMNS:  # written before a column was added: rewrite it whole, old rows blank there
                old = read_rows([self.path])
                with open(self.path, "w", newline="") as f:
                    w = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
                    w.writeheader()
                    w.writerows(old)
        with open(self.path, "a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=COLUMNS)
            if new:
                w.writeheader()
            w.writerows(self.rows)
        return self.path


def read_rows(paths: List[str]) -> List[Dict[str, str]]:
    """Rows of the given CSVs, each with a 'script' key (the file's stem) and every column of
    COLUMNS ("" where the file has none)."""
    rows = []
    for path in paths:
        script = os.path.splitext(os.path.basename(path))[0]
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                row.pop(None, None)  # fields past an older, shorter header
                for c in COLUMNS:
                    if row.get(c) is None:
                        row[c] = ""
                row["script"] = script
                rows.append(row)
    return rows


def result_files(directory: str = RESULTS) -> List[str]:
    if not os.path.isdir(directory):
        return []
    return sorted(os.path.join(directory, f) for f in os.listdir(directory) if f.endswith(".csv"))
