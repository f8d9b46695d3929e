"""One training step, glassgrad.compile against PyTorch eager, timed in alternating rounds so that
clock and thermal drift over the run fall on both frameworks alike (end_to_end.py times all of
glassgrad's steps first, then PyTorch's).

    python benchmarks/step_time_interleaved.py --device cuda [--model resnet18] [--batch 32]
    python benchmarks/step_time_interleaved.py --device cpu --threads 1 --rounds 3 --steps 2 --warmup 2

On the CPU, --threads N sets both libraries' threads and the workload names the count (", N
threads"), so runs with 1 and 2 threads stand side by side in the report.

Two figures per framework: the median synchronized step (synchronize, step, synchronize: what one
step costs on its own) and the pipelined step (many steps back to back, one synchronize: what
training throughput sees). Rows go to benchmarks/results/step_time_interleaved.csv, with the
roofline columns (roofline.py): the step's FLOPs and bytes by direct count over its convolutions
and linear layers, rates, and fractions of the device's peaks (the CPU's measured at the start on
the run's thread count).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import roofline as R
import workloads as W
from common import (Results, apply_threads, back_to_back, gg_device, gg_sync, time_repeats, torch_name,
                    torch_or_none, torch_setup)

import glassgrad as gg


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default="cuda")
    p.add_argument("--model", choices=["simplecnn", "resnet18"], default="resnet18")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--steps", type=int, default=20, help="steps per round and framework")
    p.add_argument("--warmup", type=int, default=5, help="untimed steps per framework first")
    p.add_argument("--threads", type=int, default=0, help="CPU threads for both libraries (default: their own)")
    p.add_argument("--tiny", action="store_true")
    p.add_argument("--no-torch", action="store_true")
    p.add_argument("--csv", default=None)
    args = p.parse_args(argv)
    dev = gg_device(args.device)
    spec = W.SIMPLE_CNN if args.model == "simplecnn" else (W.resnet18(4) if args.tiny else W.RESNET18)
    batch = 2 if args.tiny else args.batch
    rounds, steps = (1, 2) if args.tiny else (args.rounds, args.steps)
    torch = None if args.no_torch else torch_or_none()
    threads = apply_threads(args.threads, torch)
    res = Results("step_time_interleaved", args.csv, tiny=args.tiny, notes=threads)

    model, x, y, data = W.gg_setup(spec, batch)
    run = gg.compile(W.gg_step(spec, model))
    gsync = gg_sync(dev)
    contenders = {"glassgrad.compile": (lambda: run(x, y), gsync)}
    if torch is not None:
        tdev, tsync = torch_setup(torch, dev)
        _, tstep, tx, ty = W.torch_twin(torch, spec, data, tdev)
        contenders[torch_name(torch)] = (lambda: tstep(tx, ty), tsync)
    for fn, sync in contenders.values():  # warm-up: plans, CUDA graphs, cuDNN autotuning
        for _ in range(args.warmup):
            fn()
        sync()
    sync_times = {k: [] for k in contenders}
    pipe_times = {k: [] for k in contenders}
    for _ in range(rounds):
        for name, (fn, sync) in contenders.items():
            sync_times[name] += time_repeats(fn, repeats=steps, warmup=0, sync=sync)
            pipe_times[name].append(back_to_back(fn, sync, steps))
    peak = R.device_peak(dev)
    flop, nbytes = R.step_counts(model, (batch,) + spec.input_shape)
    workload = f"{spec.label} train step batch {batch}"
    if args.threads and dev == "cpu":
        workload += f", {args.threads} thread" + ("s" if args.threads > 1 else "")
    tname = next((k for k in contenders if not k.startswith("glassgrad")), None)
    for name in contenders:
        s_med, p_med = statistics.median(sync_times[name]), statistics.median(pipe_times[name])
        is_torch = name == tname
        s_ratio = None if is_torch or tname is None else s_med / statistics.median(sync_times[tname])
        p_ratio = None if is_torch or tname is None else p_med / statistics.median(pipe_times[tname])
        res.add(dev, workload, "synchronized_step_ms", s_med * 1e3, "ms", name, ratio=s_ratio,
                notes=f"median of {len(sync_times[name])} steps in {rounds} alternating rounds; {peak.note()}",
                roofline=R.columns(flop, s_med, peak, nbytes))
        res.add(dev, workload, "pipelined_step_ms", p_med * 1e3, "ms", name, ratio=p_ratio,
                notes=f"median of {rounds} rounds of {steps} back-to-back steps; {peak.note()}",
                roofline=R.columns(flop, p_med, peak, nbytes))
    res.write()
    return 0


if __name__ == "__main__":
    sys.exit(main())
