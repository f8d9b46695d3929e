"""How a training step's peak memory grows with network depth, without a memory budget and under
the smallest budget the planner can meet (checkpointing), and what the recomputation costs in
step time. Issue 5's target: under a budget, memory growing no faster than sqrt(depth) for at
most 35% extra step time.

    python benchmarks/checkpoint_depth_scaling.py                   # CPU, depths 8,16,32,64,128
    python benchmarks/checkpoint_depth_scaling.py --device cuda     # on the GPU
    python benchmarks/checkpoint_depth_scaling.py --tiny            # seconds (CI: proves it runs)

The network is a plain deep CNN: `depth` identical blocks Conv3x3(width -> width, padding 1, no
bias) + BatchNorm2D + ReLU on a [batch, width, size, size] input, then global average pooling,
Linear(width, 10) and cross-entropy; SGD with momentum 0.9. Every step is a glassgrad.compile'd
function (traced, captured, then replayed), with memory_limit=None or the budget.

For each depth, on one model (its parameters and momentum buffers stay; plans and the cached
arena are dropped between phases so each phase's measured peak is its own):
  (a) no budget: memory_report's predicted peak, the allocator's measured peak, the step time;
      need = the plan's arena + outputs, which is what a budget (compile(memory_limit=)) bounds.
  (b) the smallest budget the planner can meet: a plan-only probe with a 1-byte budget fails
      with an OutOfMemoryError naming the least checkpointing needs ("the smallest budget that
      fits", rounded as printed); the plan compiled a hair above it gives the exact need, which
      becomes the budget. The need minus one byte is probed too (it must fail). Then the
      predicted and measured peak and the step time under that budget.
  (c) budgets between (b) and (a) (--ladder), to find the smallest with <= 35% extra time.
Measured peaks are the allocator's over the compiled step's traced and captured calls (the plan
as memory_report predicts it); replay_peak_mib is the peak over later replays, which is higher by
one set of gradients: the replay keeps the captured call's outputs. Step times are medians of
repeats, the budgeted and unbudgeted steps timed in alternating rounds so that a change in
machine load hits both alike.

activation = peak - (parameters + their gradients + momentum buffers + BatchNorm running
statistics + the batch), all computed from the tensors' sizes: what the plan's arena holds
(activations, workspaces) and the step's other outputs. The growth exponent is the slope of
log(activation) against log(depth) (least squares over all depths, and between the two deepest).
Rows go to benchmarks/results/checkpoint_depth_scaling.csv (common.py's columns).
"""
from __future__ import annotations

import argparse
import gc
import math
import os
import re
import statistics
import sys
import time
from typing import List, Optional

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Results, add_common_args, apply_threads, gg_device, gg_sync, spread_note

import glassgrad as gg
from glassgrad import _C

MiB = 2 ** 20
TARGET_OVERHEAD = 0.35
LEAST = re.compile(r"the least it needs is ([0-9.]+ ?[KMGT]?i?B)")


class Net:
    """The depth-d plain CNN, its optimizer and one fixed batch."""

    def __init__(self, depth: int, batch: int, width: int, size: int, dev: str):
        gg.manual_seed(0)
        layers = []
        for _ in range(depth):
            layers += [gg.Conv2D(width, width, 3, padding=1, bias=False), gg.BatchNorm2D(width), gg.ReLU()]
        self.body = gg.Sequential(*layers).to(dev)
        self.head = gg.Linear(width, 10).to(dev)
        self.params = list(self.body.parameters()) + list(self.head.parameters())
        self.opt = gg.SGD(self.params, lr=0.01, momentum=0.9)
        rng = np.random.default_rng(0)
        self.x = gg.tensor(rng.standard_normal((batch, width, size, size), dtype=np.float32), device=dev)
        self.y = gg.tensor(rng.integers(0, 10, batch), device=dev)
        gg.realize(self.x, self.y)
        param_bytes = sum(int(np.prod(p.shape)) * 4 for p in self.params)
        buffer_bytes = sum(int(np.prod(b.shape)) * 4 for m in layers if isinstance(m, gg.BatchNorm2D)
                           for b in (m.running_mean, m.running_var))
        input_bytes = int(np.prod(self.x.shape)) * 4 + int(np.prod(self.y.shape)) * 8
        # parameters + gradients + momentum buffers + running statistics + the batch
        self.fixed = 3 * param_bytes + buffer_bytes + input_bytes
        self.param_bytes = param_bytes

    def step(self, x, y):
        # One expression: a tensor still named in Python when the step realizes becomes an output
        # of the plan (held outside the arena), which the activations should not be.
        loss = gg.cross_entropy(self.head(gg.mean(self.body(x), (2, 3))), y)
        loss.backward()
        self.opt.step()
        self.opt.zero_grad()
        return loss


