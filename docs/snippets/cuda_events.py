"""docs/cuda.md, "Events and streams": timing a model with two CUDA events (on a machine without
a usable GPU this prints why instead)."""
import glassgrad
import glassgrad.nn as nn

if glassgrad.cuda.is_available():
    model = nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10)).to("cuda")
    x = glassgrad.randn(64, 256, device="cuda")
    # --8<-- [start:timing]
    start, end = glassgrad.cuda.Event(enable_timing=True), glassgrad.cuda.Event(enable_timing=True)
    start.record()
    y = model(x)
    end.record()  # computes the pending ops first: the event follows model(x)'s kernels
    end.synchronize()
    print(f"{start.elapsed_time(end):.3f} ms")
    # --8<-- [end:timing]
else:
    print("no usable GPU:", glassgrad.cuda.why_unavailable().splitlines()[0])
