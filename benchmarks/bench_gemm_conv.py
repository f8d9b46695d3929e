"""GEMM (MatMul) and Conv2D forward/backward timings on the CPU, as CSV.

    PYTHONPATH=python-bindings python3 benchmarks/bench_gemm_conv.py [--repeats 15] [--out file.csv]

Each measurement compiles a one-node plan (so workspaces come from the planned arena, as in
training), warms it up, then reports the median (and min) of `repeats` timed runs. One CSV row
per measurement, with machine, date, ISA, GEMM kernel and thread count. NumPy's matmul (its
BLAS) is measured in the same run next to ours for scale.

Shapes: SGEMM 512^3 and 1024^3 (GFLOP/s); conv [32,16,28,28] x 32 3x3 filters at padding 1
and 0 (forward, backward input, backward weight, in microseconds); the SimpleCNN layers
[32,1,28,28] -> 16 and [32,16,13,13] -> 32 (3x3, no padding).
"""
from __future__ import annotations

import argparse
import csv
import datetime
import os
import platform
import statistics
import sys
import time

import numpy as np

import glassgrad
from glassgrad import _C


def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model} x{os.cpu_count()}"


CLOCK = time.perf_counter


def time_call(fn, repeats: int, warmup: int = 3):
    for _ in range(warmup):
        fn()
    ts = []
    for _ in range(repeats):
        t0 = CLOCK()
        fn()
        ts.append(CLOCK() - t0)
    return statistics.median(ts), min(ts)


def plan_runner(op: str, arrays, attrs):
    """A compiled one-node plan of `op` on inputs shaped like `arrays`, and a zero-arg runner."""
    g = _C.Graph()
    leaves = [g.add_leaf(f"x{i}", list(a.shape), str(a.dtype), "cpu", "input") for i, a in enumerate(arrays)]
    outs = g.add(op, leaves, attrs)
    plan = _C.compile(g, outs)
    ex = _C.Executor(plan)
    by_leaf = dict(zip(leaves, arrays))
    inputs = [_C.Tensor.from_numpy(np.ascontiguousarray(by_leaf[v])) for v in plan.input_values]
    return lambda: ex.run(inputs)


def conv_cases():
    # (label, N, C, H, W, K, R, padding)
    return [
        ("conv 32x16x28x28 k32 3x3 p1", 32, 16, 28, 28, 32, 3, 1),
        ("conv 32x16x28x28 k32 3x3 p0", 32, 16, 28, 28, 32, 3, 0),
        ("simplecnn conv1 32x1x28x28 k16 3x3 p0", 32, 1, 28, 28, 16, 3, 0),
        ("simplecnn conv2 32x16x13x13 k32 3x3 p0", 32, 16, 13, 13, 32, 3, 0),
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--out", default="-", help="CSV file (default: stdout)")
    ap.add_argument("--threads", type=int, default=0, help="glassgrad threads (0: all cores)")
    ap.add_argument("--clock", choices=["wall", "thread"], default="wall",
                    help="wall: elapsed time; thread: CPU time of the calling thread, which ignores time "
                         "the OS gave to other processes (only meaningful with --threads 1 and a "
                         "single-threaded BLAS, e.g. OPENBLAS_NUM_THREADS=1)")
    args = ap.parse_args()
    if args.threads:
        _C.set_num_threads(args.threads)
    global CLOCK
    CLOCK = time.thread_time if args.clock == "thread" else time.perf_counter

    rng = np.random.default_rng(0)
    common = {
        "machine": machine(),
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "isa": _C.cpu_isa(),
        "threads": _C.get_num_threads(),
        "numpy": np.__version__,
        "clock": args.clock,
        "load1": round(os.getloadavg()[0], 2),
    }
    rows = []

    def add(benchmark, shape, impl, median_s, min_s, flops):
        row = dict(common, benchmark=benchmark, shape=shape, impl=impl,
                   median_us=round(median_s * 1e6, 1), min_us=round(min_s * 1e6, 1),
                   gflops=round(flops / median_s / 1e9, 1) if flops else "")
        rows.append(row)
        print(f"{benchmark:45s} {impl:10s} median {row['median_us']:>10} us  min {row['min_us']:>10} us  "
              f"{row['gflops']} GFLOP/s", file=sys.stderr)

    for n in (512, 1024):
        a = rng.standard_normal((n, n)).astype(np.float32)
        b = rng.standard_normal((n, n)).astype(np.float32)
        flops = 2.0 * n ** 3
        med, mn = time_call(plan_runner("MatMul", [a, b], {}), args.repeats)
        add("sgemm", f"{n}x{n}x{n}", "glassgrad", med, mn, flops)
        med, mn = time_call(lambda: np.matmul(a, b), args.repeats)
        add("sgemm", f"{n}x{n}x{n}", "numpy", med, mn, flops)

    for label, nb, c, h, w, k, r, p in conv_cases():
        x = rng.standard_normal((nb, c, h, w)).astype(np.float32)
        wt = rng.standard_normal((k, c, r, r)).astype(np.float32) * 0.1
        ho, wo = h + 2 * p - r + 1, w + 2 * p - r + 1
        gy = rng.standard_normal((nb, k, ho, wo)).astype(np.float32)
        conv = {"stride": [1, 1], "padding": [p, p, p, p]}
        flops = 2.0 * nb * k * ho * wo * c * r * r
        shape = f"x[{nb},{c},{h},{w}] w[{k},{c},{r},{r}] pad {p}"
        for op, arrays, attrs in [
            ("Conv2D", [x, wt], conv),
            ("Conv2DBackwardInput", [gy, wt], dict(conv, input_shape=[nb, c, h, w])),
            ("Conv2DBackwardWeight", [x, gy], dict(conv, weight_shape=[k, c, r, r])),
        ]:
            med, mn = time_call(plan_runner(op, arrays, attrs), args.repeats)
            add(f"{label} {op}", shape, "glassgrad", med, mn, flops)

    fields = ["machine", "date", "isa", "threads", "clock", "load1", "numpy", "benchmark", "shape", "impl", "median_us", "min_us", "gflops"]
    out = sys.stdout if args.out == "-" else open(args.out, "w", newline="")
    writer = csv.DictWriter(out, fieldnames=fields)
    writer.writeheader()
    writer.writerows(rows)
    if out is not sys.stdout:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