def drop_plans(dev: str) -> None:
    """Cached plans and the shared arena go back, so the next phase allocates (and measures) its own."""
    gg.clear_plan_cache()
    gc.collect()
    _C.lazy_realize([])
    _C.empty_cache(dev)


def need_of(report) -> int:
    """What a budget bounds: the plan's arena plus its outputs (compile.cpp's plan_budget_bytes)."""
    return report.plan.budget_bytes()


def probe(net: Net, budget: Optional[int], dev: str):
    """memory_report of the step compiled under `budget` (plan-only: nothing runs); the report,
    or the OutOfMemoryError's text when no plan fits. The plan cache goes first: it keys budgets
    by the MiB, so a probe could otherwise get a plan compiled for a nearby budget."""
    gg.clear_plan_cache()
    try:
        return gg.memory_report(gg.compile(net.step, memory_limit=budget), net.x, net.y, device=dev), None
    except gg.OutOfMemoryError as e:
        # The step failed in optimizer.step(), before zero_grad(): the gradients it left would be
        # accumulated into by the next probe's backward, changing its graph.
        net.opt.zero_grad()
        return None, str(e)


def smallest_budget(net: Net, dev: str, plain_need: int):
    """The least need of any plan the checkpointing search makes, and that plan's report; plus a
    note on how it was found. Falls back to bisection when the error names no figure."""
    report, err = probe(net, 1, dev)
    if report is not None:
        return report, "a 1-byte budget fits"
    m = LEAST.search(err or "")
    if m is not None:
        number, unit = re.match(r"([0-9.]+) ?(\S+)", m.group(1)).groups()
        named, unit_bytes = _C.parse_bytes(number + unit), _C.parse_bytes("1" + unit)
        report, _ = probe(net, named + unit_bytes // 100 + 1, dev)  # the message rounds to 2 decimals
        if report is not None:
            how = f"error named {m.group(1)}"
        else:  # pragma: no cover  (rounding larger than expected)
            report, how = None, f"error named {m.group(1)} but it did not fit"
    else:
        how = "error named no figure: " + (err or "").splitlines()[0]
    if report is None:  # bisection over the budget in plan-only mode
        lo, hi = 1, plain_need
        report, _ = probe(net, hi, dev)
        while hi - lo > max(1024, hi // 1000):
            mid = (lo + hi) // 2
            r, _ = probe(net, mid, dev)
            if r is None:
                lo = mid
            else:
                hi, report = mid, r
        how += "; bisection"
    need = need_of(report)
    below, _ = probe(net, need - 1, dev)
    how += "; need - 1 B fails" if below is None else f"; need - 1 B fits too (needs {need_of(below)} B)"
    return report, how


class Phase:
    """One step under no budget or a budget: predicted peak, measured peaks, later its step times."""

    def __init__(self, net: Net, budget: Optional[int], dev: str, sync, replays: int):
        self.net, self.budget, self.dev, self.sync = net, budget, dev, sync
        drop_plans(dev)  # and no other phase's compiled step is alive: this phase's memory alone
        self.report = gg.memory_report(gg.compile(net.step, memory_limit=budget), net.x, net.y, device=dev)
        self.predicted_peak = self.report.predicted_peak
        self.need = need_of(self.report)
        self.held_before = gg.memory_stats(dev)["current"]
        gg.reset_peak_memory(dev)
        fn = self.compiled()
        fn()  # traced: runs the step's plan (compiled under the budget)
        fn()  # captured for replay: runs it again
        sync()
        self.measured_peak = gg.memory_stats(dev)["peak"]
        gg.reset_peak_memory(dev)
        for _ in range(replays):
            fn()
        sync()
        self.replay_peak = gg.memory_stats(dev)["peak"]
        del fn
        gc.collect()
        self.fn = None
        self.times: List[float] = []

    def compiled(self):
        fn = gg.compile(self.net.step, memory_limit=self.budget)
        net = self.net
        return lambda: fn(net.x, net.y)

    def ready(self) -> None:
        """A compiled step for timing, past its tracing and capturing calls."""
        self.fn = self.compiled()
        self.fn()
        self.fn()
        self.sync()

    def step_s(self) -> float:
        return statistics.median(self.times)


def time_alternating(phases: List[Phase], sync, rounds: int, reps: int) -> None:
    """Appends each phase's step times, in rounds of `reps` steps, phase after phase."""
    for _ in range(rounds):
        for ph in phases:
            sync()
            for _ in range(reps):
                t = time.perf_counter()
                ph.fn()
                sync()
                ph.times.append(time.perf_counter() - t)


def slope(depths: List[int], values: List[float]) -> float:
    pts = [(math.log(d), math.log(v)) for d, v in zip(depths, values) if v > 0]
    if len(pts) < 2:
        return float("nan")
    xs, ys = zip(*pts)
    return float(np.polyfit(xs, ys, 1)[0])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(p)  # --no-torch is accepted and unused: this benchmark has no PyTorch side
    p.add_argument("--depths", default="8,16,32,64,128")
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--width", type=int, default=16)
    p.add_argument("--size", type=int, default=16, help="image height and width")
    p.add_argument("--time-budget", type=float, default=1.5,
                   help="seconds of timed steps per phase and depth (split into alternating rounds)")
    p.add_argument("--ladder", default="0.25,0.5",
                   help="(c): budgets at these fractions of the way from the smallest (0) to the unbudgeted "
                        "need (1), timed too; '' skips")
    args = p.parse_args(argv)
    dev = gg_device(args.device)
    threads = apply_threads(args.threads)
    res = Results("checkpoint_depth_scaling", args.csv, args.tiny, "; ".join(x for x in (args.notes, threads) if x))
    sync = gg_sync(dev)
    if args.tiny:
        depths, batch, width, size, rounds, reps, warm = [2, 4, 8], 4, 16, 16, 1, 2, 2
        ladder = [0.5]
    else:
        depths = [int(d) for d in args.depths.split(",")]
        batch, width, size, warm = args.batch, args.width, args.size, 3
        ladder = [float(f) for f in args.ladder.split(",") if f.strip()]
    table = []
    for depth in depths:
        net = Net(depth, batch, width, size, dev)
        net.step(net.x, net.y).item()  # eager warm-up: momentum buffers exist from here on
        wl = f"plain CNN depth {depth} w{width} batch {batch} {size}x{size}"
        plain_report, _ = probe(net, None, dev)
        low, how = smallest_budget(net, dev, need_of(plain_report))
        budget = need_of(low)
        phases = {"no budget": Phase(net, None, dev, sync, warm)}
        phases["smallest budget"] = Phase(net, budget, dev, sync, warm)
        for f in ladder:
            b = int(budget + f * (phases["no budget"].need - budget))
            phases[f"budget {f:g} of the way"] = Phase(net, b, dev, sync, warm)
        # Peaks were measured phase by phase above; now every phase's step is timed, alternately.
        drop_plans(dev)
        for ph in phases.values():
            ph.ready()
        plain, small = phases["no budget"], phases["smallest budget"]
        if args.tiny:
            r_, k_ = rounds, reps
        else:
            t = time.perf_counter()
            plain.fn()
            sync()
            one = max(time.perf_counter() - t, 1e-4)
            reps_total = int(max(7, min(200, args.time_budget / one)))
            k_ = max(1, min(5, reps_total // 5))
            r_ = max(3, reps_total // k_)
        time_alternating(list(phases.values()), sync, 1, 1)  # untimed: each plan's arena has grown
        for ph in phases.values():
            ph.times.clear()
        time_alternating(list(phases.values()), sync, r_, k_)
        t0 = plain.step_s()
        for name, ph in phases.items():
            label = f"{wl} {name}"
            act_pred = ph.predicted_peak - net.fixed
            act_meas = ph.measured_peak - net.fixed
            plan_note = ph.report.plan.notes or "no checkpointing"
            res.add(dev, label, "budget_mib", (ph.budget or 0) / MiB, "MiB",
                    notes=("none" if ph.budget is None else plan_note) + (f"; {how}" if ph is small else ""))
            res.add(dev, label, "need_mib", ph.need / MiB, "MiB", notes="plan arena + outputs")
            res.add(dev, label, "predicted_peak_mib", ph.predicted_peak / MiB, "MiB", notes="memory_report")
            res.add(dev, label, "measured_peak_mib", ph.measured_peak / MiB, "MiB",
                    notes="allocator peak over the compiled step's traced and captured calls, from a dropped arena",
                    )
            res.add(dev, label, "replay_peak_mib", ph.replay_peak / MiB, "MiB",
                    notes=f"allocator peak over {warm} replays: measured peak + the captured call's outputs "
                          f"(gradients) that the replay keeps ({(ph.replay_peak - ph.measured_peak) / MiB:.3f} MiB)")
            res.add(dev, label, "predicted_activation_mib", act_pred / MiB, "MiB",
                    notes=f"predicted peak - {net.fixed / MiB:.3f} MiB of parameters, gradients, momentum, "
                          f"running stats and batch")
            res.add(dev, label, "activation_mib", act_meas / MiB, "MiB",
                    notes=f"measured peak - {net.fixed / MiB:.3f} MiB of parameters, gradients, momentum, "
                          f"running stats and batch")
            res.add(dev, label, "recomputed_steps", ph.report.plan.recomputed_steps, "steps")
            res.add(dev, label, "step_ms", ph.step_s() * 1e3, "ms",
                    notes=f"median, alternating rounds with the other budgets; {spread_note(ph.times)}")
            if ph is not plain:
                res.add(dev, label, "step_time_vs_no_budget", ph.step_s() / t0, "x",
                        notes=f"{100 * (ph.step_s() / t0 - 1):+.1f}% step time (target: at most +35%)")
        ok = [ph for ph in phases.values() if ph is not plain and ph.step_s() / t0 - 1 <= TARGET_OVERHEAD]
        best = min(ok, key=lambda ph: ph.need) if ok else None
        if best is not None:
            res.add(dev, wl, "least_budget_within_35pct_mib", best.need / MiB, "MiB",
                    notes=f"the smallest need among the budgets timed whose step time is at most 35% over no "
                          f"budget's ({100 * (best.step_s() / t0 - 1):+.1f}%)")
        table.append(dict(depth=depth, plain=plain, small=small, fixed=net.fixed, best=best,
                          phases=dict(phases)))
        for ph in phases.values():  # the table keeps the figures, not the model
            ph.fn = ph.net = None
        del phases, plain, small, net
        drop_plans(dev)

    ds = [r["depth"] for r in table]
    summary_wl = f"plain CNN w{width} batch {batch} {size}x{size} depths {ds[0]}-{ds[-1]}"
    exps = {}
    for key, col in (("no budget", "plain"), ("smallest budget", "small")):
        for kind, get in (("measured", lambda ph: ph.measured_peak), ("predicted", lambda ph: ph.predicted_peak)):
            acts = [get(r[col]) - r["fixed"] for r in table]
            e_all = slope(ds, acts)
            e_last = slope(ds[-2:], acts[-2:])
            exps[(key, kind)] = (e_all, e_last)
            tag = key.replace(" ", "_")
            res.add(dev, summary_wl, f"growth_exponent_{tag}_{kind}", e_all, "",
                    notes=f"log-log slope of activation memory vs depth over {ds}; "
                          f"between the two deepest {e_last:.3f}")
    over = [r["small"].step_s() / r["plain"].step_s() for r in table]
    res.add(dev, summary_wl, "step_time_vs_no_budget_smallest_budget", statistics.median(over), "x",
            notes="median over depths of " + ", ".join(f"{100 * (o - 1):+.1f}%" for o in over))

    print()
    print(f"plain CNN, {batch}x{width}x{size}x{size}, SGD momentum, on {dev}; MiB; act = peak - params/grads/"
          "momentum/stats/batch")
    print(f"{'depth':>5} | {'peak':>7} {'act':>7} {'ms':>7} | {'budget':>7} {'peak':>7} {'act':>7} {'ms':>7} "
          f"{'over%':>6} | <=35% | ladder (budget MiB: over%)")
    for r in table:
        pl, sm = r["plain"], r["small"]
        lad = ", ".join(f"{ph.budget / MiB:.2f}: {100 * (ph.step_s() / pl.step_s() - 1):+.0f}%"
                        for name, ph in r["phases"].items() if name.startswith("budget "))
        print(f"{r['depth']:5d} | {pl.measured_peak / MiB:7.2f} {(pl.measured_peak - r['fixed']) / MiB:7.2f} "
              f"{pl.step_s() * 1e3:7.2f} | {sm.budget / MiB:7.2f} {sm.measured_peak / MiB:7.2f} "
              f"{(sm.measured_peak - r['fixed']) / MiB:7.2f} {sm.step_s() * 1e3:7.2f} "
              f"{100 * (sm.step_s() / pl.step_s() - 1):+6.1f} | "
              + (f"{r['best'].need / MiB:5.2f}" if r["best"] is not None else " none") + f" | {lad}")
    for (key, kind), (e_all, e_last) in exps.items():
        print(f"growth exponent, {key:15s} ({kind:9s}): {e_all:.3f} over all depths, {e_last:.3f} between the "
              f"two deepest")
    print("wrote", res.write())


if __name__ == "__main__":
    main()
