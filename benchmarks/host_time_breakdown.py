"""A plain training loop against glassgrad.compile, and where the plain loop's host time goes.

The step is benchmarks/workloads.py's (cross_entropy, backward, SGD step, zero_grad) with the
batch made from NumPy arrays every step, as a training script's loop does, and the loss read
with .item(). The two loops are timed in alternating rounds (common.alternating_medians); then
glassgrad.debug.host_time_breakdown() times the plain loop's host phases (docs/debugging.md,
"Where a step's host time goes").

    python benchmarks/host_time_breakdown.py --device cpu --threads 1           # SimpleCNN, batch 32
    python benchmarks/host_time_breakdown.py --device cuda --model resnet18     # the whole GPU
    python benchmarks/host_time_breakdown.py --tiny                             # seconds (CI)
    python benchmarks/host_time_breakdown.py --device cpu --threads 1 --batch 1 --phases   # the step's parts
    python benchmarks/host_time_breakdown.py --device cpu --threads 1 --batch 1 --phases --model resnet18 --width 8
    python benchmarks/host_time_breakdown.py --device cpu --threads 1 --item-before-backward   # loss.item() first

Rows: step_ms for "glassgrad (plain loop)" and "glassgrad.compile" (the plain row's notes give
the ratio plain / compile; the device synchronized after every step), pipelined_step_ms for both
(the steps back to back, each ending with .item() as a training loop's, nothing else
synchronizing: the host's next step may overlap the device's work), and one host_<phase>_ms row per phase of the plain loop's step, with
host_graph_ms (the model graph's share) and host_wall_ms: each the median over the steps of that
figure (so on a busy machine the rows need not add up to host_wall_ms). benchmarks/results/host_time_breakdown.csv.

--phases adds one phase_<part>_us row per part of the plain step as a script sees it: input (the
batch made from NumPy), forward, loss, backward, step_host (optimizer.step less its kernels' time,
the launch phase), zero_grad, item, and host (the whole step less its kernels): the 20th
percentile over the steps, the figure least disturbed by other processes on a shared machine.
At batch 1 the kernels are short and these are the host costs a GPU's plain loop is bound by.

--item-before-backward reads the loss with .item() before backward() (a script printing its loss
before stepping): the forward's plan runs first and the backward plan after it, in both loops
(docs/architecture.md, "Values realized before backward"). The workload label says so.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads as W
from common import Results, add_common_args, alternating_medians, apply_threads, back_to_back, gg_device, gg_sync

import glassgrad as gg


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(p)
    p.add_argument("--model", choices=["simplecnn", "resnet18"], default="simplecnn")
    p.add_argument("--width", type=int, default=64,
                   help="ResNet-18's first-stage width (64: the real model; 8: its graph at a fraction of the kernels)")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--steps", type=int, default=20, help="steps per round and loop")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--phases", action="store_true", help="also time the parts of the plain step (phase_* rows)")
    p.add_argument("--item-before-backward", action="store_true",
                   help="read the loss with .item() before backward() in every step")
    args = p.parse_args(argv)
    dev = gg_device(args.device)
    gg.set_default_device(dev)
    spec = W.SIMPLE_CNN if args.model == "simplecnn" else W.resnet18(4 if args.tiny else args.width)
    batch = 2 if args.tiny else args.batch
    rounds, steps, warmup = (1, 2, 1) if args.tiny else (args.rounds, args.steps, args.warmup)
    threads = apply_threads(args.threads)
    res = Results("host_time_breakdown", args.csv, tiny=args.tiny, notes="; ".join(n for n in (threads, args.notes) if n))
    xn, yn = W.random_batch(spec, batch)

    loops = {}
    for name, compiled in (("glassgrad (plain loop)", False), ("glassgrad.compile", True)):
        gg.manual_seed(0)
        step = W.gg_step(spec, W.gg_model(spec), item_before_backward=args.item_before_backward)
        run = gg.compile(step) if compiled else step

        def one(run=run):
            run(gg.tensor(xn), gg.tensor(yn)).item()

        loops[name] = one
    sync = gg_sync(dev)
    med, _ = alternating_medians({k: (fn, sync) for k, fn in loops.items()}, rounds, steps, warmup)
    wl = f"{spec.label} train step batch {batch}" + (", item before backward" * args.item_before_backward) + (f", {gg.get_num_threads()} thread"
                                                     f"{'s' if gg.get_num_threads() != 1 else ''}"
                                                     if dev == "cpu" else "")
    plain, compiled = med["glassgrad (plain loop)"], med["glassgrad.compile"]
    res.add(dev, wl, "step_ms", plain * 1e3, "ms", "glassgrad (plain loop)",
            notes=f"plain / compile {plain / compiled:.3f}")
    res.add(dev, wl, "step_ms", compiled * 1e3, "ms", "glassgrad.compile")
    # The steps back to back, as a training script runs them: each ends with loss.item() and
    # nothing else synchronizes (common.back_to_back), so on a GPU the host may record the next
    # step while the device still runs the backward and the updates of this one (docs/cuda.md,
    # "Early host reads"). step_ms above synchronizes the device after every step.
    piped = {name: [] for name in loops}
    for _ in range(rounds):
        for name, fn in loops.items():
            piped[name].append(back_to_back(fn, sync, max(steps, 1)))
    plain_p, compiled_p = (statistics.median(piped[name]) for name in ("glassgrad (plain loop)", "glassgrad.compile"))
    how = f"median of {rounds} alternating rounds of {max(steps, 1)} steps back to back"
    res.add(dev, wl, "pipelined_step_ms", plain_p * 1e3, "ms", "glassgrad (plain loop)",
            notes=f"plain / compile {plain_p / compiled_p:.3f}; {how}")
    res.add(dev, wl, "pipelined_step_ms", compiled_p * 1e3, "ms", "glassgrad.compile", notes=how)

    # One block per step, and the median of each phase over the steps: on a shared machine a step
    # the scheduler preempts adds its whole time slice to one phase, which a mean would spread.
    per_step = []
    for _ in range(max(steps * rounds, 1)):
        with gg.debug.host_time_breakdown(steps=1) as bd:
            loops["glassgrad (plain loop)"]()
            sync()
        per_step.append(bd.per_step_ms())
    print(bd)
    for phase in per_step[0]:
        res.add(dev, wl, f"host_{phase}_ms", statistics.median(s[phase] for s in per_step), "ms",
                "glassgrad (plain loop)", notes=f"median of {len(per_step)} steps")
    if args.phases:
        for part, us in step_parts(spec, xn, yn, steps * rounds, warmup, sync).items():
            res.add(dev, wl, f"phase_{part}_us", us, "us", "glassgrad (plain loop)",
                    notes=f"20th percentile of {max(steps * rounds, 1)} steps")
    print("wrote", res.write())


PARTS = ("input", "forward", "loss", "backward", "step_host", "zero_grad", "item", "host")


def step_parts(spec, xn, yn, steps: int, warmup: int, sync) -> dict:
    """{part: microseconds} of the plain step (PARTS, the module doc): the step of workloads.gg_step
    written out, timed part by part, the kernels' time (the launch phase) taken out of the
    optimizer's step and the whole step."""
    gg.manual_seed(0)
    model = W.gg_model(spec)
    opt = W.gg_step(spec, model).optimizer
    clock = time.perf_counter
    times = {part: [] for part in PARTS}
    was_on = gg._C.host_timing()
    gg._C.set_host_timing(True)
    try:
        for i in range(warmup + max(steps, 1)):
            launch0 = gg._C.host_times()["launch"][0]
            t0 = clock()
            x, y = gg.tensor(xn), gg.tensor(yn)
            t1 = clock()
            out = model(x)
            t2 = clock()
            loss = gg.cross_entropy(out, y)
            t3 = clock()
            loss.backward()
            t4 = clock()
            opt.step()
            t5 = clock()
            opt.zero_grad()
            t6 = clock()
            loss.item()
            sync()
            t7 = clock()
            launch = gg._C.host_times()["launch"][0] - launch0
            if i < warmup:
                continue
            for part, sec in zip(PARTS, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4 - launch, t6 - t5, t7 - t6,
                                         t7 - t0 - launch)):
                times[part].append(sec * 1e6)
    finally:
        gg._C.set_host_timing(was_on)
    return {part: sorted(v)[len(v) // 5] for part, v in times.items()}


if __name__ == "__main__":
    main()
