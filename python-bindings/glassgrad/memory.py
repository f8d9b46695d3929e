"""Memory accounting, limits and the allocation log, per device."""
from __future__ import annotations

from typing import List, Optional, Union

from . import _C, _device


def memory_stats(device=None) -> dict:
    """{'current', 'peak', 'limit', 'num_allocs', 'num_frees', 'cached'} in bytes for a device."""
    return dict(_C.memory_stats(_device.normalize(device)))


def reset_peak_memory(device=None) -> None:
    """Starts the device's peak-memory count afresh from what is allocated now (torch.cuda.reset_peak_memory_stats)."""
    _C.reset_peak(_device.normalize(device))


def set_memory_limit(limit: Optional[Union[str, int]], device=None) -> None:
    """Caps the bytes glassgrad may hold on a device ("2GB", "512MiB", an int, or None to lift it).

    Plans compiled under a limit fit in what it leaves beside the memory already held: when a
    step would not, its activations are recomputed in the backward pass (checkpointing) with as
    few segments as fit. If nothing fits, OutOfMemoryError says the smallest limit that would."""
    nbytes = 0 if limit is None else (_C.parse_bytes(limit) if isinstance(limit, str) else int(limit))
    dev = _device.normalize(device)
    # Messages echo the limit as given ("64MB") beside its size in MiB.
    _C.set_memory_limit(dev, nbytes, limit.strip() if isinstance(limit, str) else "")
    if nbytes:
        _C.empty_cache(dev)  # the shared arena re-grows to what the next plan needs


class allocation_log:
    """Records every allocation and free on a device (bytes, buffer name, device):

        with glassgrad.allocation_log() as log:
            ...
        for event in log.events: print(event)
    """

    def __init__(self, device=None):
        self.device = _device.normalize(device)
        self.events: List[dict] = []

    def __enter__(self):
        _C.take_allocation_log(self.device)
        _C.set_allocation_logging(self.device, True)
        return self

    def __exit__(self, *exc):
        self.events = list(_C.take_allocation_log(self.device))
        _C.set_allocation_logging(self.device, False)


class plan_only:
    """Within this block, realizing compiles and records plans but runs no kernel (results are
    uninitialized; parameters and optimizer state are left untouched)."""

    def __enter__(self):
        _C.take_plan_only_plans()
        _C.set_plan_only(True)
        self.plans = []
        return self

    def __exit__(self, *exc):
        _C.set_plan_only(False)
        self.plans = list(_C.take_plan_only_plans())


