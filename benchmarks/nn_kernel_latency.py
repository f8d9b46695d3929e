"""Latency of the CPU pooling, batch-norm and cross-entropy kernels (microseconds, median of
many runs), called one at a time through glassgrad._C.run_op on prebuilt tensors. The Python
call overhead is measured too (the same path running Neg on a one-element tensor) so it can be
subtracted mentally; it is not subtracted from the numbers. Besides wall-clock percentiles, each
row has the process CPU time per call (all threads together), which stays meaningful on a busy
shared machine where wall-clock times include waiting for a core (the 1-minute load average is
recorded with each row).

    PYTHONPATH=python-bindings python3 benchmarks/nn_kernel_latency.py [--runs 300] [--threads 1,2]
        [--out benchmarks/results/nn_kernel_latency.csv]
"""
import argparse
import csv
import os
import platform
import statistics
import time

import numpy as np

from glassgrad import _C


def _t(a):
    return _C.Tensor.from_numpy(np.require(a, requirements="C"))  # keeps 0-d arrays 0-d


def _time(fn, runs, warmup):
    for _ in range(warmup):
        fn()
    samples = []
    cpu0 = time.process_time()
    for _ in range(runs):
        t0 = time.perf_counter_ns()
        fn()
        samples.append((time.perf_counter_ns() - t0) / 1e3)
    cpu = (time.process_time() - cpu0) / runs * 1e6
    samples.sort()
    return statistics.median(samples), samples[len(samples) // 10], samples[(9 * len(samples)) // 10], cpu


def _cases(dtype):
    rng = np.random.default_rng(0)
    cases = []

    x = _t(rng.standard_normal((32, 16, 26, 26)).astype(dtype))
    k2 = {"kernel": [2, 2], "stride": [2, 2], "padding": [0, 0]}
    (y,) = _C.run_op("MaxPool2D", [x], k2, "")
    gy = _t(rng.standard_normal(y.shape).astype(dtype))
    cases.append(("MaxPool2D k2", "[32, 16, 26, 26]", lambda: _C.run_op("MaxPool2D", [x], k2, "")))
    cases.append(("MaxPool2DBackward k2", "[32, 16, 26, 26]", lambda: _C.run_op("MaxPool2DBackward", [gy, x], k2, "")))

    for shape in [(32, 16, 26, 26), (32, 32, 11, 11)]:
        xb = _t(rng.standard_normal(shape).astype(dtype))
        c = shape[1]
        gamma, beta = _t(np.ones(c, dtype)), _t(np.zeros(c, dtype))
        g = _t(rng.standard_normal(shape).astype(dtype))
        eps = {"eps": 1e-5}
        _, mean, var = _C.run_op("BatchNorm2DTrain", [xb, gamma, beta], eps, "")
        name = str(list(shape))

        def fwd_bwd(xb=xb, gamma=gamma, beta=beta, g=g, eps=eps):
            _, m, v = _C.run_op("BatchNorm2DTrain", [xb, gamma, beta], eps, "")
            _C.run_op("BatchNorm2DBackward", [g, xb, gamma, m, v], eps, "")

        cases.append(("BatchNorm2DTrain", name, lambda xb=xb, gamma=gamma, beta=beta, eps=eps:
                      _C.run_op("BatchNorm2DTrain", [xb, gamma, beta], eps, "")))
        cases.append(("BatchNorm2DBackward", name, lambda xb=xb, gamma=gamma, g=g, mean=mean, var=var, eps=eps:
                      _C.run_op("BatchNorm2DBackward", [g, xb, gamma, mean, var], eps, "")))
        cases.append(("BatchNorm2DTrain+Backward", name, fwd_bwd))

    logits = _t(rng.standard_normal((32, 10)).astype(dtype))
    labels = _t(rng.integers(0, 10, 32).astype(np.int64))
    one = _t(np.asarray(1.0, dtype))

    def ce_fwd_bwd():
        _C.run_op("CrossEntropy", [logits, labels], {}, "")
        _C.run_op("CrossEntropyBackward", [one, logits, labels], {}, "")

    cases.append(("CrossEntropy", "[32, 10]", lambda: _C.run_op("CrossEntropy", [logits, labels], {}, "")))
    cases.append(("CrossEntropy+Backward", "[32, 10]", ce_fwd_bwd))
    tiny = _t(np.zeros(1, dtype))
    cases.append(("call overhead (Neg of 1 element)", "[1]", lambda: _C.run_op("Neg", [tiny], {}, "")))
    return cases


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--warmup", type=int, default=30)
    ap.add_argument("--threads", default=",".join(sorted({"1", str(_C.get_num_threads())})))
    ap.add_argument("--dtypes", default="float32")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results", "nn_kernel_latency.csv"))
    args = ap.parse_args()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    rows = []
    for threads in [int(t) for t in args.threads.split(",")]:
        _C.set_num_threads(threads)
        for dtype in args.dtypes.split(","):
            for op, shape, fn in _cases(dtype):
                med, p10, p90, cpu = _time(fn, args.runs, args.warmup)
                rows.append({"op": op, "shape": shape, "dtype": dtype, "threads": threads, "median_us": f"{med:.1f}",
                             "p10_us": f"{p10:.1f}", "p90_us": f"{p90:.1f}", "cpu_us_per_call": f"{cpu:.1f}", "runs": args.runs,
                             "load_avg_1min": f"{os.getloadavg()[0]:.2f}",
                             "cpu_isa": _C.cpu_isa(), "machine": platform.machine()})
                print(f"{op:34s} {shape:18s} {dtype:8s} threads={threads}  median {med:9.1f} us"
                      f"  (p10 {p10:.1f}, p90 {p90:.1f})  cpu {cpu:9.1f} us/call")
    _C.set_num_threads(0)
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
