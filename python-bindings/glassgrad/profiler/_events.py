"""The profiler's events and their summaries: FunctionEvent (one op step or record_function
block), FunctionEventAvg (key_averages' rows), EventList (.table(), .key_averages(),
.export_chrome_trace()), with torch.autograd.profiler_util's names and table layout.

What the numbers are (docs/debugging.md, "Profiling with torch.profiler's names"): host wall
time in microseconds, read on the calling thread. An op event is one plan step's kernel call,
timed by the executor; a record_function event is the block's wall time. Self time is the time
not spent in a nested event. There is no device time, memory or FLOP column: glassgrad does not
measure those per op, and asking for them says so instead of printing zeros."""
from __future__ import annotations

import json
import os
import warnings
from typing import Dict, List, Optional, Tuple

# Attributes of torch's events that glassgrad cannot fill, with the reason (see the module's docstring).
_NO_DEVICE = ("glassgrad's profiler records no device (GPU) time: on a GPU an op's time is its host launch; "
              "sort and read cpu_time_total instead")
_NO_MEMORY = "glassgrad's profiler records no per-op memory: see glassgrad.memory_stats() and allocation_log()"
UNMEASURED: Dict[str, str] = {
    **{k: _NO_DEVICE for k in ("cuda_time", "cuda_time_total", "self_cuda_time_total", "device_time",
                               "device_time_total", "self_device_time_total")},
    **{k: _NO_MEMORY for k in ("cpu_memory_usage", "self_cpu_memory_usage", "cuda_memory_usage",
                               "self_cuda_memory_usage", "device_memory_usage", "self_device_memory_usage")},
    "flops": "glassgrad's profiler counts no FLOPs",
}
SORT_KEYS = ("cpu_time", "cpu_time_total", "self_cpu_time_total", "count")


class _Unmeasured:
    def __getattr__(self, name: str):
        if name in UNMEASURED:
            raise AttributeError(f"profiler event: {name} is not measured\n  cause: {UNMEASURED[name]}")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


class Interval:
    """time_range of an event: start and end in microseconds."""

    def __init__(self, start: float, end: float):
        self.start, self.end = start, end

    def elapsed_us(self) -> float:
        return self.end - self.start


class FunctionEvent(_Unmeasured):
    """One recorded event. name/key: the op ('MatMul', 'Conv2DBackwardWeight', 'FusedElementwise'
    for a fused chain) or the record_function's name. Times in microseconds of host wall time.
    glassgrad's own fields: role ('forward', 'backward', 'optimizer', ...; 'user_annotation' for
    a record_function block) and layer (the layer path the op was recorded in)."""

    def __init__(self, id: int, name: str, thread: int, start_us: float, end_us: float,
                 input_shapes: Optional[list] = None, stack: Optional[List[str]] = None,
                 is_user_annotation: bool = False, role: str = "", layer: str = ""):
        # torch's names: the summaries see every "ProfilerStep#N" as "ProfilerStep*", the trace the step
        self.trace_name = name
        self.name = "ProfilerStep*" if name.startswith("ProfilerStep#") else name
        self.id, self.thread = id, thread
        self.time_range = Interval(start_us, end_us)
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.stack = stack if stack is not None else []
        self.is_user_annotation = is_user_annotation
        self.role, self.layer = role, layer
        self.cpu_children: List[FunctionEvent] = []
        self.cpu_parent: Optional[FunctionEvent] = None
        self.count = 1
        self.device_type = "CPU"

    @property
    def key(self) -> str:
        return self.name

    @property
    def cpu_time_total(self) -> float:
        return self.time_range.elapsed_us()

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    def __repr__(self) -> str:
        return (f"<FunctionEvent id={self.id} name={self.name} role={self.role} cpu_time={format_time(self.cpu_time)} "
                f"self_cpu_time_total={format_time(self.self_cpu_time_total)} input_shapes={self.input_shapes}>")


class FunctionEventAvg(_Unmeasured):
    """The events of one key (and input shapes / stack when grouped by them), summed."""

    def __init__(self, key: str = ""):
        self.key = key
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.input_shapes: object = None  # "" when not grouped by shape (torch's convention)
        self.stack: Optional[List[str]] = None
        self.is_user_annotation = False
        self.top_level = True  # every event summed here had no parent

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / max(self.count, 1)

    def add(self, other) -> "FunctionEventAvg":
        if self.count == 0:
            self.key = other.key
            self.input_shapes, self.stack = other.input_shapes, other.stack
            self.is_user_annotation = other.is_user_annotation
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.top_level = self.top_level and getattr(other, "cpu_parent", None) is None and getattr(
            other, "top_level", True)
        return self

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={format_time(self.self_cpu_time_total)} "
                f"cpu_time={format_time(self.cpu_time)} input_shapes={self.input_shapes}>")


