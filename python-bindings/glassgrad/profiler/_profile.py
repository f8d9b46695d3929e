"""torch.profiler.profile with its schedule: the step state machine is torch's (schedule(),
ProfilerAction, on_trace_ready at the end of each active cycle, a "ProfilerStep#N" block per step
when a schedule is given); what is recorded is _recorder's (docs/debugging.md)."""
from __future__ import annotations

import enum
import json
import os
import warnings
from typing import Callable, Dict, Iterable, Optional

from ._events import EventList, FunctionEvent, write_chrome_trace
from ._recorder import Recorder, record_function


class ProfilerActivity(enum.Enum):
    """What to profile. CPU: the host's time in op steps and record_function blocks. CUDA is
    accepted so ported scripts run; glassgrad records no device time (on a GPU an op's time is
    its host launch), so no CUDA columns appear."""
    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities() -> set:
    from .. import cuda
    return {ProfilerActivity.CPU} | ({ProfilerActivity.CUDA} if cuda.is_available() else set())


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0) -> Callable[[int], ProfilerAction]:
    """torch.profiler.schedule: skip `skip_first` steps, then cycles of `wait` idle steps, `warmup`
    steps and `active` recorded steps (the last one RECORD_AND_SAVE), `repeat` times (0: until
    the profile stops). skip_first_wait != 0 leaves out the first cycle's wait."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} "
                             f"(need >= 0), active={active} (need > 0), repeat={repeat} (need >= 0), "
                             f"skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _default_schedule_fn(_: int) -> ProfilerAction:
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name: str, worker_name: Optional[str] = None, use_gzip: bool = False,
                              use_python_export: bool = False) -> Callable:
    """An on_trace_ready handler writing each cycle's Chrome trace to
    dir_name/<worker_name>.<time_ns>.pt.trace.json[.gz] (worker_name: '<hostname>_<pid>')."""
    import socket
    import time

    def handler_fn(prof) -> None:
        nonlocal worker_name
        os.makedirs(dir_name, exist_ok=True)
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker_name}.{time.time_ns()}.pt.trace.json" + (".gz" if use_gzip else "")
        prof.export_chrome_trace(os.path.join(dir_name, file_name))

    return handler_fn


class _Profile:
    """What both profilers share: the recorder, the finished events and their summaries."""

    def __init__(self, record_shapes: bool, with_stack: bool):
        self.record_shapes, self.with_stack = record_shapes, with_stack
        self._recorder: Optional[Recorder] = None
        self._events = EventList()
        self._metadata: Dict[str, str] = {}

    def _start_trace(self) -> None:
        self._recorder = Recorder(self.record_shapes, self.with_stack)
        self._recorder.start()

    def _stop_trace(self) -> None:
        if self._recorder is not None:
            self._events = self._recorder.stop()
            self._recorder = None

    def events(self) -> EventList:
        """The last finished cycle's events (ops and record_function blocks), in recording order."""
        return self._events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        """The events summed by name (and by input shapes, and by the first group_by_stack_n source
        lines, when asked; without record_shapes / with_stack those are empty and the rows are the
        by-name rows, as PyTorch's)."""
        return self._events.key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def export_chrome_trace(self, path: str) -> None:
        write_chrome_trace([e for e in self._events if isinstance(e, FunctionEvent)], path, self._metadata)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        """Stacks for a flame graph (flamegraph.pl, speedscope): see EventList.export_stacks."""
        self._events.export_stacks(path, metric)


class profile(_Profile):
    """torch.profiler.profile: a context manager (or start()/stop()) recording the host time of
    glassgrad's op steps and of record_function blocks. With `schedule`, call prof.step() once
    per training step; on_trace_ready(prof) runs at the end of each active cycle (and at stop()
    while recording). Accepted for ported scripts, with no effect: profile_memory, with_flops,
    with_modules (ops carry their layer path anyway), experimental_config,
    execution_trace_observer, acc_events, custom_trace_id_callback, post_processing_timeout_s."""

    def __init__(self, *, activities: Optional[Iterable] = None, schedule: Optional[Callable] = None,
                 on_trace_ready: Optional[Callable] = None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False, with_flops: bool = False,
                 with_modules: bool = False, experimental_config=None, execution_trace_observer=None,
                 acc_events: bool = False, use_cuda: Optional[bool] = None, custom_trace_id_callback=None,
                 post_processing_timeout_s: Optional[float] = None):
        super().__init__(record_shapes, with_stack)
        acts = set(activities) if activities is not None else supported_activities()
        bad = [a for a in acts if not isinstance(a, ProfilerActivity)]
        if bad:
            raise TypeError(f"profile: activities must be ProfilerActivity values, got {bad!r}\n"
                            "  fix: activities=[ProfilerActivity.CPU]")
        if use_cuda:
            acts.add(ProfilerActivity.CUDA)
        self.activities = acts
        self.profile_memory, self.with_flops = profile_memory, with_flops
        self.on_trace_ready = on_trace_ready
        self.record_steps = schedule is not None
        self.schedule = schedule if schedule is not None else _default_schedule_fn
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self.step_rec_fn: Optional[record_function] = None

    def __enter__(self) -> "profile":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        self._transit(ProfilerAction.NONE, self.current_action)
        self._open_step()

    def stop(self) -> None:
        self._close_step()
        self._transit(self.current_action, None)

    def step(self) -> None:
        """The next training step starts (one call per step, at its end, as in torch)."""
        self._close_step()
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit(prev, self.current_action)
        self._open_step()

    def _open_step(self) -> None:
        if self.record_steps:
            self.step_rec_fn = record_function(f"ProfilerStep#{self.step_num}")
            self.step_rec_fn.__enter__()

    def _close_step(self) -> None:
        if self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None

    def add_metadata(self, key: str, value: str) -> None:
        """A string value under `key` in the exported Chrome traces."""
        self._metadata[key] = json.dumps(value)

    def add_metadata_json(self, key: str, value: str) -> None:
        """A JSON value (given as text) under `key` in the exported Chrome traces."""
        json.loads(value)  # a ValueError here names the bad text
        self._metadata[key] = value

    def _trace_ready(self) -> None:
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def _transit(self, prev: ProfilerAction, now: Optional[ProfilerAction]) -> None:
        recording = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        if prev in recording and now not in recording:
            if prev == ProfilerAction.RECORD and now is not None:
                warnings.warn(f"Incorrect schedule: RECORD followed by {now.name}", stacklevel=3)
            self._stop_trace()
            if prev == ProfilerAction.RECORD_AND_SAVE or now is None:
                self._trace_ready()
        elif prev == ProfilerAction.RECORD_AND_SAVE and now in recording:  # a cycle ends, the next starts
            self._stop_trace()
            self._trace_ready()
            self._start_trace()
        elif prev not in recording and now in recording:
            self._start_trace()
        elif prev == ProfilerAction.WARMUP and now == ProfilerAction.NONE:
            warnings.warn("Incorrect schedule: WARMUP followed by NONE", stacklevel=3)

