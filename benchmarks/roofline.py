"""Roofline figures for the benchmark rows: how much arithmetic and memory traffic a workload
needs, what rate it achieved, and what fraction of the device's limits that is
(docs/performance.md, "How far from the limit", defines every count and peak used here).

    flop                     the direct count: a convolution in any direction 2 N K Ho Wo C R S / groups
    algorithm_flop           what glassgrad's algorithm multiplies: Winograd F(m x m, 3x3)'s point
                             products 2 (m+2)^2 T C K (T tiles); the direct count for every other one
    bytes                    compulsory traffic: each operand read once and the result written once
    gflop_per_s, gbyte_per_s flop / time and bytes / time
    fma_peak_fraction        algorithm_flop (flop for PyTorch's rows) / time / the FP32 FMA peak
    bandwidth_peak_fraction  bytes / time / the memory bandwidth

Peaks: the CPU's are measured at the start of a run on the run's thread count (glassgrad's
_C.cpu_peak: a register-only FMA loop and a copy larger than the last-level cache, the fastest
of many short runs); a GPU's come from its device properties: multiprocessors (those the
process sees: 8 on an 8-SM MPS slice) x FP32 lanes per multiprocessor x 2 x clock, and
2 x memory clock x bus width (double data rate).
"""
from __future__ import annotations

import math
import os
import re
import sys
from typing import Dict, List, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import ROOFLINE_COLUMNS as COLUMNS

DIRECTIONS = ("forward", "input grad", "weight grad")

# FP32 multiply-add lanes per multiprocessor by compute capability (major, minor); a major version
# alone covers its minors not listed. docs/performance.md "How far from the limit" lists them.
FP32_LANES = {(5, None): 128, (6, 0): 64, (6, None): 128, (7, None): 64, (8, 0): 64, (8, None): 128,
              (9, None): 128, (10, None): 128, (12, None): 128}


class Peak:
    """A device's FP32 FMA peak (FLOP/s) and memory bandwidth (bytes/s), and how they were found."""

    def __init__(self, flops: float, bytes_per_s: float, how: str):
        self.flops, self.bytes_per_s, self.how = flops, bytes_per_s, how

    def note(self) -> str:
        return f"peak {self.flops / 1e9:,.0f} GFLOP/s FP32 FMA, {self.bytes_per_s / 1e9:,.0f} GB/s ({self.how})"


def cpu_peak(threads: int) -> Peak:
    """The CPU's measured peaks on `threads` threads (0: glassgrad's current count)."""
    from glassgrad import _C
    p = _C.cpu_peak(threads, 0.005, 20)
    return Peak(p["fma_flops"], p["copy_bytes_per_s"],
                f"measured on {p['threads']} thread{'s' if p['threads'] > 1 else ''}: {p['isa']} FMA loop, "
                f"{p['copy_bytes'] >> 20} MiB copy")


def device_peak(device: str) -> Peak:
    """The peaks of glassgrad's device `device` ("cpu": measured on the current thread count)."""
    if device.startswith("cuda"):
        import glassgrad as gg
        return cuda_peak(gg.cuda.device_info(int(device.split(":", 1)[1]) if ":" in device else 0))
    return cpu_peak(0)


def fp32_lanes(major: int, minor: int) -> int:
    return FP32_LANES.get((major, minor)) or FP32_LANES.get((major, None)) or 128


def cuda_peak(info: Dict) -> Peak:
    """A GPU's peaks from glassgrad.cuda.device_info() (the SM count the process sees)."""
    major, minor = info["compute_capability"]
    sms, lanes = int(info["multiprocessors"]), fp32_lanes(int(major), int(minor))
    flops = sms * lanes * 2.0 * info["clock_khz"] * 1e3
    bw = 2.0 * info["memory_clock_khz"] * 1e3 * info["memory_bus_width_bits"] / 8
    return Peak(flops, bw, f"{sms} SMs x {lanes} FP32 lanes x 2 x {info['clock_khz'] / 1e6:.2f} GHz; "
                           f"2 x {info['memory_clock_khz'] / 1e6:.2f} GHz x {info['memory_bus_width_bits']} bits")


def out_size(h: int, r: int, s: int, p: int) -> int:
    return (h + 2 * p - r) // s + 1


