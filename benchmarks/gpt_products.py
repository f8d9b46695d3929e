"""The GPT step's matrix products (issue 32's GPT: 384 features, batch 64 x block 256 = 16384
tokens) on MatMul's CUDA kernels against torch.matmul, float32 with TF32 off: milliseconds per
product, median of alternating rounds. Each of the four Linear layers of a transformer block
(qkv 384 -> 1152, proj 384 -> 384, fc1 384 -> 1536, fc2 1536 -> 384) in its three products:

  fwd  y = x W^T    [16384, in] x [in, out]    (W^T a transposed view: B k-contiguous)
  dx   dx = dy W    [16384, out] x [out, in]
  dw   dW = dy^T x  [out, 16384] x [16384, in] (dy^T a transposed view: A m-contiguous; k split)

glassgrad runs the op (MatMul through glassgrad._C.run_op on prebuilt device tensors, the
launcher's choice of kernel; docs/cuda.md, "Dense float products"). On a GPU it runs, by default,
on a slice of at least 8 SMs (ordinary_gpu.py's CUDA MPS set-up); --no-mps runs on the whole GPU.

    python benchmarks/gpt_products.py --no-mps                 # the whole GPU
    python benchmarks/gpt_products.py                          # MPS slice of >= 8 SMs
    python benchmarks/gpt_products.py --device cpu --no-torch --tiny   # seconds (CI)

Rows go to benchmarks/results/gpt_products.csv (--csv to change): one a product and contender,
with its ratio to PyTorch's time, and the TFLOP/s and "<N> SMs" in its notes. The step's sum of
products (the 12 rows of a block) is the last row of each contender, times 6 layers.
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import OpBench, alternating_medians, torch_name, torch_setup
import ordinary_gpu  # the MPS set-up

LAYERS = [("qkv", 384, 1152), ("proj", 384, 384), ("fc1", 384, 1536), ("fc2", 1536, 384)]
TOKENS, N_LAYER = 16384, 6


def _products(tokens: int, layers):
    """(label, A shape, B shape, how A and B are views: 'n' plain, 't' a transposed view)."""
    out = []
    for name, fin, fout in layers:
        out.append((f"{name} fwd", (tokens, fin), (fout, fin), "nt"))   # x @ W^T
        out.append((f"{name} dx", (tokens, fout), (fout, fin), "nn"))   # dy @ W
        out.append((f"{name} dw", (tokens, fout), (tokens, fin), "tn"))  # dy^T @ x
    return out


def child(args) -> int:
    from glassgrad import _C
    b = OpBench("gpt_products", args)
    dev, torch, note, where, res, sync, rounds, calls = (b.dev, b.torch, b.note, b.where, b.res, b.sync, b.rounds,
                                                         b.calls)
    tokens, layers = (64, [("fc1", 32, 64), ("fc2", 64, 32)]) if args.tiny else (TOKENS, LAYERS)
    inner = 1 if args.tiny else 5  # products back to back in one timed call (launches overlap)
    rng = np.random.default_rng(0)
    totals = {}
    tname = None
    for label, ashape, bshape, views in _products(tokens, layers):
        a = rng.standard_normal(ashape).astype(np.float32)
        w = rng.standard_normal(bshape).astype(np.float32)
        ta, tw = _C.Tensor.from_numpy(a, dev), _C.Tensor.from_numpy(w, dev)
        ga = ta.transpose(0, 1) if views[0] == "t" else ta
        gb = tw.transpose(0, 1) if views[1] == "t" else tw
        m, k = ga.shape
        n = gb.shape[1]
        flops = 2.0 * m * n * k

        def ours(ga=ga, gb=gb):
            for _ in range(inner):
                _C.run_op("MatMul", [ga, gb], {}, "")

        contenders = {"glassgrad": (ours, sync)}
        if torch is not None:
            tdev, tsync = torch_setup(torch, dev)
            xa, xb = torch.from_numpy(a).to(tdev), torch.from_numpy(w).to(tdev)
            xa = xa.t() if views[0] == "t" else xa
            xb = xb.t() if views[1] == "t" else xb
            tname = torch_name(torch)

            def theirs(xa=xa, xb=xb):
                for _ in range(inner):
                    torch.matmul(xa, xb)

            contenders[tname] = (theirs, tsync)
        med, _ = alternating_medians(contenders, rounds, calls, warmup=2)
        for framework, t in med.items():
            per = t / inner
            totals[framework] = totals.get(framework, 0.0) + per
            res.add(dev, f"gpt product {label} [{m}, {k}] x [{k}, {n}]{where}", "ms_per_product", per * 1e3, "ms",
                    framework, ratio=None if tname is None or framework == tname else t / med[tname],
                    notes=f"{note}; float32; {flops / per / 1e12:.2f} TFLOP/s; median of {rounds} alternating "
                          f"rounds of {calls} synchronized calls of {inner} products")
    for framework, t in totals.items():
        res.add(dev, f"gpt products of a step ({N_LAYER} layers){where}", "ms_per_step", N_LAYER * t * 1e3, "ms",
                framework, ratio=None if tname is None or framework == tname else t / totals[tname],
                notes=f"{note}; float32; {N_LAYER} x the sum of the rows above")
    print("wrote", res.write())
    return 0


def main(argv=None) -> int:
    return ordinary_gpu.op_bench_main(__doc__, __file__, child, argv, rounds=5, calls=10)


if __name__ == "__main__":
    sys.exit(main())
