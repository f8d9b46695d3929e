"""Our SGEMM (through MatMul) next to NumPy's matmul, and Conv2D forward / backward-input /
backward-weight times, on the CPU.

    PYTHONPATH=python-bindings python3 benchmarks/bench_gemm_conv.py [--repeats 21] [--threads 2]
        [--csv benchmarks/results/bench_gemm_conv.csv]
    (single core, NumPy too: OPENBLAS_NUM_THREADS=1 ... --threads 1)

Each glassgrad measurement compiles a one-node plan (workspaces come from the planned arena, as
in training), warms it up, then times `repeats` runs. Rows (benchmarks/common.py columns) hold
the median and the minimum wall time, the process CPU time per call (all threads together), and
GFLOP/s from the median. On a machine shared with other work the median includes waiting for a
core: the notes record the 1-minute load average, the thread count, the ISA and GEMM kernel.
NumPy's matmul (its BLAS, with its own threads) runs in the same process for scale.

Shapes: SGEMM 512^3 and 1024^3; conv [32,16,28,28] with 32 3x3 filters at padding 1 and 0; the
SimpleCNN layers [32,1,28,28] -> 16 and [32,16,13,13] -> 32 (3x3, no padding).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

from common import Results  # noqa: E402  (also puts the in-tree package on sys.path)
from glassgrad import _C


def measure(fn, repeats: int, warmup: int = 3):
    """(median wall s, min wall s, process CPU s per call)."""
    for _ in range(warmup):
        fn()
    walls = []
    cpu0 = time.process_time()
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t0)
    cpu = (time.process_time() - cpu0) / repeats
    return statistics.median(walls), min(walls), cpu


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


CONV_CASES = [
    # (workload, N, C, H, W, K, R, padding)
    ("conv x[32,16,28,28] w[32,16,3,3] pad 1", 32, 16, 28, 28, 32, 3, 1),
    ("conv x[32,16,28,28] w[32,16,3,3] pad 0", 32, 16, 28, 28, 32, 3, 0),
    ("simplecnn conv1 x[32,1,28,28] w[16,1,3,3]", 32, 1, 28, 28, 16, 3, 0),
    ("simplecnn conv2 x[32,16,13,13] w[32,16,3,3]", 32, 16, 13, 13, 32, 3, 0),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=21)
    ap.add_argument("--threads", type=int, default=0, help="glassgrad threads (0: all cores)")
    ap.add_argument("--csv", default=None, help="CSV to append to (default benchmarks/results/bench_gemm_conv.csv)")
    args = ap.parse_args()
    if args.threads:
        _C.set_num_threads(args.threads)
    res = Results("bench_gemm_conv", args.csv)
    threads = _C.get_num_threads()
    blas_threads = os.environ.get("OPENBLAS_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS") or "default"
    notes = (f"threads={threads} isa={_C.cpu_isa()} load1={os.getloadavg()[0]:.2f} repeats={args.repeats} "
             f"numpy={np.__version__} blas_threads={blas_threads}")
    rng = np.random.default_rng(0)

    def record(workload, framework, timing, flops):
        med, mn, cpu = timing
        res.add("cpu", workload, "median_us", med * 1e6, "us", framework, notes=notes)
        res.add("cpu", workload, "min_us", mn * 1e6, "us", framework, notes=notes)
        res.add("cpu", workload, "cpu_us_per_call", cpu * 1e6, "us", framework, notes=notes)
        res.add("cpu", workload, "gflops_at_median", flops / med / 1e9, "GFLOP/s", framework, notes=notes)

    for n in (512, 1024):
        a = rng.standard_normal((n, n)).astype(np.float32)
        b = rng.standard_normal((n, n)).astype(np.float32)
        workload = f"sgemm {n}x{n}x{n}"
        record(workload, "glassgrad", measure(plan_runner("MatMul", [a, b], {}), args.repeats), 2.0 * n ** 3)
        record(workload, "numpy", measure(lambda: np.matmul(a, b), args.repeats), 2.0 * n ** 3)

    for label, nb, c, h, w, k, r, p in CONV_CASES:
        x = rng.standard_normal((nb, c, h, w)).astype(np.float32)
        wt = (rng.standard_normal((k, c, r, r)) * 0.1).astype(np.float32)
        ho, wo = h + 2 * p - r + 1, w + 2 * p - r + 1
        gy = rng.standard_normal((nb, k, ho, wo)).astype(np.float32)
        conv = {"stride": [1, 1], "padding": [p, p, p, p]}
        flops = 2.0 * nb * k * ho * wo * c * r * r
        for op, arrays, attrs in [
            ("Conv2D", [x, wt], conv),
            ("Conv2DBackwardInput", [gy, wt], dict(conv, input_shape=[nb, c, h, w])),
            ("Conv2DBackwardWeight", [x, gy], dict(conv, weight_shape=[k, c, r, r])),
        ]:
            record(f"{label} {op}", "glassgrad", measure(plan_runner(op, arrays, attrs), args.repeats), flops)

    print(f"wrote {res.write()}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
