"""3x3 convolutions (padding 1) on the issue's shapes: glassgrad's FP32 CUDA kernels against
cuDNN through PyTorch with TF32 off, forward and both backwards, in one process.

    python benchmarks/conv_vs_cudnn.py --device cuda
Time per call = median over repeated batches of back-to-back calls, synchronized around each
batch (so launch overhead is amortized the same way for both libraries).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Results, torch_or_none

import glassgrad as gg
from glassgrad import _C

SHAPES = [(32, 16, 28, 28, 32), (32, 64, 32, 32, 64), (32, 256, 8, 8, 256)]


def per_call(fn, sync, calls=50, batches=7):
    fn()
    sync()
    times = []
    for _ in range(batches):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        sync()
        times.append((time.perf_counter() - t) / calls)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default="cuda")
    p.add_argument("--tiny", action="store_true")
    p.add_argument("--csv", default=None)
    args = p.parse_args()
    dev = args.device
    res = Results("conv_vs_cudnn", args.csv)
    torch = torch_or_none()
    sync = gg.cuda.synchronize if dev.startswith("cuda") else (lambda: None)
    rng = np.random.default_rng(0)
    shapes = [(2, 3, 8, 8, 4)] if args.tiny else SHAPES
    for n, c, h, w, k in shapes:
        x = rng.standard_normal((n, c, h, w)).astype(np.float32)
        wt = (rng.standard_normal((k, c, 3, 3)) * 0.1).astype(np.float32)
        g = rng.standard_normal((n, k, h, w)).astype(np.float32)
        X, W, G = (_C.Tensor.from_numpy(a, dev) for a in (x, wt, g))
        attrs = {"stride": [1, 1], "padding": [1, 1, 1, 1]}
        ops = {
            "forward": lambda: _C.run_op("Conv2D", [X, W], attrs, ""),
            "backward_input": lambda: _C.run_op("Conv2DBackwardInput", [G, W], dict(attrs, input_shape=[n, c, h, w]), ""),
            "backward_weight": lambda: _C.run_op("Conv2DBackwardWeight", [X, G], dict(attrs, weight_shape=[k, c, 3, 3]), ""),
        }
        flops = 2.0 * n * k * h * w * c * 9
        theirs = {}
        if torch is not None and dev.startswith("cuda"):
            torch.backends.cudnn.allow_tf32 = False
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.benchmark = True
            tx, tw, tg = (torch.from_numpy(a).cuda() for a in (x, wt, g))
            F = torch.nn.functional
            tsync = torch.cuda.synchronize
            theirs = {
                "forward": per_call(lambda: F.conv2d(tx, tw, padding=1), tsync),
                "backward_input": per_call(lambda: torch.nn.grad.conv2d_input(tx.shape, tw, tg, padding=1), tsync),
                "backward_weight": per_call(lambda: torch.nn.grad.conv2d_weight(tx, tw.shape, tg, padding=1), tsync),
            }
        for name, fn in ops.items():
            t = per_call(fn, sync, calls=5 if args.tiny else 50, batches=3 if args.tiny else 7)
            wl = f"conv3x3 [{n},{c},{h},{w}]->{k} {name}"
            ratio = t / theirs[name] if name in theirs else None
            res.add(dev, wl, "us_per_call", t * 1e6, "us", "glassgrad", ratio=ratio,
                    notes=f"{flops / t / 1e12:.2f} TFLOP/s")
            if name in theirs:
                res.add(dev, wl, "us_per_call", theirs[name] * 1e6, "us", f"torch {torch.__version__} cudnn",
                        notes=f"{flops / theirs[name] / 1e12:.2f} TFLOP/s, TF32 off")
    print("wrote", res.write())


if __name__ == "__main__":
    main()
