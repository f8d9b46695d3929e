"""End-to-end training time and peak memory, glassgrad (plain loop and glassgrad.compile) against
PyTorch eager in the same process, with the same initial weights, data and hyper-parameters.

  SimpleCNN epoch: the seed's model for one epoch of Fashion-MNIST (batch 32 and 256; random
    images when the data set is not installed), plain SGD lr 0.01; wall time of the epoch,
    test accuracy after it, allocator peak over the epoch.
  ResNet-18 step: the CIFAR variant on random [N, 3, 32, 32] batches (batch 32 and 128), SGD
    momentum 0.9; median step time over --steps steps after warm-up (synchronized before and
    after each step), and the peak bytes of one step (PyTorch: see gpu_memory_usage.py for how
    its peak is taken on the CPU).

    python benchmarks/end_to_end.py                      # full epochs and steps, CPU
    python benchmarks/end_to_end.py --device cuda        # on the GPU (PyTorch with TF32 off)
    python benchmarks/end_to_end.py --tiny               # a few steps, to prove it runs (CI)
    python benchmarks/end_to_end.py --only resnet        # just the ResNet-18 steps

ratio_vs_torch on glassgrad's rows = glassgrad's value / PyTorch's (< 1: faster or smaller).
"""
from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads as W
from common import (numpy_state, Results, add_common_args, apply_threads, gg_device, gg_sync, spread_note,
                    time_repeats, torch_name, torch_or_none, torch_setup)

import glassgrad as gg


# ---------------------------------------------------------------------------------------------
# SimpleCNN: one epoch


def load_data(limit: int):
    try:
        X, y, Xt, yt = gg.data.load_fashion_mnist()
        source = "Fashion-MNIST"
    except gg.data.DatasetNotFoundError:
        rng = np.random.default_rng(0)  # no data installed: random images, timing only
        X, y = rng.integers(0, 255, (60000, 1, 28, 28), dtype=np.uint8), rng.integers(0, 10, 60000)
        Xt, yt = X[:10000], y[:10000]
        source = "random images (Fashion-MNIST not installed)"
    if limit:
        X, y = X[:limit], y[:limit]
    return (X.astype(np.float32) / 255.0, y.astype(np.int64), Xt.astype(np.float32) / 255.0, yt.astype(np.int64),
            source)


def glassgrad_epoch(model, X, y, batch, compiled: bool, dev: str, first_steps=None):
    """One epoch: (seconds, last loss, allocator peak). With first_steps (a list), also appends
    the seconds of the first four steps (the trace, plan, autotuning and graph capture), the
    device synchronized after them."""
    step = W.gg_step(W.SIMPLE_CNN, model)
    run = gg.compile(step) if compiled else step
    sync = gg_sync(dev)
    gg.realize(X, y)
    sync()
    gg._C.empty_cache(dev)  # drop the arena an earlier run (e.g. the accuracy pass) left cached
    gg.reset_peak_memory(dev)
    start = time.perf_counter()
    loss = None
    for n, i in enumerate(range(0, X.shape[0] - batch + 1, batch)):
        loss = run(X[i:i + batch], y[i:i + batch])
        if first_steps is not None and n == 3:
            sync()
            first_steps.append(time.perf_counter() - start)
    last = loss.item()
    sync()
    return time.perf_counter() - start, last, gg.memory_stats(dev)["peak"]


def glassgrad_accuracy(model, Xt, yt):
    model.eval()
    correct = 0
    with gg.no_grad():
        for i in range(0, Xt.shape[0], 1000):
            correct += int((model(Xt[i:i + 1000]).argmax(dim=1) == yt[i:i + 1000]).float().sum().item())
    model.train()
    return correct / Xt.shape[0]


