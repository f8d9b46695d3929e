"""CPU convolutions and SGEMM next to PyTorch (and NumPy) in the same process, alternating rounds.

    PYTHONPATH=python-bindings python benchmarks/bench_gemm_conv.py [--threads 1] [--rounds 5]
        [--calls 3] [--only SUBSTRING] [--csv benchmarks/results/bench_gemm_conv.csv]
    python benchmarks/bench_gemm_conv.py --tiny          # seconds: proves it runs (CI)

Run it with an interpreter where `import torch` works (glassgrad on its PYTHONPATH) for the
PyTorch columns; --no-torch skips them. --threads N sets both libraries' threads (and NumPy's
BLAS is left at its default: its threads are named in the notes).

Shapes: every convolution of SimpleCNN and ResNet-18 (CIFAR) at batch 32 (the list
ordinary_gpu.py times on a GPU), plus [32,16,28,28] x 32 3x3 at padding 1 and at padding 0 (the
"same" padding against none on one shape), and the DCGAN step's convolutions at batch 16
(`--only DCGAN`); each in all three directions: forward (Conv2D),
input gradient (Conv2DBackwardInput) and weight gradient (Conv2DBackwardWeight). SGEMM 512^3
and 1024^3 through MatMul against NumPy's matmul.

glassgrad runs each op as a compiled one-node plan (its workspace comes from the planned arena,
as in training); PyTorch runs F.conv2d and torch.nn.grad.conv2d_input / conv2d_weight (the
convolution_backward kernels its autograd uses). Each round times --calls calls of each framework
back to back, the frameworks alternate within a round, and a row holds the median over --rounds
rounds: drift and other work on a shared machine fall on both alike. ratio_vs_torch < 1: glassgrad
is faster. The notes give GFLOP/s at the median, the threads, the ISA and the 1-minute load.

Roofline columns (roofline.py): the CPU's FP32 FMA peak and copy bandwidth are measured at the
start on the run's thread count; every row gets its FLOPs (the direct count, and for glassgrad's
Winograd rows the point products it computes), bytes, rates and fractions of those peaks.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import roofline as R
from common import Results, add_common_args, apply_threads, back_to_back, torch_name, torch_or_none
from ordinary_gpu import CONV_SHAPES, TINY_CONV_SHAPES

from glassgrad import _C

# (N, C, H, W, K, R, stride, padding, label): the model convolutions, then padding 0 on the
# padded shape of issue 13 (the same work without the border), then the DCGAN step's convolutions
# at its CPU size (dcgan_step.py: ngf = ndf = 16, batch 16): the discriminator's, each also a
# generator layer's adjoint (its ConvTranspose2d forward is the input gradient of the row with the
# same shapes, its input gradient the forward), and the generator's first layer (100 -> [128, 4, 4]).
DCGAN_SHAPES = [
    (16, 1, 64, 64, 16, 4, 2, 1, "DCGAN D conv1 / G convT5"),
    (16, 16, 32, 32, 32, 4, 2, 1, "DCGAN D conv2 / G convT4"),
    (16, 32, 16, 16, 64, 4, 2, 1, "DCGAN D conv3 / G convT3"),
    (16, 64, 8, 8, 128, 4, 2, 1, "DCGAN D conv4 / G convT2"),
    (16, 128, 4, 4, 1, 4, 1, 0, "DCGAN D conv5"),
    (16, 128, 4, 4, 100, 4, 1, 0, "DCGAN G convT1"),
]
SHAPES = CONV_SHAPES + [(32, 16, 28, 28, 32, 3, 1, 0, "issue 13, no padding")] + DCGAN_SHAPES


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


def alternate(contenders, rounds: int, calls: int):
    """{label: median seconds per call} over `rounds` rounds of `calls` back-to-back calls each,
    the contenders taking turns within every round (after two warm-up calls each)."""
    for fn in contenders.values():
        fn()
        fn()
    times = {label: [] for label in contenders}
    for _ in range(rounds):
        for label, fn in contenders.items():
            times[label].append(back_to_back(fn, lambda: None, calls))
    return {label: statistics.median(t) for label, t in times.items()}


def conv_contenders(torch, n, c, h, w, k, r, s, p, rng):
    """{direction: {framework: zero-arg call}} for one shape."""
    oh, ow = (h + 2 * p - r) // s + 1, (w + 2 * p - r) // s + 1
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    wt = (rng.standard_normal((k, c, r, r)) * 0.1).astype(np.float32)
    gy = rng.standard_normal((n, k, oh, ow)).astype(np.float32)
    attrs = {"stride": [s, s], "padding": [p, p, p, p]}
    ours = {
        "forward": plan_runner("Conv2D", [x, wt], attrs),
        "input grad": plan_runner("Conv2DBackwardInput", [gy, wt], dict(attrs, input_shape=[n, c, h, w])),
        "weight grad": plan_runner("Conv2DBackwardWeight", [x, gy], dict(attrs, weight_shape=[k, c, r, r])),
    }
    out = {d: {"glassgrad": fn} for d, fn in ours.items()}
    if torch is not None:
        tx, tw, tg = (torch.from_numpy(a) for a in (x, wt, gy))
        F, G = torch.nn.functional, torch.nn.grad
        name = torch_name(torch)
        out["forward"][name] = lambda: F.conv2d(tx, tw, stride=s, padding=p)
        out["input grad"][name] = lambda: G.conv2d_input(tx.shape, tw, tg, stride=s, padding=p)
        out["weight grad"][name] = lambda: G.conv2d_weight(tx, tw.shape, tg, stride=s, padding=p)
    return out, 2.0 * n * k * oh * ow * c * r * r


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(ap)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--calls", type=int, default=3, help="calls per round and framework")
    ap.add_argument("--only", default="", help="only workloads whose name contains this text (e.g. 'issue 13')")
    args = ap.parse_args(argv)
    if args.device != "cpu":
        ap.error("bench_gemm_conv.py times CPU kernels (--device cpu); ordinary_gpu.py covers the GPU")
    torch = None if args.no_torch else torch_or_none()
    threads = apply_threads(args.threads, torch)
    res = Results("bench_gemm_conv", args.csv, args.tiny, "; ".join(x for x in (args.notes, threads) if x))
    rounds, calls = (1, 1) if args.tiny else (args.rounds, args.calls)
    blas = os.environ.get("OPENBLAS_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS") or "default"
    peak = R.cpu_peak(0)
    note = f"isa {_C.cpu_isa()}; median of {rounds} alternating rounds of {calls} calls; {peak.note()}"
    rng = np.random.default_rng(0)

    def record(workload, med, flops, reference, nbytes, ours_flop=None, algorithm=""):
        for label, t in med.items():
            ratio = None if label == reference or reference not in med else t / med[reference]
            mine = label == "glassgrad"
            res.add("cpu", workload, "us_per_call", t * 1e6, "us", label, ratio=ratio,
                    notes=f"{note}; {flops / t / 1e9:.1f} GFLOP/s" + (f"; {algorithm}" if mine and algorithm else ""),
                    roofline=R.columns(flops, t, peak, nbytes, ours_flop if mine else None))

    for size in ((64,) if args.tiny else (512, 1024)):
        workload = f"sgemm {size}x{size}x{size}"
        if args.only not in workload:
            continue
        a = rng.standard_normal((size, size)).astype(np.float32)
        b = rng.standard_normal((size, size)).astype(np.float32)
        med = alternate({"glassgrad": plan_runner("MatMul", [a, b], {}),
                         f"numpy {np.__version__} (BLAS threads {blas})": lambda: np.matmul(a, b)}, rounds, calls)
        record(workload, med, 2.0 * size ** 3, None, 3 * 4 * size * size)

    for n, c, h, w, k, r, s, p, label in (TINY_CONV_SHAPES if args.tiny else SHAPES):
        base = f"conv {r}x{r}/{s} pad {p} [{n},{c},{h},{w}]->{k} ({label})"
        if args.only not in base:
            continue
        by_direction, flops = conv_contenders(torch, n, c, h, w, k, r, s, p, rng)
        for direction, contenders in by_direction.items():
            med = alternate(contenders, rounds, calls)
            algo = R.cpu_conv_algorithm(R.OP_OF[direction], (n, c, h, w), (k, c, r, r), s, p)
            ours, algo_name = R.algorithm_flop(algo, n, c, h, w, k, r, s, p, direction)
            record(f"{base} {direction}", med, flops, torch_name(torch) if torch is not None else None,
                   R.conv_bytes(n, c, h, w, k, r, s, p, direction), ours, algo_name)

    print(f"wrote {res.write()}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
