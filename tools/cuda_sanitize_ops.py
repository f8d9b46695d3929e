"""A reduced CUDA op run for compute-sanitizer (memcheck, racecheck): every op-table entry once
on small odd sizes, contiguous and strided, every convolution algorithm (direct, implicit GEMM,
Winograd F(2x2) and F(4x4)), and a few larger shapes that take the other kernel paths. Compares
with the CPU and exits non-zero on a mismatch, so a sanitizer run also proves the kernels
computed something.

    compute-sanitizer --tool memcheck --error-exitcode 1 python3 tools/cuda_sanitize_ops.py
    GLASSGRAD_SANITIZE_ONLY=Conv ...    only the ops whose name starts with "Conv"
    GLASSGRAD_SANITIZE_ONLY=BatchNorm,Sum ...   only those starting with one of the prefixes
"""
import os
import sys

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "python-bindings", "tests"))

import glassgrad
from glassgrad.testing import run_kernel
from op_specs import SPECS


def close(a, b, tol=None):
    if a.dtype.kind != "f":
        return np.array_equal(a, b)
    scale = max(1.0, float(np.max(np.abs(a[np.isfinite(a)]))) if np.isfinite(a).any() else 1.0)
    tol = tol or (1e-4 if a.dtype == np.float32 else 1e-9)
    return np.allclose(a, b, rtol=tol, atol=tol * scale, equal_nan=True)


