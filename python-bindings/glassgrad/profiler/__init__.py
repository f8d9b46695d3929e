"""torch.profiler's names: profile (a context manager with .step() and a schedule),
ProfilerActivity, ProfilerAction, schedule, record_function, tensorboard_trace_handler and
supported_activities. What glassgrad measures, and what it leaves out, is in docs/debugging.md
("Profiling with torch.profiler's names"): the host wall time of every op step's kernel call and
of every record_function block, with counts, input shapes and source lines; no device time,
memory or FLOP columns.

    from glassgrad.profiler import profile, record_function, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("model_inference"):
            model(x).sum().item()
    print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))
"""
from ._events import EventList, FunctionEvent, FunctionEventAvg
from ._profile import (ProfilerAction, ProfilerActivity, profile, schedule, supported_activities,
                       tensorboard_trace_handler)
from ._recorder import record_function

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "ProfilerAction", "ProfilerActivity", "profile",
           "record_function", "schedule", "supported_activities", "tensorboard_trace_handler"]
