"""How far float32 training drifts from float64, glassgrad against PyTorch, on a ResNet-18 port.

A user checks a port by comparing with PyTorch. This runs the check docs/numerics.md describes:
the CIFAR ResNet-18 with PyTorch's twin loaded with the same initial weights
(benchmarks/workloads.py), the same batches, SGD with momentum 0.9 and weight decay 5e-4, a
cosine learning-rate schedule (CosineAnnealingLR) from lr 0.01, BatchNorm in training mode, in
four runs: glassgrad float64, glassgrad float32, PyTorch float64, PyTorch float32. After each step:

    param_distance   ||theta32 - theta64||_2 / ||theta64||_2 over all parameters
    logit_distance   max |z32 - z64| / max |z64| of the logits of a fixed probe batch
                     (BatchNorm in training mode, so no running statistics enter)

for each framework against its own float64 run (ratio_vs_torch: glassgrad's over PyTorch's), and
glassgrad float64 against PyTorch float64 (the rules are the same: that distance is rounding only).

    python benchmarks/conv_port_drift.py                     # CPU, default algorithm choice
    python benchmarks/conv_port_drift.py --fast-winograd     # with allow_fast_winograd
    python benchmarks/conv_port_drift.py --device cuda
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Dict, List, Optional

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads as W
from common import Results, add_common_args, apply_threads, torch_or_none

import glassgrad as gg

LR, MOMENTUM, WEIGHT_DECAY = 0.01, 0.9, 5e-4


def batches(spec, batch: int, steps: int) -> List:
    return [W.random_batch(spec, batch, seed=100 + i) for i in range(steps + 1)]  # the last: the probe


def glassgrad_run(spec, state, data, dtype: str, device: str, steps: int) -> List[Dict[str, np.ndarray]]:
    """Per step: the parameters and the probe batch's logits."""
    model = W.gg_model(spec)
    model.load_state_dict({k: gg.tensor(np.asarray(v)) for k, v in state.items()})
    model = (model.double() if dtype == "float64" else model.float()).to(device)
    model.train()
    opt = gg.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM, weight_decay=WEIGHT_DECAY)
    sched = gg.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
    probe_x = gg.tensor(data[-1][0].astype(dtype), device=device)
    out = []
    for x, y in data[:-1]:
        loss = gg.nn.functional.cross_entropy(model(gg.tensor(x.astype(dtype), device=device)),
                                              gg.tensor(y, device=device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        params = {n: np.array(p.detach().to("cpu").numpy(), dtype=np.float64) for n, p in model.named_parameters()}
        with gg.no_grad():
            logits = model(probe_x).to("cpu").numpy().astype(np.float64)
        out.append({"params": params, "logits": logits})
    return out


def torch_run(torch, spec, state, data, dtype: str, device: str, steps: int) -> List[Dict[str, np.ndarray]]:
    tdtype = getattr(torch, dtype)
    model = W.torch_model(torch, spec, state, "cpu").to(device=device, dtype=tdtype)
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM, weight_decay=WEIGHT_DECAY)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
    probe_x = torch.tensor(data[-1][0], dtype=tdtype, device=device)
    out = []
    for x, y in data[:-1]:
        loss = torch.nn.functional.cross_entropy(model(torch.tensor(x, dtype=tdtype, device=device)),
                                                 torch.tensor(y, device=device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        # copies: float64 CPU tensors' numpy() shares their memory, which the next step updates
        params = {n: p.detach().to("cpu", torch.float64).numpy().copy() for n, p in model.named_parameters()}
        with torch.no_grad():
            logits = model(probe_x).to("cpu", torch.float64).numpy().copy()
        out.append({"params": params, "logits": logits})
    return out


def distances(a: Dict[str, np.ndarray], ref: Dict[str, np.ndarray]):
    names = sorted(ref["params"])
    diff = np.sqrt(sum(np.sum((a["params"][n] - ref["params"][n]) ** 2) for n in names))
    norm = np.sqrt(sum(np.sum(ref["params"][n] ** 2) for n in names))
    logit = np.max(np.abs(a["logits"] - ref["logits"])) / np.max(np.abs(ref["logits"]))
    return float(diff / norm), float(logit)


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(p)
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--fast-winograd", action="store_true",
                   help="glassgrad.backends.cudnn.allow_fast_winograd = True (F(4x4) Winograd in float32)")
    args = p.parse_args(argv)
    torch = None if args.no_torch else torch_or_none()
    if torch is None:
        print("conv_port_drift.py needs PyTorch (the comparison is against it)", file=sys.stderr)
        return 2
    device = "cuda" if args.device.startswith("cuda") else "cpu"
    if device == "cuda":
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
    gg.backends.cudnn.allow_fast_winograd = args.fast_winograd
    res = Results("conv_port_drift", args.csv, args.tiny, args.notes)
    note = apply_threads(args.threads, torch) + ("; allow_fast_winograd" if args.fast_winograd else "")
    spec = W.resnet18(8) if args.tiny else W.RESNET18
    steps = 2 if args.tiny else args.steps
    gg.manual_seed(0)
    state = {k: np.array(v.cpu().numpy() if hasattr(v, "cpu") else v) for k, v in W.gg_model(spec).state_dict().items()}
    data = batches(spec, 4 if args.tiny else args.batch, steps)
    runs = {("glassgrad", dt): glassgrad_run(spec, state, data, dt, device, steps) for dt in ("float64", "float32")}
    runs.update({("torch", dt): torch_run(torch, spec, state, data, dt, device, steps) for dt in ("float64", "float32")})
    for step in range(steps):
        g = distances(runs["glassgrad", "float32"][step], runs["glassgrad", "float64"][step])
        t = distances(runs["torch", "float32"][step], runs["torch", "float64"][step])
        same = distances(runs["glassgrad", "float64"][step], runs["torch", "float64"][step])
        workload = f"{spec.label} step {step + 1}"
        for i, metric in enumerate(("param_distance", "logit_distance")):
            res.add(device, workload, metric, t[i], "", "torch", notes="float32 vs its float64; " + note)
            res.add(device, workload, metric, g[i], "", "glassgrad", g[i] / max(t[i], 1e-30),
                    "float32 vs its float64; " + note)
            res.add(device, workload, metric + "_f64_vs_torch_f64", same[i], "", "glassgrad", None, note)
    print(f"rows appended to {res.write()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
