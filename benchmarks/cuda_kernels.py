"""Latency and throughput of glassgrad's CUDA kernels on the GPU at hand, one CSV row per case:
SGEMM (MatMul), the three convolutions of a ResNet-style layer with each algorithm, and the
memory-bound kernels (elementwise, reduction, softmax) as bandwidth. When PyTorch is installed
its float32 result (TF32 off: the same FP32 arithmetic) is timed beside ours for reference.

    python3 benchmarks/cuda_kernels.py --out results/cuda_kernels.csv [--quick]

Times are medians over repeats, measured with the device synchronized before and after each
call (host clock), after warm-up runs. Inputs are random, never zeros.
"""
import argparse
import csv
import os
import statistics
import sys
import time

import numpy as np

import glassgrad
from glassgrad import _C


def timed(fn, repeats):
    fn()
    fn()
    glassgrad.cuda.synchronize()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        glassgrad.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def torch_timed(fn, repeats):
    import torch
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def have_torch():
    try:
        import torch
        return torch.cuda.is_available()
    except Exception:
        return False


def dev(a):
    return _C.Tensor.from_numpy(np.ascontiguousarray(a), "cuda")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="benchmarks/results/cuda_kernels.csv")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=10)
    args = ap.parse_args()
    if not glassgrad.cuda.is_available():
        print("CUDA unavailable:", glassgrad.cuda.why_unavailable())
        return 0
    info = glassgrad.cuda.device_info()
    rng = np.random.default_rng(0)
    use_torch = have_torch()
    if use_torch:
        import torch
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    rows = []

    def record(kind, case, seconds, work, unit, torch_seconds=None):
        rate = work / seconds / 1e9
        row = {"device": info["name"], "kind": kind, "case": case, "ms": round(seconds * 1e3, 4),
               "rate": round(rate, 2), "unit": unit,
               "torch_ms": round(torch_seconds * 1e3, 4) if torch_seconds else ""}
        rows.append(row)
        print(f"{kind:12s} {case:44s} {row['ms']:10.3f} ms {row['rate']:10.1f} {unit}"
              + (f"   torch {row['torch_ms']:.3f} ms" if torch_seconds else ""))

    sizes = [1024, 2048] if args.quick else [1024, 2048, 4096]
    for n in sizes:
        a, b = dev(rng.standard_normal((n, n), dtype=np.float32)), dev(rng.standard_normal((n, n), dtype=np.float32))
        t = timed(lambda: _C.run_op("MatMul", [a, b], {}, ""), args.repeats)
        tt = None
        if use_torch:
            ta, tb = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")
            tt = torch_timed(lambda: ta @ tb, args.repeats)
        record("matmul", f"{n}x{n}x{n} f32", t, 2.0 * n ** 3, "GFLOP/s", tt)

    # A ResNet-18 stage-1 layer at batch 32 (and a first layer with 3 input channels).
    convs = [((32, 64, 56, 56), (64, 64, 3, 3), [1, 1], [1, 1, 1, 1]),
             ((32, 3, 224, 224), (64, 3, 7, 7), [2, 2], [3, 3, 3, 3]),
             ((64, 1, 28, 28), (32, 1, 3, 3), [1, 1], [1, 1, 1, 1])]
    if args.quick:
        convs = convs[::2]
    for xs, ws, stride, pad in convs:
        x = dev(rng.standard_normal(xs, dtype=np.float32))
        w = dev(rng.standard_normal(ws, dtype=np.float32))
        oh = (xs[2] + pad[0] + pad[1] - ws[2]) // stride[0] + 1
        ow = (xs[3] + pad[2] + pad[3] - ws[3]) // stride[1] + 1
        g = dev(rng.standard_normal((xs[0], ws[0], oh, ow), dtype=np.float32))
        flops = 2.0 * xs[0] * ws[0] * oh * ow * ws[1] * ws[2] * ws[3]
        attrs = {"stride": stride, "padding": pad}
        name = f"N{xs[0]} C{xs[1]} {xs[2]}x{xs[3]} K{ws[0]} {ws[2]}x{ws[3]} s{stride[0]}"
        torch_t = {}
        if use_torch:
            import torch.nn.functional as F
            tx, tw = torch.randn(*xs, device="cuda", requires_grad=True), torch.randn(*ws, device="cuda", requires_grad=True)
            tp = (pad[2], pad[3], pad[0], pad[1])
            tg = torch.randn(xs[0], ws[0], oh, ow, device="cuda")
            def tfwd():
                return F.conv2d(F.pad(tx, tp), tw, stride=stride)
            torch_t["fwd"] = torch_timed(tfwd, args.repeats)
            y = tfwd()
            torch_t["bwd_input"] = torch_timed(lambda: torch.autograd.grad(y, tx, tg, retain_graph=True), args.repeats)
            torch_t["bwd_weight"] = torch_timed(lambda: torch.autograd.grad(y, tw, tg, retain_graph=True), args.repeats)
        for algo in ("direct", "igemm", "auto"):
            glassgrad.cuda.set_conv_algo(algo)
            t = timed(lambda: _C.run_op("Conv2D", [x, w], attrs, ""), args.repeats)
            record("conv_fwd", f"{name} {algo}", t, flops, "GFLOP/s", torch_t.get("fwd"))
            t = timed(lambda: _C.run_op("Conv2DBackwardInput", [g, w], {**attrs, "input_shape": list(xs)}, ""),
                      args.repeats)
            record("conv_bwd_in", f"{name} {algo}", t, flops, "GFLOP/s", torch_t.get("bwd_input"))
            t = timed(lambda: _C.run_op("Conv2DBackwardWeight", [x, g], {**attrs, "weight_shape": list(ws)}, ""),
                      args.repeats)
            record("conv_bwd_w", f"{name} {algo}", t, flops, "GFLOP/s", torch_t.get("bwd_weight"))
        glassgrad.cuda.set_conv_algo("auto")

    n = 1 << 24 if args.quick else 1 << 26
    a, b = dev(rng.standard_normal(n, dtype=np.float32)), dev(rng.standard_normal(n, dtype=np.float32))
    t = timed(lambda: _C.run_op("Add", [a, b], {}, ""), args.repeats)
    record("elementwise", f"Add {n} f32", t, 12.0 * n, "GB/s")
    t = timed(lambda: _C.run_op("Sum", [a], {"dims": [], "keepdim": False}, ""), args.repeats)
    record("reduction", f"Sum {n} f32", t, 4.0 * n, "GB/s")
    rows_ = n // 1000
    s = dev(rng.standard_normal((rows_, 1000), dtype=np.float32))
    t = timed(lambda: _C.run_op("Softmax", [s], {"dim": 1}, ""), args.repeats)
    record("softmax", f"Softmax [{rows_}, 1000] f32", t, 8.0 * rows_ * 1000, "GB/s")

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {len(rows)} rows to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
