"""Where a training step's host time goes (docs/debugging.md, "Where a step's host time goes").

    with glassgrad.debug.host_time_breakdown() as bd:
        for x, y in batches:
            loss = loss_fn(model(x), y); loss.backward(); opt.step(); opt.zero_grad()
    print(bd)            # one row per phase: ms per step and share of the wall time

The phases are timed in the runtime, each exclusively (a phase started inside another pauses
it), on the calling thread only:

    record           recording ops: each node's checks and shape rule
    backward_export  backward(): collecting the graph the loss needs for the differentiator
    differentiate    backward(): the gradient rules emitting the backward nodes
    backward_import  backward(): the backward nodes handed back to the tracer
    export           realize: collecting the pending graph
    signature        realize: the plan cache's key of that graph
    plan_lookup      realize: finding the plan in the cache
    compile          realize: compiling a plan (cache misses only)
    bind             realize: binding buffers to the plan's inputs, arena and outputs
    launch           running the kernels (on a CPU their work; on a GPU their launches)
    settle           after a run: results handed to their tensors, in-place updates settled
    transfer         copies between NumPy and glassgrad and between devices
    python           the rest of the wall time: Python code (layers, optimizers, the loop)

`graph` is the model-graph's share: backward_export + differentiate + backward_import + export +
signature + plan_lookup + bind + settle, the host work between the tracer and the kernels.
"""
from __future__ import annotations

import time
from typing import Dict, Optional

from .. import _C

PHASES = ("record", "backward_export", "differentiate", "backward_import", "export", "signature", "plan_lookup",
          "compile", "bind", "launch", "settle", "transfer")
GRAPH_PHASES = ("backward_export", "differentiate", "backward_import", "export", "signature", "plan_lookup", "bind",
                "settle")


class HostTimeBreakdown:
    """The host times of the steps run inside a `host_time_breakdown()` block.

    seconds: {phase: seconds} over the block, with "python" (the wall time no phase took);
    calls: {phase: how many times it was entered}; wall_seconds; steps: the step count the
    per-step figures divide by (the `steps` given, else the realizes that ran a plan: a plain
    loop's step runs one, a compiled step's replay none)."""

    def __init__(self, steps: Optional[int] = None):
        self._given_steps = steps
        self.seconds: Dict[str, float] = {}
        self.calls: Dict[str, int] = {}
        self.wall_seconds = 0.0
        self.realizes = 0
        self._start: Optional[dict] = None
        self._t0 = 0.0
        self._was_on = False

    @property
    def steps(self) -> int:
        return self._given_steps if self._given_steps is not None else self.realizes

    @property
    def graph_seconds(self) -> float:
        """The model graph's host time: the phases between the tracer and the kernels."""
        return sum(self.seconds.get(p, 0.0) for p in GRAPH_PHASES)

    def per_step_ms(self) -> Dict[str, float]:
        """{phase: milliseconds per step}, "python", "graph" and "wall" included."""
        n = max(self.steps, 1)
        out = {k: v * 1e3 / n for k, v in self.seconds.items()}
        out["graph"] = self.graph_seconds * 1e3 / n
        out["wall"] = self.wall_seconds * 1e3 / n
        return out

    def __enter__(self) -> "HostTimeBreakdown":
        self._was_on = _C.host_timing()
        if not self._was_on:
            _C.reset_host_times()
            _C.set_host_timing(True)
        self._start = dict(_C.host_times())
        self._t0 = time.perf_counter()
        return self

    def __exit__(self, *exc) -> None:
        self.wall_seconds = time.perf_counter() - self._t0
        end = dict(_C.host_times())
        if not self._was_on:
            _C.set_host_timing(False)
        start = self._start or {}
        for p in PHASES:
            s0, c0 = start.get(p, (0.0, 0))
            s1, c1 = end[p]
            self.seconds[p] = s1 - s0
            self.calls[p] = c1 - c0
        self.realizes = end["realizes"] - start.get("realizes", 0)
        self.seconds["python"] = max(0.0, self.wall_seconds - sum(self.seconds[p] for p in PHASES))

    def text(self) -> str:
        ms = self.per_step_ms()
        wall = max(ms["wall"], 1e-12)
        lines = [f"host time per step over {self.steps} step{'s' if self.steps != 1 else ''}: "
                 f"{ms['wall']:.3f} ms wall, model graph {ms['graph']:.3f} ms"]
        for p in PHASES + ("python",):
            calls = self.calls.get(p)
            per = "" if calls is None else f"  {calls / max(self.steps, 1):8.1f} calls/step"
            lines.append(f"  {p:16s} {ms[p]:9.3f} ms  {100 * ms[p] / wall:5.1f}%{per}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        ms = self.per_step_ms()
        return f"<HostTimeBreakdown: {self.steps} steps, {ms['wall']:.3f} ms/step, graph {ms['graph']:.3f} ms/step>"


def host_time_breakdown(steps: Optional[int] = None) -> HostTimeBreakdown:
    """A context manager timing the host phases of what runs inside it (see the module's
    docstring). `steps`: how many steps the block runs, for the per-step figures (default: the
    realizes that ran a plan, one per plain-loop step). Blocks nest: an inner one sees its own
    part of the outer one's totals."""
    return HostTimeBreakdown(steps)