def conv_flop(n, c, h, w, k, r, s, p, groups: int = 1) -> int:
    """The direct count of one convolution (each direction performs the same multiply-adds)."""
    return 2 * n * k * out_size(h, r, s, p) * out_size(w, r, s, p) * (c // groups) * r * r


def winograd_flop(n, c, h, w, k, p, m: int, direction: str, stride: int = 1) -> int:
    """Winograd F(m x m, 3x3)'s point products: 2 alpha^2 x tiles x C x K, where the tiles cover
    the output of the forward-like convolution it runs (the input gradient's is dx, [H, W]);
    alpha = m + 2 at stride 1, 2m + 1 at stride 2 (F(2x2, 3x3) at stride 2: 25 points, the
    forward and the weight gradient only). The transforms' additions are left out (per tile,
    O(C + K) against the products' O(C K))."""
    oh, ow = out_size(h, 3, stride, p), out_size(w, 3, stride, p)
    th, tw = (h, w) if direction == "input grad" else (oh, ow)
    tiles = n * math.ceil(th / m) * math.ceil(tw / m)
    alpha = m + 2 if stride == 1 else 2 * m + 1
    return 2 * alpha ** 2 * tiles * c * k


def conv_bytes(n, c, h, w, k, r, s, p, direction: str, element: int = 4) -> int:
    """Each operand read once, the result written once: forward x, w -> y; input gradient gy, w
    -> dx; weight gradient x, gy -> dw."""
    x = n * c * h * w
    y = n * k * out_size(h, r, s, p) * out_size(w, r, s, p)
    wt = k * c * r * r
    return element * (x + wt + y)  # every direction touches the same three tensors once


def columns(flop: float, seconds: float, peak: Optional[Peak], nbytes: float,
            algorithm_flop: Optional[float] = None) -> Dict[str, str]:
    """The roofline columns of one row (blank where unknown)."""
    out = {c: "" for c in COLUMNS}
    if seconds <= 0:
        return out
    out["flop"] = f"{flop:.6g}"
    out["bytes"] = f"{nbytes:.6g}"
    out["gflop_per_s"] = f"{flop / seconds / 1e9:.6g}"
    out["gbyte_per_s"] = f"{nbytes / seconds / 1e9:.6g}"
    if algorithm_flop is not None:
        out["algorithm_flop"] = f"{algorithm_flop:.6g}"
    if peak is not None:
        done = algorithm_flop if algorithm_flop is not None else flop
        out["peak_gflop_per_s"] = f"{peak.flops / 1e9:.6g}"
        out["peak_gbyte_per_s"] = f"{peak.bytes_per_s / 1e9:.6g}"
        out["fma_peak_fraction"] = f"{done / seconds / peak.flops:.4g}"
        out["bandwidth_peak_fraction"] = f"{nbytes / seconds / peak.bytes_per_s:.4g}"
    return out


def cpu_conv_algorithm(op: str, x_shape, w_shape, stride: int, padding: int) -> str:
    """The algorithm glassgrad's CPU kernel runs for this float32 convolution ("winograd2",
    "winograd4", "winograd2s2" (F(2x2, 3x3) at stride 2), "direct", "dots", "dense" or "gemm")."""
    from glassgrad import _C
    attrs = {"stride": [stride, stride], "padding": [padding] * 4}
    return _C.cpu_conv_algorithm(op, list(x_shape), list(w_shape), attrs, "float32")


def cuda_conv_algorithm(choices: List[str], op: str, n, c, h, w, k, r, s, p) -> str:
    """The algorithm the CUDA autotuner cached for this float32 convolution, from the lines of
    glassgrad.cuda.conv_choices() ("winograd2", "winograd4", or the choice's own words)."""
    oh, ow = out_size(h, r, s, p), out_size(w, r, s, p)
    what = (f"{op} x [{n}, {c}, {h}, {w}] w [{k}, {c}, {r}, {r}] y [{n}, {k}, {oh}, {ow}] stride {s}x{s} "
            f"pad {p},{p} float32")
    for line in choices:
        if line.startswith(what):
            chosen = line.split("): ", 1)[-1]
            m = re.match(r"winograd F\((\d)x\d\)", chosen)
            return f"winograd{m.group(1)}" if m else chosen.split(" (")[0].split(" tile")[0]
    return ""


def algorithm_flop(algorithm: str, n, c, h, w, k, r, s, p, direction: str) -> Tuple[int, str]:
    """(multiply-adds x 2 that `algorithm` performs, its name for the notes)."""
    m = re.fullmatch(r"winograd(\d)(s2)?", algorithm or "")
    if m:
        name = f"Winograd F({m.group(1)}x{m.group(1)})" + (" at stride 2" if m.group(2) else "")
        return winograd_flop(n, c, h, w, k, p, int(m.group(1)), direction, 2 if m.group(2) else 1), name
    return conv_flop(n, c, h, w, k, r, s, p), algorithm or "unknown"


OP_OF = {"forward": "Conv2D", "input grad": "Conv2DBackwardInput", "weight grad": "Conv2DBackwardWeight"}


def layer_counts(model, input_shape) -> List[Tuple[int, int]]:
    """One direction's (FLOPs, bytes) of each Conv2d, ConvTranspose2d and Linear layer of a glassgrad
    model on a batch of `input_shape`, in the order the forward pass runs them: the direct count
    (a convolution 2 x output elements x its weight's fan-in; a transposed one 2 x input elements x
    out_channels / groups x R x S, the convolution whose adjoint it is), its operands read once and
    result written once. Shapes come from one forward pass, recorded by wrapping each layer's forward."""
    import glassgrad as gg
    seen: List[Tuple[object, tuple, tuple]] = []
    wrapped = []
    for mod in model.modules():
        if isinstance(mod, (gg.nn.Conv2d, gg.nn.ConvTranspose2d, gg.nn.Linear)):
            original = mod.forward

            def record(x, *a, _m=mod, _f=original, **kw):
                out = _f(x, *a, **kw)
                seen.append((_m, tuple(x.shape), tuple(out.shape)))
                return out

            mod.forward = record
            wrapped.append(mod)
    try:
        with gg.no_grad():
            model(gg.zeros(tuple(input_shape)))
    finally:
        for mod in wrapped:
            del mod.forward
    counts = []
    for mod, xs, ys in seen:
        w = tuple(mod.weight.shape)
        if isinstance(mod, gg.nn.ConvTranspose2d):  # weight (C_in, C_out / groups, R, S)
            one = 2 * math.prod(xs) * math.prod(w[1:])
        elif isinstance(mod, gg.nn.Conv2d):  # weight (C_out, C_in / groups, R, S)
            one = 2 * math.prod(ys) * math.prod(w[1:])
        else:
            one = 2 * math.prod(ys) * xs[-1]
        counts.append((one, 4 * (math.prod(xs) + math.prod(w) + math.prod(ys))))
    return counts


def step_counts(model, input_shape) -> Tuple[int, int]:
    """(FLOPs, bytes) of one training step of a glassgrad model on a batch of `input_shape`
    (layer_counts): each layer's forward, weight gradient and input gradient, except a first
    layer's input gradient (its input is the data and needs none)."""
    flop = nbytes = 0
    for i, (one, io) in enumerate(layer_counts(model, input_shape)):
        directions = 2 if i == 0 else 3
        flop += directions * one
        nbytes += directions * io
    return flop, nbytes


def dcgan_counts(netG, netD, noise_shape, image_shape) -> Tuple[int, int]:
    """(FLOPs, bytes) of one DCGAN iteration (examples-and-tutorials/dcgan.py's train_step): the
    discriminator runs forward three times (real, detached fake, fake for the generator's loss)
    with a weight gradient each time, and input gradients below its first layer on the first two
    and through all of its layers on the third (they reach the generator); the generator runs
    forward once and backward once (weight gradients, input gradients but its first layer's)."""
    d = layer_counts(netD, image_shape)
    g = layer_counts(netG, noise_shape)
    d_one = sum(c[0] for c in d), sum(c[1] for c in d)
    d_first = d[0] if d else (0, 0)
    g_one = sum(c[0] for c in g), sum(c[1] for c in g)
    g_first = g[0] if g else (0, 0)
    flop = 3 * d_one[0] + 3 * d_one[0] + (3 * d_one[0] - 2 * d_first[0]) + 3 * g_one[0] - g_first[0]
    nbytes = 3 * d_one[1] + 3 * d_one[1] + (3 * d_one[1] - 2 * d_first[1]) + 3 * g_one[1] - g_first[1]
    return flop, nbytes
