"""A plain training loop against glassgrad.compile, and where the plain loop's host time goes.

The step is benchmarks/workloads.py's (cross_entropy, backward, SGD step, zero_grad) with the
batch made from NumPy arrays every step, as a training script's loop does, and the loss read
with .item(). The two loops are timed in alternating rounds (common.alternating_medians); then
glassgrad.debug.host_time_breakdown() times the plain loop's host phases (docs/debugging.md,
"Where a step's host time goes").

    python benchmarks/host_time_breakdown.py --device cpu --threads 1           # SimpleCNN, batch 32
    python benchmarks/host_time_breakdown.py --device cuda --model resnet18     # the whole GPU
    python benchmarks/host_time_breakdown.py --tiny                             # seconds (CI)

Rows: step_ms for "glassgrad (plain loop)" and "glassgrad.compile" (the plain row's notes give
the ratio plain / compile), and one host_<phase>_ms row per phase of the plain loop's step, with
host_graph_ms (the model graph's share) and host_wall_ms: each the median over the steps of that
figure (so on a busy machine the rows need not add up to host_wall_ms). benchmarks/results/host_time_breakdown.csv.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads as W
from common import Results, add_common_args, alternating_medians, apply_threads, gg_device, gg_sync

import glassgrad as gg


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(p)
    p.add_argument("--model", choices=["simplecnn", "resnet18"], default="simplecnn")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--steps", type=int, default=20, help="steps per round and loop")
    p.add_argument("--warmup", type=int, default=5)
    args = p.parse_args(argv)
    dev = gg_device(args.device)
    gg.set_default_device(dev)
    spec = W.SIMPLE_CNN if args.model == "simplecnn" else (W.resnet18(4) if args.tiny else W.RESNET18)
    batch = 2 if args.tiny else args.batch
    rounds, steps, warmup = (1, 2, 1) if args.tiny else (args.rounds, args.steps, args.warmup)
    threads = apply_threads(args.threads)
    res = Results("host_time_breakdown", args.csv, tiny=args.tiny, notes="; ".join(n for n in (threads, args.notes) if n))
    xn, yn = W.random_batch(spec, batch)

    loops = {}
    for name, compiled in (("glassgrad (plain loop)", False), ("glassgrad.compile", True)):
        gg.manual_seed(0)
        step = W.gg_step(spec, W.gg_model(spec))
        run = gg.compile(step) if compiled else step

        def one(run=run):
            run(gg.tensor(xn), gg.tensor(yn)).item()

        loops[name] = one
    sync = gg_sync(dev)
    med, _ = alternating_medians({k: (fn, sync) for k, fn in loops.items()}, rounds, steps, warmup)
    wl = f"{spec.label} train step batch {batch}" + (f", {gg.get_num_threads()} thread"
                                                     f"{'s' if gg.get_num_threads() != 1 else ''}"
                                                     if dev == "cpu" else "")
    plain, compiled = med["glassgrad (plain loop)"], med["glassgrad.compile"]
    res.add(dev, wl, "step_ms", plain * 1e3, "ms", "glassgrad (plain loop)",
            notes=f"plain / compile {plain / compiled:.3f}")
    res.add(dev, wl, "step_ms", compiled * 1e3, "ms", "glassgrad.compile")

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
    print("wrote", res.write())


if __name__ == "__main__":
    main()