def torch_epoch(torch, model, X, y, batch, tdev, sync):
    step = W.torch_step(torch, W.SIMPLE_CNN, model)
    sync()
    if tdev.startswith("cuda"):
        torch.cuda.reset_peak_memory_stats(tdev)
    start = time.perf_counter()
    loss = None
    for i in range(0, X.shape[0] - batch + 1, batch):
        loss = step(X[i:i + batch], y[i:i + batch])
    last = loss.item()
    sync()
    elapsed = time.perf_counter() - start
    peak = torch.cuda.max_memory_allocated(tdev) if tdev.startswith("cuda") else None
    return elapsed, last, peak


def torch_accuracy(torch, model, Xt, yt):
    model.eval()
    with torch.no_grad():
        correct = sum(int((model(Xt[i:i + 1000]).argmax(1) == yt[i:i + 1000]).sum()) for i in range(0, len(Xt), 1000))
    model.train()
    return correct / len(Xt)


def simple_cnn_epochs(args, dev, torch, res):
    limit = 256 if args.tiny else args.limit
    Xn, yn, Xtn, ytn, source = load_data(limit)
    if args.tiny:
        Xtn, ytn = Xtn[:500], ytn[:500]
    X, y, Xt, yt = gg.tensor(Xn), gg.tensor(yn), gg.tensor(Xtn), gg.tensor(ytn)
    for batch in [int(b) for b in args.batch_sizes.split(",")]:
        workload = f"SimpleCNN epoch batch {batch} ({Xn.shape[0]} images)"
        gg.manual_seed(0)
        init = numpy_state(gg.models.SimpleCNN())
        rows = []
        for compiled in (False, True):
            model = gg.models.SimpleCNN()
            model.load_state_dict(init)
            t, last, peak = glassgrad_epoch(model, X, y, batch, compiled, dev)
            acc = glassgrad_accuracy(model, Xt, yt)
            rows.append(("glassgrad" + (".compile" if compiled else ""), t, last, acc, peak))
        tt = None
        if torch is not None:
            tdev, sync = torch_setup(torch, dev)
            tm = W.torch_model(torch, W.SIMPLE_CNN, init, tdev)
            TX, Ty = torch.from_numpy(Xn).to(tdev), torch.from_numpy(yn).to(tdev)
            t, last, peak = torch_epoch(torch, tm, TX, Ty, batch, tdev, sync)
            acc = torch_accuracy(torch, tm, torch.from_numpy(Xtn).to(tdev), torch.from_numpy(ytn).to(tdev))
            tt = (torch_name(torch), t, last, acc, peak)
        for name, t, last, acc, peak in rows:
            res.add(dev, workload, "epoch_seconds", t, "s", name, ratio=(t / tt[1]) if tt else None,
                    notes=f"{source}; last loss {last:.4f}")
            res.add(dev, workload, "test_accuracy", acc, "", name)
            res.add(dev, workload, "peak_bytes", peak, "B", name, ratio=(peak / tt[4]) if tt and tt[4] else None,
                    notes="allocator peak over the epoch (dataset tensors included)")
        if tt is not None:
            name, t, last, acc, peak = tt
            res.add(dev, workload, "epoch_seconds", t, "s", name, notes=f"{source}; last loss {last:.4f}")
            res.add(dev, workload, "test_accuracy", acc, "", name)
            if peak is not None:
                res.add(dev, workload, "peak_bytes", peak, "B", name, notes="torch.cuda.max_memory_allocated")


# ---------------------------------------------------------------------------------------------
# ResNet-18: median step time


def glassgrad_steps(spec, state, batch, compiled, dev, steps, warmup):
    sync = gg_sync(dev)
    model = W.gg_model(spec)
    model.load_state_dict(state)
    xn, yn = W.random_batch(spec, batch)
    x, y = gg.tensor(xn), gg.tensor(yn)
    gg.realize(x, y)
    step = W.gg_step(spec, model)
    run = gg.compile(step) if compiled else step
    box = {}

    def one():
        box["loss"] = run(x, y)  # noqa: F821  (deleted after the last call, below)

    times = time_repeats(one, repeats=steps, warmup=warmup, sync=sync)
    last = box["loss"].item()
    # the peak of one step from a clean arena (what gpu_memory_usage.py measures)
    gg._C.empty_cache(dev)
    gg.reset_peak_memory(dev)
    one()
    sync()
    peak = gg.memory_stats(dev)["peak"]
    del model, step, run, box, x, y
    gc.collect()
    gg._C.empty_cache(dev)
    return times, last, peak