class MemoryReport:
    """What a step will need on a device, predicted from its plan before anything runs.

    predicted_peak = bytes held now (parameters, optimizer state, data, the arena)
                   - an arena the plan replaces + the arena it allocates + its outputs
                   (+ a CUDA graph's own copies of the outputs)
    the same prediction the memory limit's check makes (debug::memory_need in C++).
    """

    def __init__(self, plan, device: str, baseline: int, arena_held: int):
        self.plan = plan
        self.device = device
        self.baseline = baseline
        self.arena_held = arena_held
        self.arena = int(plan.arena_bytes.get(device, 0))
        self.peak_live = int(plan.peak_live_bytes.get(device, 0))
        slots = [s for s in plan.slots if s["device"] == device]
        need = _C.memory_need(plan, device, baseline)
        self.arena_new = need.arena_new
        self.outputs = need.outputs
        # A plan replayed as a CUDA graph writes its outputs into buffers of its own and copies
        # them out into fresh tensors: the outputs are held twice.
        self.graph_outputs = need.graph_outputs
        self.predicted_peak = need.total
        producers = {}
        for i, st in enumerate(plan.steps):
            for o in st["outputs"]:
                producers[o] = (i, st["op"], st["scope"])
        self.buffers = []
        for s in slots:
            if s["kind"] in ("view",):
                continue
            i, op, scope = producers.get(s["id"], (-1, "", ""))
            self.buffers.append(dict(slot=s["id"], kind=s["kind"], bytes=s["bytes"], shape=s["shape"],
                                     dtype=s["dtype"], first_step=s["first_step"], last_step=s["last_step"],
                                     producer=op, layer=scope, name=s["name"]))
        self.buffers.sort(key=lambda b: -b["bytes"])

    def largest(self, n: int = 10):
        return [b for b in self.buffers if b["kind"] in ("arena", "output", "workspace")][:n]

    def timeline(self):
        """Live arena/workspace/output bytes after each step: a list of ints (len = steps)."""
        steps = len(self.plan.steps)
        live = [0] * max(steps, 1)
        for b in self.buffers:
            if b["kind"] not in ("arena", "workspace", "output"):
                continue
            first = max(b["first_step"], 0)
            last = min(b["last_step"], steps - 1)
            for i in range(first, last + 1):
                live[i] += b["bytes"]
        return live

    def __str__(self) -> str:
        f = _C.format_bytes
        lines = [f"memory report for {self.device}: {len(self.plan.steps)} steps",
                 f"  predicted peak  {f(self.predicted_peak)}",
                 f"    held before   {f(self.baseline)} (parameters, optimizer state, data, arena of {f(self.arena_held)})",
                 f"    arena         {f(self.arena)} (peak live {f(self.peak_live)}; "
                 + (f"a new one of {f(self.arena_new)} replaces the one held)" if self.arena_new else "the one held serves)"),
                 f"    outputs       {f(self.outputs)} (results the step returns, e.g. gradients)"
                 + (f"\n    graph copies  {f(self.graph_outputs)} (a CUDA graph's own output buffers)" if self.graph_outputs else ""),
                 "  largest buffers:"]
        for b in self.largest(10):
            where = f"{b['producer']} '{b['layer']}'" if b["layer"] else b["producer"]
            lines.append(f"    {f(b['bytes']):>11}  {b['kind']:9s} {str(list(b['shape'])):22s} {b['dtype']:8s} "
                         f"steps {b['first_step']}..{b['last_step']}  {where or b['name']}")
        return "\n".join(lines)

    def plot(self, path: Optional[str] = None, ax=None):
        """The memory timeline: live bytes per step (matplotlib). Saves to `path` when given."""
        import matplotlib
        if path is not None and ax is None:
            matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        live = self.timeline()
        own = ax is None
        if own:
            fig, ax = plt.subplots(figsize=(8, 3.5))
        ax.fill_between(range(len(live)), [v / 2 ** 20 for v in live], step="mid", alpha=0.6, label="plan buffers")
        ax.axhline(self.arena / 2 ** 20, color="k", linestyle="--", linewidth=1, label="arena size")
        roles = [s["role"] for s in self.plan.steps]
        if "backward" in roles:
            ax.axvline(roles.index("backward"), color="r", linewidth=1, label="backward starts")
        ax.set_xlabel("step of the plan")
        ax.set_ylabel("MiB live")
        ax.legend(loc="upper right")
        if own and path is not None:
            fig.tight_layout()
            fig.savefig(path, dpi=100)
            plt.close(fig)
        return ax


def memory_report(step, *args, device=None, **kwargs) -> MemoryReport:
    """Predicts the memory of `step(*args)` before anything runs: the step is traced and planned
    in plan-only mode (no kernel runs, parameters stay untouched), together with the tensors it
    returns (a lazy loss is planned as if read), and the largest plan it makes is reported:
    predicted peak, arena size, the largest buffers with their lifetimes.

        report = glassgrad.memory_report(train_step, x_batch, y_batch)
        print(report); report.plot("memory.png")

    A compiled step (glassgrad.compile) is planned as its function, under its memory_limit.
    """
    dev = _device.normalize(device)
    _C.lazy_realize([])  # settle pending work first, so it is not counted as the step's
    baseline = int(_C.memory_stats(dev)["current"])
    held = int(_C.arena_bytes(dev))
    from .compile import CompiledFunction, _flatten
    if isinstance(step, CompiledFunction):
        # Its function is planned, under its memory_limit: calling it would record (and run) a
        # replay instead, which plans nothing.
        step = step._traced
    with plan_only() as po:
        out = step(*args, **kwargs)
        # What the function returns is planned too (a lazy loss, logits), as compile does:
        # memory_report(lambda: cross_entropy(model(x), y)) reports the forward pass.
        pending = [t for t in _flatten(out) if not t._h.realized]
        if pending:
            _C.lazy_realize([t._h for t in pending])
    if not po.plans:
        raise _C.InvalidArgumentError(
            "memory_report: the step ran no plan and returned no tensor to plan\n"
            "  cause: a function that computes nothing, or one that only records ops and returns nothing\n"
            "  fix: return the result (e.g. the loss), or call optimizer.step() inside it")
    best = max(po.plans, key=lambda p: p.predicted_peak_bytes())
    return MemoryReport(best, dev, baseline, held)
