"""Microseconds per kernel per shape, with the rate it reaches, next to PyTorch's same op.

    python benchmarks/kernel_latency.py                  # CPU, batch 32
    python benchmarks/kernel_latency.py --device cuda    # on the GPU (PyTorch with TF32 off)
    python benchmarks/kernel_latency.py --tiny           # tiny shapes, seconds (CI)
    python benchmarks/kernel_latency.py --only Conv2D    # ops whose name contains Conv2D

Shapes: the seed's SimpleCNN (conv 1->16 and 16->32 3x3 on 28x28 Fashion-MNIST, pools, the
800->10 classifier) and ResNet-18 CIFAR (3x3 convs of width 64/128/256/512 on 32/16/8/4 maps,
the strided 64->128 conv, the 512->10 classifier), at --batch (default 32); plus one 512^3
matrix product as a reference for the GEMM rate.

Each kernel runs through glassgrad._C.run_op on inputs made once (random normal float32, never
zeros); run_op allocates the outputs on every call, as PyTorch's functional ops do. The small
shapes stay in cache between repeats, for both libraries alike. The figure
is the median of repeats after warm-up, synchronizing before and after each repeat (on CUDA:
glassgrad's and torch's device synchronize). Rates: GFLOP/s for convolutions and matrix products
(2 flops per multiply-add, the direct algorithm's count), GB/s for the memory-bound ops, counting
the fewest bytes the op must move (each input read once, each output written once).

PyTorch runs the same op through torch.nn.functional / the aten op autograd would call
(convolution_backward with one output mask, native_batch_norm_backward,
max_pool2d_with_indices_backward, the log_softmax + nll_loss pair), with TF32 off on the GPU.
ratio_vs_torch = glassgrad's time / PyTorch's (< 1: glassgrad is faster).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (Results, adaptive_repeats, add_common_args, apply_threads, gg_device, gg_sync,
                    spread_note, time_repeats, torch_name, torch_or_none, torch_setup)

import glassgrad as gg

F32 = 4


@dataclass
class Case:
    """One timed unit: a chain of glassgrad kernels and the PyTorch code doing the same."""
    model: str
    op: str
    desc: str
    arrays: Dict[str, np.ndarray]
    # glassgrad: [(op, [names of arrays or outputs 'opindex.k'], attrs)]
    gg_ops: List[tuple]
    work: float                 # flops or bytes of the whole chain
    unit: str                   # "GFLOP/s" or "GB/s"
    torch_fn: Callable          # (torch, tensors dict) -> callable running the op
    notes: str = ""

    @property
    def workload(self) -> str:
        return f"{self.model}: {self.op} {self.desc}"


def _s(shape) -> str:
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def conv_cases(model: str, n: int, c: int, h: int, k: int, r: int, stride: int, pad: int, rng) -> List[Case]:
    ho = (h + 2 * pad - r) // stride + 1
    x = rng.standard_normal((n, c, h, h), dtype=np.float32)
    w = rng.standard_normal((k, c, r, r), dtype=np.float32) * np.float32(1.0 / np.sqrt(c * r * r))
    gy = rng.standard_normal((n, k, ho, ho), dtype=np.float32)
    flops = 2.0 * n * k * ho * ho * c * r * r
    attrs = {"stride": [stride, stride], "padding": [pad] * 4}
    desc = f"x{_s(x.shape)} w{_s(w.shape)} s{stride} p{pad}"
    arrays = {"x": x, "w": w, "gy": gy}
    st, pd = [stride, stride], [pad, pad]

    def t_fwd(torch, t):
        F = torch.nn.functional
        return lambda: F.conv2d(t["x"], t["w"], stride=st, padding=pd)

    def t_bwd(mask):
        def make(torch, t):
            cb = torch.ops.aten.convolution_backward
            return lambda: cb(t["gy"], t["x"], t["w"], None, st, pd, [1, 1], False, [0, 0], 1, mask)
        return make

    return [
        Case(model, "Conv2D", desc, arrays, [("Conv2D", ["x", "w"], attrs)], flops, "GFLOP/s", t_fwd),
        Case(model, "Conv2DBackwardInput", desc, arrays,
             [("Conv2DBackwardInput", ["gy", "w"], dict(attrs, input_shape=list(x.shape)))], flops, "GFLOP/s",
             t_bwd([True, False, False])),
        Case(model, "Conv2DBackwardWeight", desc, arrays,
             [("Conv2DBackwardWeight", ["x", "gy"], dict(attrs, weight_shape=list(w.shape)))], flops, "GFLOP/s",
             t_bwd([False, True, False])),
    ]


def relu_case(model: str, shape, rng) -> Case:
    x = rng.standard_normal(shape, dtype=np.float32)
    return Case(model, "ReLU", _s(shape), {"x": x}, [("ReLU", ["x"], {})], 2.0 * x.size * F32, "GB/s",
                lambda torch, t: (lambda: torch.nn.functional.relu(t["x"])))


def bn_cases(model: str, shape, rng) -> List[Case]:
    x = rng.standard_normal(shape, dtype=np.float32) * np.float32(2.0) + np.float32(0.5)
    c = shape[1]
    gamma = rng.standard_normal(c, dtype=np.float32)
    beta = rng.standard_normal(c, dtype=np.float32)
    gy = rng.standard_normal(shape, dtype=np.float32)
    mean = x.mean(axis=(0, 2, 3)).astype(np.float32)
    var = x.var(axis=(0, 2, 3)).astype(np.float32)
    arrays = {"x": x, "gamma": gamma, "beta": beta, "gy": gy, "mean": mean, "var": var}

    def t_fwd(torch, t):
        return lambda: torch.native_batch_norm(t["x"], t["gamma"], t["beta"], None, None, True, 0.1, 1e-5)

    def t_bwd(torch, t):
        _, sm, si = torch.native_batch_norm(t["x"], t["gamma"], t["beta"], None, None, True, 0.1, 1e-5)
        bb = torch.ops.aten.native_batch_norm_backward
        return lambda: bb(t["gy"], t["x"], t["gamma"], None, None, sm, si, True, 1e-5, [True, True, True])

    return [
        Case(model, "BatchNorm2DTrain", _s(shape), arrays,
             [("BatchNorm2DTrain", ["x", "gamma", "beta"], {"eps": 1e-5})],
             2.0 * x.size * F32, "GB/s", t_fwd, "bytes: x read once, y written once"),
        Case(model, "BatchNorm2DBackward", _s(shape), arrays,
             [("BatchNorm2DBackward", ["gy", "x", "gamma", "mean", "var"], {"eps": 1e-5})],
             3.0 * x.size * F32, "GB/s", t_bwd, "bytes: grad_y and x read once, dx written once"),
    ]


def pool_cases(model: str, shape, rng) -> List[Case]:
    x = rng.standard_normal(shape, dtype=np.float32)
    n, c, h, w = shape
    ys = (n, c, h // 2, w // 2)
    gy = rng.standard_normal(ys, dtype=np.float32)
    attrs = {"kernel": [2, 2], "stride": [2, 2], "padding": [0, 0]}
    ny = int(np.prod(ys))

    def t_fwd(torch, t):
        return lambda: torch.nn.functional.max_pool2d(t["x"], 2)

    def t_bwd(torch, t):
        _, idx = torch.nn.functional.max_pool2d(t["x"], 2, return_indices=True)
        pb = torch.ops.aten.max_pool2d_with_indices_backward
        return lambda: pb(t["gy"], t["x"], [2, 2], [2, 2], [0, 0], [1, 1], False, idx)

    return [
        Case(model, "MaxPool2D", _s(shape) + " k2 s2", {"x": x, "gy": gy}, [("MaxPool2D", ["x"], attrs)],
             (x.size + ny) * F32, "GB/s", t_fwd),
        Case(model, "MaxPool2DBackward", _s(shape) + " k2 s2", {"x": x, "gy": gy},
             [("MaxPool2DBackward", ["gy", "x"], attrs)], (2 * x.size + ny) * F32, "GB/s", t_bwd,
             "glassgrad finds each window's argmax in x again; PyTorch reads the indices saved by the forward"),
    ]


def matmul_case(model: str, m: int, k: int, n: int, rng) -> Case:
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    return Case(model, "MatMul", f"{_s(a.shape)}x{_s(b.shape)}", {"a": a, "b": b}, [("MatMul", ["a", "b"], {})],
                2.0 * m * k * n, "GFLOP/s", lambda torch, t: (lambda: torch.matmul(t["a"], t["b"])))


def cross_entropy_case(model: str, n: int, classes: int, rng) -> Case:
    logits = rng.standard_normal((n, classes), dtype=np.float32)
    labels = rng.integers(0, classes, n).astype(np.int64)
    one = np.ones((), np.float32)

    def t_fn(torch, t):
        aten = torch.ops.aten
        g = torch.ones((), device=t["logits"].device)

        def run():  # what autograd runs for F.cross_entropy forward + backward
            ls = torch._log_softmax(t["logits"], 1, False)
            loss, total = aten.nll_loss_forward(ls, t["labels"], None, 1, -100)
            gls = aten.nll_loss_backward(g, ls, t["labels"], None, 1, -100, total)
            return aten._log_softmax_backward_data(gls, ls, 1, torch.float32)
        return run

    return Case(model, "CrossEntropy fwd+bwd", f"logits{_s(logits.shape)}",
                {"logits": logits, "labels": labels, "one": one},
                [("CrossEntropy", ["logits", "labels"], {}), ("CrossEntropyBackward", ["one", "logits", "labels"], {})],
                (3.0 * logits.size) * F32 + 2.0 * n * 8, "GB/s", t_fn, "bytes: logits read twice, dlogits written")


def build_cases(batch: int, tiny: bool, seed: int = 0) -> List[Case]:
    rng = np.random.default_rng(seed)
    n = batch
    div = 8 if tiny else 1           # ResNet widths 64..512, or 8..64 when tiny
    w1, w2, w3, w4 = (64 // div, 128 // div, 256 // div, 512 // div)
    cases: List[Case] = []
    seed_model = "SimpleCNN"
    rn = f"ResNet18(width {w1})" if tiny else "ResNet18"
    # the seed's SimpleCNN
    cases += conv_cases(seed_model, n, 1, 28, 16, 3, 1, 0, rng)
    cases += conv_cases(seed_model, n, 16, 13, 32, 3, 1, 0, rng)
    for shape in [(n, 16, 26, 26), (n, 32, 11, 11)]:
        cases.append(relu_case(seed_model, shape, rng))
        cases += bn_cases(seed_model, shape, rng)
    cases += pool_cases(seed_model, (n, 16, 26, 26), rng)
    cases += pool_cases(seed_model, (n, 32, 11, 11), rng)
    cases.append(matmul_case(seed_model, n, 800, 10, rng))
    cases.append(cross_entropy_case(seed_model, n, 10, rng))
    # ResNet-18 (CIFAR)
    cases += conv_cases(rn, n, 3, 32, w1, 3, 1, 1, rng)
    for c, h in [(w1, 32), (w2, 16), (w3, 8), (w4, 4)]:
        cases += conv_cases(rn, n, c, h, c, 3, 1, 1, rng)
    cases += conv_cases(rn, n, w1, 32, w2, 3, 2, 1, rng)
    for c, h in [(w1, 32), (w2, 16), (w3, 8), (w4, 4)]:
        cases.append(relu_case(rn, (n, c, h, h), rng))
        cases += bn_cases(rn, (n, c, h, h), rng)
    cases.append(matmul_case(rn, n, w4, 10, rng))
    cases.append(cross_entropy_case(rn, n, 10, rng))
    g = 64 if tiny else 512
    cases.append(matmul_case("reference", g, g, g, rng))
    return cases


def gg_runner(case: Case, dev: str) -> Callable[[], None]:
    raw = {k: gg._C.Tensor.from_numpy(np.array(v, order="C"), dev) for k, v in case.arrays.items()}
    run_op = gg._C.run_op
    chain = case.gg_ops

    if len(chain) == 1:
        op, names, attrs = chain[0]
        ins = [raw[nm] for nm in names]
        return lambda: run_op(op, ins, attrs, "")

    def run():
        out = None
        for op, names, attrs in chain:
            out = run_op(op, [raw[nm] for nm in names], attrs, "")
        return out
    return run


def first_output(out) -> Optional[np.ndarray]:
    """The first defined output of a kernel call (glassgrad list or torch tuple), as NumPy."""
    if isinstance(out, (list, tuple)):
        for o in out:
            if o is not None:
                return first_output(o)
        return None
    if hasattr(out, "detach"):
        return out.detach().cpu().numpy()
    return out.numpy()


def relative_error(a: np.ndarray, ref: np.ndarray) -> float:
    a64, r64 = a.astype(np.float64), ref.astype(np.float64)
    return float(np.linalg.norm(a64 - r64) / max(np.linalg.norm(r64), 1e-30))


def torch_runner(torch, case: Case, tdev: str) -> Callable:
    t = {k: torch.from_numpy(np.array(v, order="C")).to(tdev) for k, v in case.arrays.items()}
    with torch.no_grad():
        return case.torch_fn(torch, t)


def measure(fn, sync, budget_s: float, tiny: bool) -> List[float]:
    reps = adaptive_repeats(fn, sync, budget_s, lo=3 if tiny else 7, hi=5 if tiny else 200)
    return time_repeats(fn, repeats=reps, warmup=1 if tiny else 3, sync=sync)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(p)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--only", default="", help="run the ops whose name contains this text")
    p.add_argument("--budget", type=float, default=0.5, help="seconds of repeats per op and framework")
    args = p.parse_args(argv)
    dev = gg_device(args.device)
    sync = gg_sync(dev)
    torch = None if args.no_torch else torch_or_none()
    threads = apply_threads(args.threads, torch)
    res = Results("kernel_latency", args.csv, args.tiny, "; ".join(x for x in (args.notes, threads) if x))
    batch = 2 if args.tiny else args.batch
    budget = 0.01 if args.tiny else args.budget
    tdev = tsync = None
    if torch is not None:
        tdev, tsync = torch_setup(torch, dev)
    for case in build_cases(batch, args.tiny):
        if args.only and args.only not in case.op:
            continue
        g_fn = gg_runner(case, dev)
        g_times = measure(g_fn, sync, budget, args.tiny)
        g = statistics.median(g_times)
        ratio = None
        t_times = None
        check = ""
        if torch is not None:
            t_fn = torch_runner(torch, case, tdev)
            t_times = measure(t_fn, tsync, budget, args.tiny)
            ratio = g / statistics.median(t_times)
            err = relative_error(first_output(g_fn()), first_output(t_fn()))
            check = f"rel. error vs torch {err:.1e}"
        note = "; ".join(x for x in (case.notes, check) if x)
        res.add(dev, case.workload, "latency_us", g * 1e6, "us", ratio=ratio,
                notes="; ".join(x for x in (spread_note(g_times), note) if x))
        rate = case.work / g / 1e9
        res.add(dev, case.workload, "rate", rate, case.unit)
        if t_times is not None:
            t = statistics.median(t_times)
            res.add(dev, case.workload, "latency_us", t * 1e6, "us", torch_name(torch),
                    notes="; ".join(x for x in (spread_note(t_times), note) if x))
            res.add(dev, case.workload, "rate", case.work / t / 1e9, case.unit, torch_name(torch))
    print("wrote", res.write())


if __name__ == "__main__":
    main()