def torch_steps(torch, spec, state, batch, dev, steps, warmup):
    tdev, sync = torch_setup(torch, dev)
    model = W.torch_model(torch, spec, state, tdev)
    xn, yn = W.random_batch(spec, batch)
    x, y = torch.from_numpy(xn).to(tdev), torch.from_numpy(yn).to(tdev)
    step = W.torch_step(torch, spec, model)
    box = {}

    def one():
        box["loss"] = step(x, y)  # noqa: F821  (deleted after the last call, below)

    times = time_repeats(one, repeats=steps, warmup=warmup, sync=sync)
    last = float(box["loss"].item())
    peak, _ = W.torch_step_peak(torch, model, step, x, y, tdev, sync)
    del model, step, box, x, y
    gc.collect()
    return times, last, peak, W.torch_peak_how(tdev)


def resnet_steps(args, dev, torch, res):
    spec = W.resnet18(4 if args.tiny else 64)
    batches = [2] if args.tiny else [int(b) for b in args.resnet_batch_sizes.split(",")]
    steps = 2 if args.tiny else args.steps
    warmup = 3  # compile: call 1 warms up, call 2 captures, call 3 is the first replay
    for batch in batches:
        workload = f"{spec.label} train step batch {batch}"
        gg.manual_seed(0)
        state = numpy_state(W.gg_model(spec))
        rows = []
        for compiled in (False, True):
            times, last, peak = glassgrad_steps(spec, state, batch, compiled, dev, steps, warmup)
            rows.append(("glassgrad" + (".compile" if compiled else ""), times, last, peak))
        tt = None
        if torch is not None:
            tt = torch_steps(torch, spec, state, batch, dev, steps, warmup)
        t_med = statistics.median(tt[0]) if tt else None
        for name, times, last, peak in rows:
            med = statistics.median(times)
            res.add(dev, workload, "step_seconds", med, "s", name, ratio=(med / t_med) if tt else None,
                    notes=f"median; {spread_note(times)}; last loss {last:.4f}")
            res.add(dev, workload, "images_per_second", batch / med, "img/s", name)
            res.add(dev, workload, "peak_bytes", peak, "B", name, ratio=(peak / tt[2]) if tt else None,
                    notes="allocator peak of one step")
        if tt is not None:
            times, last, peak, how = tt
            name = torch_name(torch)
            res.add(dev, workload, "step_seconds", t_med, "s", name,
                    notes=f"median; {spread_note(times)}; last loss {last:.4f}")
            res.add(dev, workload, "images_per_second", batch / t_med, "img/s", name)
            res.add(dev, workload, "peak_bytes", peak, "B", name, notes=how)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(p)
    p.add_argument("--only", choices=["simplecnn", "resnet"], default=None)
    p.add_argument("--batch-sizes", default="32,256", help="SimpleCNN epoch batch sizes")
    p.add_argument("--limit", type=int, default=0, help="training images per SimpleCNN epoch (default: all 60000)")
    p.add_argument("--resnet-batch-sizes", default="32,128")
    p.add_argument("--steps", type=int, default=5, help="timed ResNet-18 steps (median)")
    args = p.parse_args(argv)
    dev = gg_device(args.device)
    torch = None if args.no_torch else torch_or_none()
    threads = apply_threads(args.threads, torch)
    res = Results("end_to_end", args.csv, args.tiny, "; ".join(x for x in (args.notes, threads) if x))
    if args.only in (None, "simplecnn"):
        simple_cnn_epochs(args, dev, torch, res)
    if args.only in (None, "resnet"):
        resnet_steps(args, dev, torch, res)
    print("wrote", res.write())


if __name__ == "__main__":
    main()
