"""ResNet-18 (CIFAR variant) training steps with and without a memory budget: the planner's
predicted peak, the allocator's measured peak and the median step time, at batch 32 and 128,
with PyTorch's peak and step time in the same process where it is importable.

    python benchmarks/resnet_memory_budget.py --device cuda      # the GPU figures
    python benchmarks/resnet_memory_budget.py --tiny             # CI: proves it runs
A budget is an allocator limit (glassgrad.set_memory_limit): over it, the step's plan recomputes
activations in the backward pass (checkpointing) with as few segments as fit.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import numpy_state, Results, torch_or_none

import glassgrad as gg
from glassgrad import _C

MiB = 2 ** 20


def run(dev, batch, width, limit, steps, res, torch_peaks):
    gg.set_memory_limit(None, device=dev)
    gg.clear_plan_cache()  # cached plans (and their CUDA graphs' buffers) from an earlier run
    import gc
    gc.collect()
    _C.empty_cache(dev)
    gg.manual_seed(0)
    model = gg.models.ResNet18(width=width).to(dev)
    opt = gg.SGD(model.parameters(), lr=0.01, momentum=0.9)
    rng = np.random.default_rng(0)
    x = gg.tensor(rng.random((batch, 3, 32, 32), dtype=np.float32), device=dev)
    y = gg.tensor(rng.integers(0, 10, batch), device=dev)
    sync = gg.cuda.synchronize if dev.startswith("cuda") else (lambda: None)

    def step():
        loss = gg.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss

    step().item()
    if limit:
        gg.set_memory_limit(limit, device=dev)
    report = gg.memory_report(step, device=dev)
    gg.reset_peak_memory(dev)
    times = []
    for _ in range(steps):
        sync()
        t = time.perf_counter()
        step().item()
        times.append(time.perf_counter() - t)
    measured = gg.memory_stats(dev)["peak"]
    label = f"ResNet-18 w{width} batch {batch}" + (f" limit {limit / MiB:.0f} MiB" if limit else "")
    tp = torch_peaks.get(batch)
    res.add(dev, label, "predicted_peak_mib", report.predicted_peak / MiB, "MiB",
            ratio=(report.predicted_peak / tp) if tp else None, notes=report.plan.notes or "no checkpointing")
    res.add(dev, label, "measured_peak_mib", measured / MiB, "MiB", ratio=(measured / tp) if tp else None)
    res.add(dev, label, "step_ms", statistics.median(times) * 1e3, "ms",
            notes=f"median of {steps}; recomputed steps {report.plan.recomputed_steps}")
    gg.set_memory_limit(None, device=dev)
    return statistics.median(times), measured


def torch_reference(torch, dev, batch, width, steps, res):
    tdev = "cuda" if dev.startswith("cuda") else "cpu"
    import workloads as W
    spec = W.resnet18(width)
    gg.manual_seed(0)
    state = numpy_state(W.gg_model(spec))
    model = W.torch_model(torch, spec, state, tdev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.random((batch, 3, 32, 32), dtype=np.float32)).to(tdev)
    y = torch.from_numpy(rng.integers(0, 10, batch)).to(tdev)
    F = torch.nn.functional

    def step():
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss.item()

    step()
    peak = None
    if tdev == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    times = []
    for _ in range(steps):
        t = time.perf_counter()
        step()
        times.append(time.perf_counter() - t)
    label = f"ResNet-18 w{width} batch {batch}"
    if tdev == "cuda":
        peak = torch.cuda.max_memory_allocated()
        res.add(dev, label, "measured_peak_mib", peak / MiB, "MiB", f"torch {torch.__version__}")
    res.add(dev, label, "step_ms", statistics.median(times) * 1e3, "ms", f"torch {torch.__version__}",
            notes="eager, TF32 off")
    return peak


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default="cpu")
    p.add_argument("--tiny", action="store_true")
    p.add_argument("--no-torch", action="store_true")
    p.add_argument("--csv", default=None)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--batch-sizes", default="32,128")
    p.add_argument("--limit", default="1GiB", help="the budget (an allocator limit) for the second run")
    args = p.parse_args()
    dev = gg._device.normalize(args.device)
    res = Results("resnet_memory_budget", args.csv)
    width = 4 if args.tiny else 64
    batches = [4] if args.tiny else [int(b) for b in args.batch_sizes.split(",")]
    steps = 2 if args.tiny else args.steps
    torch = None if args.no_torch else torch_or_none()
    if torch is not None and dev.startswith("cuda"):
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    torch_peaks = {}
    for batch in batches:
        if torch is not None:
            torch_peaks[batch] = torch_reference(torch, dev, batch, width, steps, res)
        t_plain, peak_plain = run(dev, batch, width, 0, steps, res, torch_peaks)
        limit = _C.parse_bytes(args.limit) if not args.tiny else int(peak_plain * 0.8)
        try:
            t_budget, _ = run(dev, batch, width, limit, steps, res, torch_peaks)
            res.add(dev, f"ResNet-18 w{width} batch {batch}", "budget_time_overhead", t_budget / t_plain - 1, "x",
                    notes=f"limit {limit / MiB:.0f} MiB vs none")
        except gg.OutOfMemoryError as e:
            res.add(dev, f"ResNet-18 w{width} batch {batch}", "budget_fits", 0, "", notes=str(e).splitlines()[0])
    print("wrote", res.write())


if __name__ == "__main__":
    main()