def format_time(us: float) -> str:
    """torch's format: seconds, milliseconds or microseconds with three decimals."""
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def link_children(events: List[FunctionEvent]) -> None:
    """Each event's parent is the innermost record_function block of its thread whose time range
    holds it. Op steps are never parents: kernel calls do not nest (a plan that a hook runs
    between two steps is its own steps, not part of the step before)."""
    by_thread: Dict[int, List[FunctionEvent]] = {}
    for e in events:
        e.cpu_children, e.cpu_parent = [], None
        by_thread.setdefault(e.thread, []).append(e)
    for evs in by_thread.values():
        evs.sort(key=lambda e: (e.time_range.start, -e.time_range.end))
        stack: List[FunctionEvent] = []
        for e in evs:
            while stack and e.time_range.start >= stack[-1].time_range.end:
                stack.pop()
            if stack and e.time_range.end <= stack[-1].time_range.end:
                e.cpu_parent = stack[-1]
                stack[-1].cpu_children.append(e)
            if e.is_user_annotation:
                stack.append(e)


class EventList(list):
    """A list of FunctionEvent or FunctionEventAvg with torch's summaries."""

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> "EventList":
        groups: Dict[Tuple, FunctionEventAvg] = {}
        for e in self:
            k: Tuple = (e.key,)
            if group_by_input_shape:
                k += (str(e.input_shapes),)
            if group_by_stack_n > 0:
                k += tuple(e.stack[:group_by_stack_n])
            groups.setdefault(k, FunctionEventAvg()).add(e)
        for avg in groups.values():  # as torch: the columns show only what the rows are grouped by
            avg.stack = list(avg.stack or [])[:group_by_stack_n]
            if not group_by_input_shape:
                avg.input_shapes = ""
        return EventList(groups.values())

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg("Total")
        for e in self:
            total.count += e.count
            total.cpu_time_total += e.cpu_time_total
            total.self_cpu_time_total += e.self_cpu_time_total
        return total

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def table(self, sort_by: Optional[str] = None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80, header: Optional[str] = None,
              top_level_events_only: bool = False, time_unit: Optional[str] = None) -> str:
        """torch's table: Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg, # of
        Calls, then Input Shapes (when grouped by them) and Source Location (when grouped by
        stack). sort_by: cpu_time, cpu_time_total, self_cpu_time_total or count (descending)."""
        return build_table(self, sort_by, row_limit, max_src_column_width, max_name_column_width,
                           max_shapes_column_width, header, top_level_events_only, time_unit)

    def export_chrome_trace(self, path: str) -> None:
        write_chrome_trace([e for e in self if isinstance(e, FunctionEvent)], path)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        """torch's flame-graph input: per event with a stack (with_stack=True: the source line that
        recorded the op), its frames joined by ';' and the metric in whole microseconds."""
        if metric != "self_cpu_time_total":
            why = UNMEASURED.get(metric.replace("self_", "").replace("xpu", "cuda").replace("privateuse1", "cuda"),
                                 "not a metric")
            raise ValueError(f"export_stacks: metric={metric!r} is not measured ({why})\n"
                             "  fix: metric='self_cpu_time_total'")
        table = str.maketrans(" ;\t\n", "____")
        with open(path, "w", encoding="utf-8") as f:
            for e in self:
                value = int(e.self_cpu_time_total)
                if e.stack and value > 0:
                    f.write(";".join(frame.translate(table) for frame in reversed(e.stack)) + f" {value}\n")

    def __str__(self) -> str:
        return self.table()


def _sort_key(sort_by: Optional[str]) -> Optional[str]:
    if sort_by is None or sort_by in SORT_KEYS:
        return sort_by
    if sort_by in UNMEASURED:
        warnings.warn(f"profiler table: sort_by={sort_by!r} is not measured ({UNMEASURED[sort_by]}); the rows are "
                      "sorted by cpu_time_total", UserWarning, stacklevel=4)
        return "cpu_time_total"
    raise ValueError(f"profiler table: sort_by={sort_by!r} is not a column glassgrad has\n"
                     f"  fix: sort_by one of {', '.join(SORT_KEYS)}")


