"""A Linear layer's forward at inference, the product with its transposed weight, next to
PyTorch in the same run: F.linear(x, W) and x @ W.T for a realized weight W [out, in] and a batch
of M rows (M = 1: one token of a sampling loop). glassgrad binds the realized weight.T view as it
is (the CPU GEMM reads any strides) instead of copying it into a contiguous tensor every call
(docs/performance.md, "Products with a transposed weight").

    python benchmarks/linear_inference.py --threads 1           # CPU
    python benchmarks/linear_inference.py --tiny                # seconds (CI)

Rows: ms_per_call of each (library, form, M, shape), the glassgrad rows with their ratio to
PyTorch's; benchmarks/results/linear_inference.csv.
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Results, add_common_args, apply_threads, gg_device, gg_sync, median_time, torch_name, torch_or_none

import glassgrad as gg
import glassgrad.nn.functional as F


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(p)
    p.add_argument("--repeats", type=int, default=15)
    args = p.parse_args(argv)
    dev = gg_device(args.device)
    torch = None if args.no_torch else torch_or_none()
    threads = apply_threads(args.threads, torch)
    res = Results("linear_inference", args.csv, tiny=args.tiny, notes=threads)
    shapes = [(64, 32)] if args.tiny else [(4096, 1152), (512, 128)]
    rows = [1, 4] if args.tiny else [1, 8, 32]
    repeats = 2 if args.tiny else args.repeats
    rng = np.random.default_rng(0)
    sync = gg_sync(dev)
    for out_f, in_f in shapes:
        wn = rng.standard_normal((out_f, in_f)).astype(np.float32)
        w = gg.tensor(wn, device=dev)
        gg.realize(w)
        tw = None if torch is None else torch.from_numpy(wn).to(args.device)
        for m in rows:
            xn = rng.standard_normal((m, in_f)).astype(np.float32)
            x = gg.tensor(xn, device=dev)
            gg.realize(x)
            tx = None if torch is None else torch.from_numpy(xn).to(args.device)
            workload = f"Linear {in_f} -> {out_f} at inference, {m} row{'s' if m > 1 else ''}"
            for form, gg_fn, t_fn in (
                    ("F.linear(x, W)", lambda: gg.realize(F.linear(x, w)),
                     None if torch is None else (lambda: torch.nn.functional.linear(tx, tw))),
                    ("x @ W.T", lambda: gg.realize(x @ w.T), None if torch is None else (lambda: tx @ tw.T))):
                ours = median_time(gg_fn, repeats=repeats, warmup=2, sync=sync)
                theirs = None
                if t_fn is not None:
                    with torch.no_grad():
                        theirs = median_time(t_fn, repeats=repeats, warmup=2)
                    res.add(args.device, f"{workload}, {form}", "ms_per_call", theirs * 1e3, "ms", torch_name(torch))
                res.add(args.device, f"{workload}, {form}", "ms_per_call", ours * 1e3, "ms", "glassgrad",
                        ratio=None if theirs is None else ours / theirs)
    print("wrote", res.write())
    return 0


if __name__ == "__main__":
    sys.exit(main())
