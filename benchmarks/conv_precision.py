"""float32 convolution error of every algorithm, against a float64 reference, next to PyTorch's.

For every convolution of SimpleCNN and ResNet-18 (CIFAR) and each direction (forward, input
gradient, weight gradient), every algorithm glassgrad can run on the device is forced in turn
(CPU: glassgrad.kernels.set_cpu_conv_algo 'gemm', 'winograd2', 'winograd4'; CUDA:
glassgrad.cuda.set_conv_algo with each algorithm and product tile, glassgrad.cuda.conv_algo_specs())
plus the default choice ('auto') and the default with glassgrad.backends.cudnn.allow_fast_winograd.
Each runs on the same float32 data; the errors are measured against the float64 result of the
same (float32-rounded) data, and PyTorch's float32 result on that data (oneDNN on the CPU, cuDNN
with TF32 off on the GPU) is measured the same way.

Data as in training: He-initialized weights (std sqrt(2 / fan_in)), inputs as after
BatchNorm and ReLU (max(N(0, 1), 0); the first layer's input a normalized image, N(0, 1)),
output gradients N(0, 1).

Errors (docs/numerics.md):
    max_rel_error   max |y - y64| / max |y64|   (the largest error, relative to the output's scale)
    rms_rel_error   ||y - y64||_2 / ||y64||_2
ratio_vs_torch is glassgrad's error over PyTorch's on the same shape and direction.

--8<-- [start:usage]
python benchmarks/conv_precision.py                    # CPU: every shape, direction and algorithm
python benchmarks/conv_precision.py --device cuda      # CUDA: every algorithm and tile
python benchmarks/conv_port_drift.py                   # ResNet-18 steps: float32 vs float64 drift
python benchmarks/conv_precision.py --markdown benchmarks/results/conv_precision.csv  # the table
--8<-- [end:usage]
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Dict, List, Optional, Tuple

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Results, add_common_args, apply_threads, torch_or_none
from ordinary_gpu import CONV_SHAPES

import glassgrad as gg
import glassgrad.kernels as K

# (N, C, H, W, K, kernel, stride, padding, label): ordinary_gpu.py's convolutions of the two models,
# at batch 8 (issue 13's extra shape left out).
SHAPES = [(8,) + s[1:] for s in CONV_SHAPES if s[8] != "issue 13"]
TINY_SHAPES = [(2, 16, 8, 8, 16, 3, 1, 1, "tiny")]
DIRECTIONS = ("forward", "input_grad", "weight_grad")
CPU_ALGOS = ("gemm", "winograd2", "winograd4")


def problem(shape, seed: int = 0) -> Dict[str, np.ndarray]:
    """The float32 data of one shape (float64 arrays holding float32 values)."""
    n, c, h, w, k, r, stride, pad, label = shape
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, h, w))
    if c > 3:  # inside the network: after BatchNorm and ReLU
        x = np.maximum(x, 0)
    wt = rng.standard_normal((k, c, r, r)) * np.sqrt(2.0 / (c * r * r))
    ho = (h + 2 * pad - r) // stride + 1
    wo = (w + 2 * pad - r) // stride + 1
    gy = rng.standard_normal((n, k, ho, wo))
    as32 = lambda a: a.astype(np.float32).astype(np.float64)  # noqa: E731
    return {"x": as32(x), "w": as32(wt), "gy": as32(gy)}


def glassgrad_conv(data, shape, direction: str, dtype, device: str) -> np.ndarray:
    n, c, h, w, k, r, stride, pad, _ = shape
    attrs = {"stride": [stride, stride], "padding": [pad, pad, pad, pad]}
    x, wt, gy = (data[key].astype(dtype) for key in ("x", "w", "gy"))
    if direction == "forward":
        (y,) = K.run_numpy("Conv2D", x, wt, device=device, **attrs)
    elif direction == "input_grad":
        (y,) = K.run_numpy("Conv2DBackwardInput", gy, wt, device=device, input_shape=list(x.shape), **attrs)
    else:
        (y,) = K.run_numpy("Conv2DBackwardWeight", x, gy, device=device, weight_shape=list(wt.shape), **attrs)
    return np.asarray(y, dtype=np.float64)


def torch_conv(torch, data, shape, direction: str, dtype, device: str) -> np.ndarray:
    stride, pad = shape[6], shape[7]
    t = {key: torch.tensor(data[key], dtype=dtype, device=device) for key in ("x", "w", "gy")}
    if direction == "forward":
        y = torch.nn.functional.conv2d(t["x"], t["w"], stride=stride, padding=pad)
    elif direction == "input_grad":
        y = torch.nn.grad.conv2d_input(t["x"].shape, t["w"], t["gy"], stride=stride, padding=pad)
    else:
        y = torch.nn.grad.conv2d_weight(t["x"], t["w"].shape, t["gy"], stride=stride, padding=pad)
    return y.detach().to("cpu", torch.float64).numpy()


def errors(y: np.ndarray, ref: np.ndarray) -> Tuple[float, float]:
    scale = float(np.max(np.abs(ref))) or 1.0
    max_rel = float(np.max(np.abs(y - ref))) / scale
    rms_rel = float(np.sqrt(np.sum((y - ref) ** 2) / max(np.sum(ref ** 2), 1e-300)))
    return max_rel, rms_rel


def winograd_shape(shape, min_channels: int = 1) -> bool:
    """3x3 at stride 1, with at least min_channels input and output channels."""
    return shape[5] == 3 and shape[6] == 1 and min(shape[1], shape[4]) >= min_channels


def algorithms(device: str, shape) -> List[str]:
    """The forced algorithms to run on this shape, then 'auto' and 'auto+fast_winograd'. The CPU's
    Winograd paths take layers of 8 or more channels each way (conv_winograd.h), a forced one
    elsewhere runs the GEMM paths: those rows are left out."""
    if device == "cpu":
        forced = [a for a in CPU_ALGOS if a == "gemm" or winograd_shape(shape, min_channels=8)]
    else:
        forced = [s for s in gg.cuda.conv_algo_specs()
                  if not s.startswith("winograd") or winograd_shape(shape)]
    return forced + ["auto", "auto+fast_winograd"]


def run_forced(algo: str, device: str, fn):
    """fn() with `algo` forced on the device (and the fast-Winograd switch for 'auto+fast_winograd')."""
    cudnn = gg.backends.cudnn
    fast_before = cudnn.allow_fast_winograd
    base = algo.split("+")[0]
    try:
        cudnn.allow_fast_winograd = algo.endswith("+fast_winograd")
        if device == "cpu":
            K.set_cpu_conv_algo(base)
        else:
            gg.cuda.set_conv_algo(base)
            gg.cuda.clear_conv_choices()
        return fn()
    finally:
        cudnn.allow_fast_winograd = fast_before
        if device == "cpu":
            K.set_cpu_conv_algo("auto")
        else:
            gg.cuda.set_conv_algo("auto")


def markdown(path: str, device: str) -> str:
    """The latest run's table for docs/numerics.md: per shape and direction, PyTorch's max relative
    error and each glassgrad algorithm's as a multiple of it (CUDA: the worst tile of each)."""
    from common import read_rows
    rows = [r for r in read_rows([path]) if r["device"] == device and r["metric"] == "max_rel_error"]
    if not rows:
        return f"no {device} rows in {path}"
    last = max((r["date"], r["commit"]) for r in rows)
    rows = [r for r in rows if (r["date"], r["commit"]) == last]
    torch_err = {r["workload"]: float(r["value"]) for r in rows if r["framework"] == "torch"}
    algos = ["gemm", "winograd2", "winograd4"] if device == "cpu" else ["direct", "igemm", "winograd2", "winograd4"]
    cols = algos + ["auto", "auto+fast_winograd"]
    worst: Dict[Tuple[str, str], float] = {}
    for r in rows:
        if r["framework"] != "glassgrad" or not r["ratio_vs_torch"]:
            continue
        for base in torch_err:
            if r["workload"].startswith(base + " "):
                algo = r["workload"][len(base) + 1:]
                family = algo if algo.startswith("auto") else algo.split(":")[0]
                worst[base, family] = max(worst.get((base, family), 0.0), float(r["ratio_vs_torch"]))
    out = ["| convolution | direction | PyTorch float32 | " + " | ".join(cols) + " |",
           "|---|---|---|" + "---|" * len(cols)]
    for base, err in torch_err.items():
        label, direction = base.rsplit(" ", 1)
        cells = [f"{worst[base, c]:.2f}x" if (base, c) in worst else "" for c in cols]
        out.append(f"| {label} | {direction} | {err:.2e} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(p)
    p.add_argument("--only", default="", help="comma-separated substrings of shape labels to run")
    p.add_argument("--markdown", metavar="CSV", help="print the latest run's table from CSV (docs/numerics.md) and exit")
    args = p.parse_args(argv)
    device = "cuda" if args.device.startswith("cuda") else "cpu"
    if args.markdown:
        print(markdown(args.markdown, device))
        return 0
    if device == "cuda" and not gg.cuda.is_available():
        print("conv_precision.py: no CUDA GPU visible:", gg.cuda.why_unavailable(), file=sys.stderr)
        return 2
    torch = None if args.no_torch else torch_or_none()
    if torch is not None and device == "cuda":
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
    res = Results("conv_precision", args.csv, args.tiny, args.notes)
    note = apply_threads(args.threads, torch)
    tdev = "cuda" if device == "cuda" else "cpu"
    shapes = TINY_SHAPES if args.tiny else SHAPES
    if args.only:
        shapes = [s for s in shapes if any(o.strip() in s[8] for o in args.only.split(","))]
    worst: Dict[str, float] = {}
    for shape in shapes:
        data = problem(shape)
        for direction in DIRECTIONS:
            ref = (torch_conv(torch, data, shape, direction, torch.float64, "cpu") if torch is not None
                   else glassgrad_conv(data, shape, direction, np.float64, "cpu"))
            workload = f"{shape[8]} {direction}"
            torch_err = None
            if torch is not None:
                torch_err = errors(torch_conv(torch, data, shape, direction, torch.float32, tdev), ref)
                res.add(device, workload, "max_rel_error", torch_err[0], "", "torch", notes=note)
                res.add(device, workload, "rms_rel_error", torch_err[1], "", "torch", notes=note)
            for algo in algorithms(device, shape):
                y = run_forced(algo, device, lambda: glassgrad_conv(data, shape, direction, np.float32, device))
                err = errors(y, ref)
                ratios = [None, None] if torch_err is None else [e / max(t, 1e-30) for e, t in zip(err, torch_err)]
                res.add(device, f"{workload} {algo}", "max_rel_error", err[0], "", "glassgrad", ratios[0], note)
                res.add(device, f"{workload} {algo}", "rms_rel_error", err[1], "", "glassgrad", ratios[1], note)
                if ratios[0] is not None:
                    worst[algo] = max(worst.get(algo, 0.0), ratios[0])
    path = res.write()
    if worst:
        print("worst max-error ratio to PyTorch per algorithm: "
              + ", ".join(f"{a} {r:.2f}x" for a, r in sorted(worst.items(), key=lambda kv: kv[1])))
    print(f"rows appended to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