def main():
    if not glassgrad.cuda.is_available():
        print("CUDA unavailable:", glassgrad.cuda.why_unavailable())
        return 2
    bad, runs = [], 0
    rng = np.random.default_rng(11)
    # e.g. "Conv" or "BatchNorm,Sum": only ops whose name starts with one of the prefixes
    only = tuple(p for p in os.environ.get("GLASSGRAD_SANITIZE_ONLY", "").split(",") if p)
    for algo in ("direct", "igemm", "winograd2", "winograd4"):
        glassgrad.cuda.set_conv_algo(algo)
        for spec in SPECS:
            if algo != "direct" and not spec.op.startswith("Conv"):
                continue
            if only and not spec.op.startswith(only):
                continue
            if getattr(spec, "cuda_unsupported", False):  # an op CUDA refuses by design: nothing runs
                continue
            for dtype in spec.dtypes:
                n = 3
                arrays = spec.inputs(rng, dtype, n)
                attrs = spec.attrs_for(n)
                for contiguous in ((True, False) if spec.noncontiguous else (True,)):
                    cpu = run_kernel(spec.op, arrays, attrs, device="cpu", contiguous=contiguous)
                    gpu = run_kernel(spec.op, arrays, attrs, device="cuda", contiguous=contiguous)
                    runs += 1
                    for k, (a, b) in enumerate(zip(cpu, gpu)):
                        if not close(a, b):
                            bad.append(f"{spec.id} {dtype} algo={algo} contiguous={contiguous} output {k}")
    glassgrad.cuda.set_conv_algo("auto")
    # Larger shapes: multi-tile GEMM, block reductions, split-K conv weight gradient.
    extra = [
        ("MatMul", [rng.standard_normal((70, 130)), rng.standard_normal((130, 65))], {}),
        ("Sum", [rng.standard_normal((3, 5000))], {"dims": [1], "keepdim": False}),
        ("Softmax", [rng.standard_normal((3, 3000))], {"dim": 1}),
        ("Conv2DBackwardWeight", [rng.standard_normal((8, 32, 16, 16)), rng.standard_normal((8, 8, 16, 16))],
         {"stride": [1, 1], "padding": [1, 1, 1, 1], "weight_shape": [8, 32, 3, 3]}),
        # register-tiled implicit GEMM: 128 x 128 tiles; 64 x 128 tiles with split k (workspace)
        ("Conv2D", [rng.standard_normal((16, 8, 32, 32)), rng.standard_normal((96, 8, 3, 3))],
         {"stride": [1, 1], "padding": [1, 1, 1, 1]}),
        ("Conv2D", [rng.standard_normal((2, 64, 8, 8)), rng.standard_normal((80, 64, 3, 3))],
         {"stride": [1, 1], "padding": [1, 1, 1, 1]}),
        ("Conv2DBackwardInput", [rng.standard_normal((2, 80, 8, 8)), rng.standard_normal((80, 64, 3, 3))],
         {"stride": [1, 1], "padding": [1, 1, 1, 1], "input_shape": [2, 64, 8, 8]}),
        ("Conv2DBackwardWeight", [rng.standard_normal((4, 40, 7, 9)), rng.standard_normal((4, 48, 3, 10))],
         {"stride": [2, 1], "padding": [1, 0, 2, 1], "weight_shape": [48, 40, 3, 3]}),
        # batchnorm: statistics over several partitions per channel (40000 values a channel); a
        # block per channel, four values a load (I = 1600) and one at a time (I = 81), forward
        # and backward; warp-per-output MatMul
        ("BatchNorm2DTrain", [rng.standard_normal((4, 3, 100, 100)), rng.random(3) + 0.5, rng.standard_normal(3)],
         {"eps": 1e-5}),
        ("BatchNorm2DBackward", [rng.standard_normal((4, 3, 100, 100)), rng.standard_normal((4, 3, 100, 100)),
                                 rng.random(3) + 0.5, rng.standard_normal(3), rng.random(3) + 0.5], {"eps": 1e-5}),
        ("BatchNorm2DTrain", [rng.standard_normal((4, 3, 40, 40)), rng.random(3) + 0.5, rng.standard_normal(3)],
         {"eps": 1e-5, "activation": "relu"}),
        ("BatchNorm2DBackward", [rng.standard_normal((4, 3, 40, 40)), rng.standard_normal((4, 3, 40, 40)),
                                 rng.random(3) + 0.5, rng.standard_normal(3), rng.random(3) + 0.5], {"eps": 1e-5}),
        ("BatchNorm2DTrain", [rng.standard_normal((5, 7, 9, 9)), rng.random(7) + 0.5, rng.standard_normal(7)],
         {"eps": 1e-5}),
        # 12800 values a channel: a block per channel forward (with ReLU), partitions merged by every
        # block of the channel backward (with the statistics' gradients)
        ("BatchNorm2DTrain", [rng.standard_normal((8, 4, 40, 40)), rng.random(4) + 0.5, rng.standard_normal(4)],
         {"eps": 1e-5, "activation": "relu"}),
        ("BatchNorm2DBackward", [rng.standard_normal((8, 4, 40, 40)), rng.standard_normal((8, 4, 40, 40)),
                                 rng.random(4) + 0.5, rng.standard_normal(4), rng.random(4) + 0.5,
                                 rng.standard_normal(4), rng.standard_normal(4)], {"eps": 1e-5}),
        ("BatchNorm2DBackward", [rng.standard_normal((5, 7, 9, 9)), rng.standard_normal((5, 7, 9, 9)),
                                 rng.random(7) + 0.5, rng.standard_normal(7), rng.random(7) + 0.5,
                                 rng.standard_normal(7), rng.standard_normal(7)], {"eps": 1e-5}),
        # the training op that also updates the running statistics and the counter: the
        # partition path, a block per channel (four values a load, and one at a time with ReLU)
        *[("BatchNorm2DTrainUpdate", [rng.standard_normal(shape), rng.random(shape[1]) + 0.5,
                                      rng.standard_normal(shape[1]), rng.standard_normal(shape[1]),
                                      rng.random(shape[1]) + 0.5, np.asarray(7, dtype=np.int64)],
           dict({"eps": 1e-5, "momentum": 0.1, "count": shape[0] * shape[2] * shape[3], "counter_add": 1}, **extra))
          for shape, extra in [((4, 3, 100, 100), {}), ((4, 3, 40, 40), {}), ((5, 7, 9, 9), {"activation": "relu"})]],
        # cross-entropy backward with "mean": the divisor summed in each block (300 rows would
        # take the separate kernel), class weights and label smoothing
        ("CrossEntropyBackward", [np.asarray(1.5), rng.standard_normal((40, 10)), rng.integers(0, 10, 40),
                                  rng.random(10) + 0.5], {"label_smoothing": 0.1}),
        ("CrossEntropyBackward", [np.asarray(1.5), rng.standard_normal((300, 10)), rng.integers(0, 10, 300)], {}),
        ("MatMul", [rng.standard_normal((32, 800)), rng.standard_normal((800, 10))], {}),
        # a short fused program (the register-file kernel): add, then ReLU
        ("FusedElementwise", [rng.standard_normal((4, 6, 9)), rng.standard_normal((4, 1, 9))],
         {"program": [0, 0, 1, 10, 2, -1], "scalars": [0.0, 0.0]}),
    ]
    # Winograd F(2x2) and F(4x4), all directions: ragged tiles, > 64 rows, asymmetric padding,
    # split weight gradients (forced algorithms), then the autotuner's timed candidates (auto).
    wx, ww = rng.standard_normal((2, 70, 6, 5)), rng.standard_normal((66, 70, 3, 3))
    wg = rng.standard_normal((2, 66, 7, 4))
    wattrs = {"stride": [1, 1], "padding": [1, 2, 0, 1]}
    for algo in ("winograd2", "winograd4", "auto"):
        for op, arrays, attrs in [("Conv2D", [wx, ww, rng.standard_normal(66)], dict(wattrs, activation="relu")),
                                  ("Conv2DBackwardInput", [wg, ww], dict(wattrs, input_shape=[2, 70, 6, 5])),
                                  ("Conv2DBackwardWeight", [wx, wg], dict(wattrs, weight_shape=[66, 70, 3, 3]))]:
            extra.append((op, arrays, attrs, algo))
    # The narrow and wide product tiles, forced: a first layer's weight gradient (32 x 32, 64 x 32
    # and 128 x 64 tiles, the reduction of many k partitions), forward and input gradient (32 x 64,
    # 128 x 64), a 1x1 stride-2 input gradient (dx zeroed, then the one phase with taps), and
    # Winograd weight gradients of few channels (32 x 32).
    nx, nw = rng.standard_normal((4, 3, 17, 15)), rng.standard_normal((20, 3, 3, 3))
    ng = rng.standard_normal((4, 20, 17, 15))
    nattrs = {"stride": [1, 1], "padding": [1, 1, 1, 1]}
    for algo in ("igemm:32x32k16", "igemm:64x32"):
        extra.append(("Conv2DBackwardWeight", [nx, ng], dict(nattrs, weight_shape=[20, 3, 3, 3]), algo))
    for algo in ("igemm:32x64", "igemm:128x64"):
        extra.append(("Conv2D", [nx, nw, rng.standard_normal(20)], nattrs, algo))
        extra.append(("Conv2DBackwardInput", [ng, nw], dict(nattrs, input_shape=[4, 3, 17, 15]), algo))
    extra.append(("Conv2DBackwardWeight", [nx, ng], dict(nattrs, weight_shape=[20, 3, 3, 3]), "igemm:128x64"))
    sw = rng.standard_normal((12, 10, 1, 1))
    extra.append(("Conv2DBackwardInput", [rng.standard_normal((2, 12, 4, 5)), sw],
                  {"stride": [2, 2], "padding": [0, 0, 0, 0], "input_shape": [2, 10, 7, 9]}, "igemm"))
    for algo in ("winograd2:32x32k16", "winograd4:32x32k16"):
        extra.append(("Conv2DBackwardWeight", [rng.standard_normal((2, 16, 9, 10)), rng.standard_normal((2, 24, 9, 10))],
                      dict(nattrs, weight_shape=[24, 16, 3, 3]), algo))
    # 128 x 128 k-16 tiles with 8 x 4 micro-tiles a warp ("w"), every direction of the implicit
    # GEMM (a strided layer) and Winograd's products; the few-channel direct input gradient.
    sx, swt = rng.standard_normal((2, 20, 9, 11)), rng.standard_normal((130, 20, 3, 3))
    sg = rng.standard_normal((2, 130, 5, 6))
    sattrs = {"stride": [2, 2], "padding": [1, 1, 1, 1]}
    extra.append(("Conv2D", [sx, swt, rng.standard_normal(130)], sattrs, "igemm:128x128w"))
    extra.append(("Conv2DBackwardInput", [sg, swt], dict(sattrs, input_shape=[2, 20, 9, 11]), "igemm:128x128w"))
    extra.append(("Conv2DBackwardWeight", [sx, sg], dict(sattrs, weight_shape=[130, 20, 3, 3]), "igemm:128x128w"))
    extra.append(("Conv2D", [sx, swt, rng.standard_normal(130)], sattrs, "igemm:128x64k16"))
    extra.append(("Conv2DBackwardInput", [sg, swt], dict(sattrs, input_shape=[2, 20, 9, 11]), "igemm:128x64k16"))
    for algo in ("winograd4:128x128w", "winograd2:64x128w"):
        for op, arrays, attrs in [("Conv2D", [wx, ww, rng.standard_normal(66)], wattrs),
                                  ("Conv2DBackwardInput", [wg, ww], dict(wattrs, input_shape=[2, 70, 6, 5])),
                                  ("Conv2DBackwardWeight", [wx, wg], dict(wattrs, weight_shape=[66, 70, 3, 3]))]:
            extra.append((op, arrays, attrs, algo))
    extra.append(("Conv2DBackwardInput", [rng.standard_normal((2, 9, 33, 40)), rng.standard_normal((9, 3, 3, 3))],
                  {"stride": [1, 1], "padding": [1, 1, 1, 1], "input_shape": [2, 3, 33, 40]}, "direct:fewc"))
    for item in extra:
        op, arrays, attrs = item[:3]
        if only and not op.startswith(only):
            continue
        glassgrad.cuda.set_conv_algo(item[3] if len(item) > 3 else "auto")
        arrays = [a if a.dtype == np.int64 else a.astype(np.float32) for a in arrays]
        cpu = run_kernel(op, arrays, attrs, device="cpu")
        gpu = run_kernel(op, arrays, attrs, device="cuda")
        runs += 1
        if not all(close(a, b, 2e-4 if len(item) > 3 else None) for a, b in zip(cpu, gpu)):
            bad.append(f"{op} (large{', ' + item[3] if len(item) > 3 else ''})")
    glassgrad.cuda.set_conv_algo("auto")
    glassgrad.cuda.synchronize()
    print(f"{runs} CUDA op runs, {len(bad)} mismatches")
    for b in bad:
        print("  mismatch:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
