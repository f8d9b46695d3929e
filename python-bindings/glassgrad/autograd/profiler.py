"""torch.autograd.profiler: the older profiler's names (profile, record_function, emit_nvtx,
emit_itt), recording what glassgrad.profiler records (docs/debugging.md, "Profiling with
torch.profiler's names"). use_cuda / use_device are accepted: glassgrad records no device time,
so no CUDA columns appear. emit_nvtx and emit_itt are documented no-ops: glassgrad emits no
NVTX or ITT ranges."""
from __future__ import annotations

from typing import Optional

from ..profiler._events import EventList, FunctionEventAvg
from ..profiler._profile import _Profile
from ..profiler._recorder import record_function

__all__ = ["EventList", "emit_itt", "emit_nvtx", "profile", "record_function"]


class profile(_Profile):
    """torch.autograd.profiler.profile: `with profile() as prof: ...`, then prof.table(),
    prof.key_averages().table(...), prof.export_chrome_trace(path). enabled=False records
    nothing. Accepted with no effect: use_cuda, use_device, with_flops, profile_memory,
    with_modules, use_kineto, use_cpu, experimental_config, acc_events,
    custom_trace_id_callback, post_processing_timeout_s, activity_filters."""

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device: Optional[str] = None,
                 record_shapes: bool = False, with_flops: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_modules: bool = False, use_kineto: bool = False,
                 use_cpu: bool = True, experimental_config=None, acc_events: bool = False,
                 custom_trace_id_callback=None, post_processing_timeout_s: Optional[float] = None,
                 activity_filters: Optional[dict] = None):
        super().__init__(record_shapes, with_stack)
        self.enabled = enabled
        self.use_cuda, self.use_device = use_cuda, use_device

    def __enter__(self) -> "profile":
        if self.enabled:
            self._start_trace()
        return self

    def __exit__(self, *exc) -> None:
        if self.enabled:
            self._stop_trace()

    @property
    def function_events(self) -> EventList:
        return self._events

    @property
    def self_cpu_time_total(self) -> float:
        return self._events.self_cpu_time_total

    def total_average(self) -> FunctionEventAvg:
        return self._events.total_average()

    def table(self, sort_by: Optional[str] = None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80, header: Optional[str] = None,
              top_level_events_only: bool = False) -> str:
        """One row per recorded event (torch's legacy table); key_averages().table() sums by name."""
        return self._events.table(sort_by, row_limit, max_src_column_width, max_name_column_width,
                                  max_shapes_column_width, header, top_level_events_only)

    def __str__(self) -> str:
        return self.table()


class emit_nvtx:
    """A documented no-op: glassgrad emits no NVTX ranges (Nsight Systems still sees its CUDA
    kernels and their names)."""

    def __init__(self, enabled: bool = True, record_shapes: bool = False):
        self.enabled, self.record_shapes = enabled, record_shapes

    def __enter__(self) -> "emit_nvtx":
        return self

    def __exit__(self, *exc) -> None:
        return None


class emit_itt(emit_nvtx):
    """A documented no-op: glassgrad emits no ITT ranges (Intel VTune)."""
