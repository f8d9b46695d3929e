"""Where a training step's GPU time goes: glassgrad's kernels per step, timed by CUPTI through
torch.profiler (which records every kernel of the process, ours included), next to the wall time
of the step. When the kernels' sum is close to the wall time the step is bound by kernels;
when it is far below, by launches or the host.

    python benchmarks/profile_kernels.py --device cuda [--model simplecnn|resnet18|gpt] [--batch 32]

--model gpt profiles benchmarks/gpt_workload.py's GPT step (6 layers, 6 heads, 384 features, block
256, batch --batch, AdamW, dropout 0), where the matrix products decide the time.

Needs PyTorch with CUDA (for the profiler) and a CUDA build of glassgrad; prints a table and
appends rows (kernel, microseconds per step, share) to benchmarks/results/profile_kernels.csv.
"""
from __future__ import annotations

import argparse
import collections
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads as W
from common import numpy_state, Results, torch_or_none

import glassgrad as gg


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default="cuda")
    p.add_argument("--model", choices=["simplecnn", "resnet18", "gpt"], default="simplecnn")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--steps", type=int, default=20, help="profiled steps")
    p.add_argument("--top", type=int, default=15)
    p.add_argument("--no-compile", action="store_true", help="profile the plain (uncompiled) loop")
    p.add_argument("--sequence", action="store_true",
                   help="also print one step's kernels in launch order, each the median over the profiled steps")
    p.add_argument("--csv", default=None)
    args = p.parse_args(argv)
    torch = torch_or_none()
    if torch is None or not torch.cuda.is_available() or not args.device.startswith("cuda"):
        print("profile_kernels.py: needs PyTorch with CUDA (its profiler) and --device cuda; nothing to do")
        return 0
    gg.set_default_device(args.device)
    if args.model == "gpt":
        step, x, y, label = gpt_step(args.batch)
    else:
        spec = W.SIMPLE_CNN if args.model == "simplecnn" else W.RESNET18
        model = W.gg_model(spec)
        xn, yn = W.random_batch(spec, args.batch)
        x, y = gg.tensor(xn), gg.tensor(yn)
        step, label = W.gg_step(spec, model), spec.label
    gg.realize(x, y)
    run = step if args.no_compile else gg.compile(step)
    for _ in range(5):  # plan, warm runs, CUDA-graph capture
        run(x, y)
    gg.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(args.steps):
        loss = run(x, y)
    loss.item()
    gg.cuda.synchronize()
    wall_us = (time.perf_counter() - start) / args.steps * 1e6

    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(args.steps):
            loss = run(x, y)
        loss.item()
        gg.cuda.synchronize()
    per_kernel = collections.defaultdict(float)
    counts = collections.Counter()
    for ev in prof.events():
        if ev.device_type.name != "CUDA":
            continue
        name = ev.name
        per_kernel[name] += ev.device_time_total if hasattr(ev, "device_time_total") else ev.cuda_time_total
        counts[name] += 1
    total = sum(per_kernel.values()) / args.steps
    mode = "plain" if args.no_compile else "compile"
    res = Results("profile_kernels", args.csv)
    wl = f"{label} batch {args.batch} {mode} step"
    print(f"{wl}: wall {wall_us:.1f} us/step, kernels {total:.1f} us/step "
          f"({100 * total / wall_us:.0f} % of wall), {sum(counts.values()) / args.steps:.0f} launches/step")
    res.add(args.device, wl, "wall_us_per_step", wall_us, "us")
    res.add(args.device, wl, "kernel_us_per_step", total, "us")
    ranked = sorted(per_kernel.items(), key=lambda kv: -kv[1])
    print(f"{'kernel':58s} {'us/step':>9s} {'calls':>6s} {'share':>6s}")
    for name, us in ranked[:args.top]:
        us_step = us / args.steps
        print(f"{name[:58]:58s} {us_step:9.1f} {counts[name] / args.steps:6.1f} {100 * us_step / total:5.1f}%")
        res.add(args.device, f"{wl}: {name[:80]}", "us_per_step", us_step, "us",
                notes=f"{counts[name] / args.steps:.1f} calls/step, {100 * us_step / total:.1f} % of kernel time")
    if args.sequence:
        print_sequence(prof, args.steps)
    res.write()
    return 0


def gpt_step(batch: int):
    """gpt_workload.py's GPT training step as a plain function, its batch and its label."""
    import numpy as np

    import gpt_workload as G
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                    "examples-and-tutorials"))
    import char_gpt
    s = dict(layers=6, heads=6, dim=384, block=256, batch=batch)
    gg.manual_seed(0)
    state = numpy_state(char_gpt.GPT(G.VOCAB, s["block"], s["layers"], s["heads"], s["dim"], 0.0))
    rng = np.random.default_rng(0)
    xn, yn = (rng.integers(0, G.VOCAB, (batch, s["block"])).astype(np.int64) for _ in range(2))
    step = G.gg_step_function(gg, char_gpt, s, 0.0, state)
    return step, gg.tensor(xn), gg.tensor(yn), f"GPT 6x384 block {s['block']}"


def print_sequence(prof, steps: int) -> None:
    """The kernels of one step in launch order (a layer's kernels next to each other), each with
    the median of its duration over the profiled steps at the same position."""
    import statistics
    evs = [ev for ev in prof.events() if ev.device_type.name == "CUDA"]
    every = collections.Counter(ev.name for ev in evs)  # the reading of the last loss runs once, not per step
    evs = sorted((ev for ev in evs if every[ev.name] >= steps), key=lambda e: e.time_range.start)
    per_step = len(evs) // steps if steps else 0
    if per_step == 0 or len(evs) % steps:
        print(f"kernel sequence: {len(evs)} kernels over {steps} steps do not split into equal steps")
        return
    print(f"one step's {per_step} kernels in launch order (median us over {steps} steps):")
    for i in range(per_step):
        durations = [evs[k * per_step + i].time_range.elapsed_us() for k in range(steps)]
        print(f"  {i:3d} {evs[i].name[:70]:70s} {statistics.median(durations):8.2f}")


if __name__ == "__main__":
    sys.exit(main())
