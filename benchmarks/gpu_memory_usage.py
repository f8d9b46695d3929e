"""Peak memory of one training step, per model and batch size: what glassgrad's planner predicts,
what its allocator measures, and what PyTorch measures for the same step.

    python benchmarks/gpu_memory_usage.py                  # CPU, SimpleCNN and ResNet-18, batch 8..256
    python benchmarks/gpu_memory_usage.py --device cuda    # on the GPU
    python benchmarks/gpu_memory_usage.py --tiny           # small sizes, seconds (CI)

For each (model, batch) a fresh model takes one warm-up step (compiles the step's plan, creates
the optimizer state), then the cached arena is released (glassgrad._C.empty_cache), the peak is
reset and one more step runs. Rows (bytes):

  predicted_peak_bytes   the step's Plan: arena + inputs + outputs (Plan.predicted_peak_bytes)
  arena_bytes            the step's Plan: the one arena holding every intermediate and workspace
  held_before_bytes      allocator: bytes held when the step starts (parameters, buffers,
                         optimizer state, the batch: the plan's inputs)
  measured_peak_bytes    allocator: memory_stats()['peak'] over the step (held bytes included);
                         ratio column = glassgrad / PyTorch
  PyTorch (same weights, same optimizer, same batch):
    CUDA: torch.cuda.max_memory_allocated() over the step (reset before; held bytes included).
    CPU:  PyTorch keeps no CPU peak statistics. The figure is the bytes its tensors hold before
          the step (parameters, buffers, optimizer state, batch) plus the highest running total
          of the allocations minus frees that the CPU allocator reports to torch.profiler during
          the step. Memory that a library takes behind the allocator's back (e.g. oneDNN
          scratch space) is not seen: treat it as a lower bound.
"""
from __future__ import annotations

import argparse
import gc
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads as W
from common import (Results, add_common_args, apply_threads, gg_device, gg_sync, torch_name,
                    torch_or_none, torch_setup)

import glassgrad as gg


def glassgrad_step_memory(spec: W.ModelSpec, batch: int, dev: str):
    sync = gg_sync(dev)
    model, x, y, data = W.gg_setup(spec, batch)
    step = W.gg_step(spec, model)
    step(x, y)  # warm-up: plan compiled, momentum buffers created
    sync()
    gg._C.empty_cache(dev)  # the cached arena goes back: the measured step allocates its own
    held = gg.memory_stats(dev)["current"]
    gg.reset_peak_memory(dev)
    loss = step(x, y)
    sync()
    peak = gg.memory_stats(dev)["peak"]
    plan = gg._C.last_plan()
    out = {
        "predicted_peak_bytes": plan.predicted_peak_bytes(),
        "arena_bytes": plan.arena_bytes.get(dev, 0),
        "held_before_bytes": held,
        "measured_peak_bytes": peak,
        "loss": loss.item(),
    }
    del model, step, loss, x, y, plan
    gc.collect()
    gg._C.empty_cache(dev)
    return out, data


def torch_step_memory(torch, spec: W.ModelSpec, dev: str, data: W.StepData):
    tdev, sync = torch_setup(torch, dev)
    model, step, x, y = W.torch_twin(torch, spec, data, tdev)
    step(x, y)  # warm-up: momentum buffers created
    peak, loss = W.torch_step_peak(torch, model, step, x, y, tdev, sync)
    out = {"measured_peak_bytes": peak, "loss": loss, "how": W.torch_peak_how(tdev)}
    del model, step, x, y
    gc.collect()
    if tdev.startswith("cuda"):
        torch.cuda.empty_cache()
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(p)
    p.add_argument("--models", default="SimpleCNN,ResNet18")
    p.add_argument("--batch-sizes", default="8,16,32,64,128,256")
    args = p.parse_args(argv)
    dev = gg_device(args.device)
    torch = None if args.no_torch else torch_or_none()
    threads = apply_threads(args.threads, torch)
    res = Results("gpu_memory_usage", args.csv, args.tiny, "; ".join(x for x in (args.notes, threads) if x))
    batches = [2, 4] if args.tiny else [int(b) for b in args.batch_sizes.split(",")]
    specs = []
    for name in args.models.split(","):
        if name == "SimpleCNN":
            specs.append(W.SIMPLE_CNN)
        elif name == "ResNet18":
            specs.append(W.resnet18(4 if args.tiny else 64))
        else:
            p.error(f"unknown model {name} (SimpleCNN, ResNet18)")
    for spec in specs:
        for batch in batches:
            workload = f"{spec.label} train step batch {batch}"
            g, data = glassgrad_step_memory(spec, batch, dev)
            t = torch_step_memory(torch, spec, dev, data) if torch is not None else None
            accuracy = g["measured_peak_bytes"] / g["predicted_peak_bytes"] if g["predicted_peak_bytes"] else 0.0
            for metric in ("predicted_peak_bytes", "arena_bytes", "held_before_bytes"):
                res.add(dev, workload, metric, g[metric], "B")
            ratio = g["measured_peak_bytes"] / t["measured_peak_bytes"] if t else None
            res.add(dev, workload, "measured_peak_bytes", g["measured_peak_bytes"], "B", ratio=ratio,
                    notes=f"measured/predicted {accuracy:.3f}; loss {g['loss']:.4f}")
            if t is not None:
                res.add(dev, workload, "measured_peak_bytes", t["measured_peak_bytes"], "B", torch_name(torch),
                        notes=f"{t['how']}; loss {t['loss']:.4f}")
    print("wrote", res.write())


if __name__ == "__main__":
    main()
