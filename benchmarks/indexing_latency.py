"""gather, scatter_add and index_select against PyTorch in one run: microseconds per call of calls
back to back (one synchronization before and after, as a pipelined loop sees them), median of
alternating rounds, through glassgrad._C.run_op on prebuilt device tensors and the matching torch
functions. On a GPU it runs, by default, on a slice of at least 8 SMs (ordinary_gpu.py's CUDA MPS
set-up: the small cards glassgrad's users train on); --no-mps runs on the whole GPU.

    python benchmarks/indexing_latency.py                      # MPS slice of >= 8 SMs
    python benchmarks/indexing_latency.py --no-mps             # the whole GPU
    python benchmarks/indexing_latency.py --device cpu --no-torch --tiny   # seconds (CI)

Workloads (float32, int64 indices, uniformly random so that indices repeat):
  gather        x [4096, 2048], index [4096, 512] along dim 1 (and a label gather [256, 1000] -> [256, 1])
  scatter_add   x, index, src [4096, 2048] along dim 1, out of place (and [256, 1000] -> [256, 64])
  index_select  a [65536, 256] table, 16384 rows (an embedding lookup; and 256 rows of [1000, 64])
Rows go to benchmarks/results/indexing_latency.csv (--csv to change), each with its ratio to
PyTorch's time and "<N> SMs" in its notes.
"""
from __future__ import annotations

import os
import statistics
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import OpBench, back_to_back, torch_name, torch_setup
import ordinary_gpu  # the MPS set-up


def _workloads(tiny: bool):
    """(name, op, attrs, arrays, torch function of the torch tensors)."""
    rng = np.random.default_rng(0)
    big, small = ((64, 48, 16), (8, 10, 4)) if tiny else ((4096, 2048, 512), (256, 1000, 64))
    out = []
    for label, (n, d, k) in (("large", big), ("small", small)):
        x = rng.standard_normal((n, d)).astype(np.float32)
        gidx = rng.integers(0, d, (n, k if label == "large" else 1))
        out.append((f"gather {label} [{n}, {d}] -> {list(gidx.shape)}", "Gather", {"dim": 1}, [x, gidx],
                    lambda t, i: t.gather(1, i)))
        sidx = rng.integers(0, d, (n, d if label == "large" else k))
        src = rng.standard_normal(sidx.shape).astype(np.float32)
        out.append((f"scatter_add {label} [{n}, {d}] <- {list(sidx.shape)}", "Scatter", {"dim": 1, "reduce": "add"},
                    [x, sidx, src], lambda t, i, s: t.scatter_add(1, i, s)))
    for label, (rows, width, picks) in (("large", (256, 64, 32) if tiny else (65536, 256, 16384)),
                                        ("small", (20, 8, 6) if tiny else (1000, 64, 256))):
        table = rng.standard_normal((rows, width)).astype(np.float32)
        idx = rng.integers(0, rows, picks)
        out.append((f"index_select {label} [{rows}, {width}] x {picks} rows", "IndexSelect", {"dim": 0}, [table, idx],
                    lambda t, i: t.index_select(0, i)))
    return out


def child(args) -> int:
    from glassgrad import _C
    b = OpBench("indexing_latency", args)
    dev, torch, note, where, res, sync, rounds, calls = (b.dev, b.torch, b.note, b.where, b.res, b.sync, b.rounds,
                                                         b.calls)
    for name, op, attrs, arrays, torch_fn in _workloads(args.tiny):
        tensors = [_C.Tensor.from_numpy(np.ascontiguousarray(a), dev) for a in arrays]
        contenders = [("glassgrad", lambda tensors=tensors, op=op, attrs=attrs: _C.run_op(op, tensors, attrs, ""), sync)]
        if torch is not None:
            tdev, tsync = torch_setup(torch, dev)
            targs = [torch.from_numpy(np.ascontiguousarray(a)).to(tdev) for a in arrays]
            contenders.append((torch_name(torch), lambda targs=targs, fn=torch_fn: fn(*targs), tsync))
        for _, fn, sy in contenders:  # warm-up
            fn()
            fn()
            sy()
        times = {label: [] for label, _, _ in contenders}
        for _ in range(rounds):
            for label, fn, sy in contenders:
                times[label].append(back_to_back(fn, sy, calls))
        med = {label: statistics.median(t) for label, t in times.items()}
        tname = contenders[-1][0] if torch is not None else None
        moved = sum(a.nbytes for a in arrays)
        for label, t in med.items():
            ratio = None if tname is None or label == tname else t / med[tname]
            res.add(dev, f"{name}{where}", "us_per_call", t * 1e6, "us", label, ratio=ratio,
                    notes=f"{note}; {moved / t / 1e9:.1f} GB/s of inputs; median of {rounds} alternating rounds of "
                          f"{calls} calls")
    print("wrote", res.write())
    return 0


def main(argv=None) -> int:
    return ordinary_gpu.op_bench_main(__doc__, __file__, child, argv, rounds=7, calls=40)


if __name__ == "__main__":
    sys.exit(main())