def _fmt_time(us: float, time_unit: Optional[str]) -> str:
    if time_unit is None:
        return format_time(us)
    scale = {"s": 1e6, "ms": 1e3, "us": 1.0}
    if time_unit not in scale:
        raise ValueError(f"profiler table: time_unit={time_unit!r}\n  fix: time_unit='s', 'ms' or 'us'")
    return f"{us / scale[time_unit]:.3f}{time_unit}"


def _width(wanted: int, limit: Optional[int], least: int) -> int:
    """A column's width: what its cells want, at most `limit` (None: no limit), at least its heading's."""
    return max(wanted if limit is None else min(wanted, limit), least)


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


def build_table(events, sort_by, row_limit, max_src_column_width, max_name_column_width, max_shapes_column_width,
                header, top_level_events_only, time_unit) -> str:
    if not events:
        return ""
    rows = list(events)
    key = _sort_key(sort_by)
    if key is not None:
        rows.sort(key=lambda e: getattr(e, key), reverse=True)
    if top_level_events_only:
        rows = [e for e in rows if getattr(e, "cpu_parent", None) is None and getattr(e, "top_level", True)]
    total_self = sum(e.self_cpu_time_total for e in events)
    has_shapes = any(e.input_shapes for e in events)
    has_stack = any(e.stack for e in events)
    name_w = _width(max(len(e.key) for e in events) + 4, max_name_column_width, 4)
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
    widths = [name_w] + [12] * 6
    if has_shapes:
        headers.append("Input Shapes")
        widths.append(_width(max(len(str(e.input_shapes)) for e in rows) + 4, max_shapes_column_width, 12))
    if has_stack:
        headers.append("Source Location")
        widths.append(_width(max(len(s) for e in rows for s in (e.stack or [""])) + 4, max_src_column_width, 15))

    def line(cells):
        return "".join(f"{_clip(c, w):>{w}}  " for c, w in zip(cells, widths))

    rule = "".join("-" * w + "  " for w in widths)
    out = []
    if header:
        out += ["=" * len(rule), header]
    out += [rule, line(headers), rule]
    pct = (lambda v: f"{100 * v / total_self:.2f}%") if total_self > 0 else (lambda v: "--")
    for e in rows[:row_limit] if row_limit is not None and row_limit >= 0 else rows:
        cells = [e.key, pct(e.self_cpu_time_total), _fmt_time(e.self_cpu_time_total, time_unit),
                 pct(e.cpu_time_total), _fmt_time(e.cpu_time_total, time_unit), _fmt_time(e.cpu_time, time_unit),
                 str(e.count)]
        if has_shapes:
            cells.append(str(e.input_shapes))
        if has_stack:
            cells.append((e.stack or [""])[0])
        out.append(line(cells))
    out += [rule, f"Self CPU time total: {_fmt_time(total_self, time_unit)}", ""]
    return "\n".join(out)


def write_chrome_trace(events: List[FunctionEvent], path: str, metadata: Optional[Dict[str, str]] = None) -> None:
    """Chrome's trace format (chrome://tracing, Perfetto, TensorBoard's trace viewer): one complete
    ('X') event per op step or record_function block, times in microseconds; metadata: JSON
    texts added as top-level keys (profile.add_metadata)."""
    pid = os.getpid()
    trace = []
    for e in sorted(events, key=lambda e: e.time_range.start):
        args: dict = {"role": e.role}
        if e.layer:
            args["layer"] = e.layer
        if e.input_shapes:
            args["Input Dims"] = e.input_shapes
        if e.stack:
            args["Call stack"] = ";".join(e.stack)
        trace.append({"ph": "X", "cat": "user_annotation" if e.is_user_annotation else "cpu_op", "name": e.trace_name,
                      "pid": pid, "tid": e.thread, "ts": round(e.time_range.start, 3),
                      "dur": round(e.cpu_time_total, 3), "args": args})
    trace.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "glassgrad"}})
    opener = open
    if path.endswith(".gz"):
        import gzip
        opener = gzip.open  # type: ignore[assignment]
    with opener(path, "wt", encoding="utf-8") as f:
        doc: dict = {"schemaVersion": 1, "displayTimeUnit": "ms"}
        doc.update({k: json.loads(v) for k, v in (metadata or {}).items()})
        doc["traceEvents"] = trace
        json.dump(doc, f)
