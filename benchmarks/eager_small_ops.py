"""Small tensors in Python loops against PyTorch in one run: the per-element and per-sample loops of
course code (makemore's bigram counts, micrograd-style scalar arithmetic, `x[i] = row`, `.item()`
every step), each loop ending with a read of its result so that glassgrad's pending work is timed
with it. Microseconds per loop iteration, median of alternating rounds (glassgrad, PyTorch, ...).

    python benchmarks/eager_small_ops.py                 # every workload, 7 rounds
    python benchmarks/eager_small_ops.py --tiny          # seconds (CI: proves the script runs)
    python benchmarks/eager_small_ops.py --only count    # the workloads whose name contains "count"

Workloads (one iteration each):
  setitem int          x[i, j] = v              float32 [27, 27], a Python float
  getitem item         x[i, j].item()           float32 [27, 27]
  iadd through index   N[i, j] += 1             int32 [27, 27]: makemore part 1's counting loop
  bigram likelihood    ll += torch.log(P[i, j]); n += 1     makemore's log-likelihood loop
  scalar chain         ((a * b + c).tanh() * 2 - a).item()  0-d float32 tensors (micrograd style)
  tensor from list     torch.tensor([...16 floats])
  row write            X[i] = torch.tensor(row)            float32 [n, 16]
  small matmul         (x[i] @ W).tanh().sum().item()      [1, 16] @ [16, 16]
Rows go to benchmarks/results/eager_small_ops.csv (--csv to change), each with its ratio to
PyTorch's time; the run's load average is in the notes.
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Results, add_common_args, alternating_medians, apply_threads, torch_name, torch_or_none


def _pairs(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return [(int(a), int(b)) for a, b in rng.integers(0, 27, (n, 2))]


def workloads(lib, n: int):
    """{name: (loop, iterations)}: each loop runs its n iterations from a fresh state and reads
    the result at the end."""
    pairs = _pairs(n)
    rows = np.random.default_rng(1).standard_normal((n, 16)).astype(np.float32).tolist()
    P_np = np.random.default_rng(2).random((27, 27)).astype(np.float32) + 0.1
    W_np = np.random.default_rng(3).standard_normal((16, 16)).astype(np.float32)
    X_np = np.random.default_rng(4).standard_normal((n, 1, 16)).astype(np.float32)

    def setitem_int():
        x = lib.zeros((27, 27), device="cpu")
        for k, (i, j) in enumerate(pairs):
            x[i, j] = float(k)
        return x.sum().item()

    def getitem_item():
        x = lib.tensor(P_np, device="cpu")
        s = 0.0
        for i, j in pairs:
            s += x[i, j].item()
        return s

    def iadd_index():
        N = lib.zeros((27, 27), dtype=lib.int32, device="cpu")
        for i, j in pairs:
            N[i, j] += 1
        return N.sum().item()

    def likelihood():
        P = lib.tensor(P_np, device="cpu")
        ll = 0.0
        count = 0
        for i, j in pairs:
            prob = P[i, j]
            logprob = lib.log(prob)
            ll += logprob
            count += 1
        return (-ll / count).item()

    def scalar_chain():
        a, b, c = lib.tensor(0.5, device="cpu"), lib.tensor(-1.5, device="cpu"), lib.tensor(0.25, device="cpu")
        s = 0.0
        for _ in range(n):
            s += ((a * b + c).tanh() * 2 - a).item()
        return s

    def tensor_from_list():
        t = None
        for r in rows:
            t = lib.tensor(r, device="cpu")
        return t.sum().item()

    def row_write():
        X = lib.zeros((n, 16), device="cpu")
        for i, r in enumerate(rows):
            X[i] = lib.tensor(r, device="cpu")
        return X.sum().item()

    def small_matmul():
        W = lib.tensor(W_np, device="cpu")
        X = lib.tensor(X_np, device="cpu")
        s = 0.0
        for i in range(n):
            s += (X[i] @ W).tanh().sum().item()
        return s

    return {"setitem int": setitem_int, "getitem item": getitem_item, "iadd through index": iadd_index,
            "bigram likelihood": likelihood, "scalar chain": scalar_chain, "tensor from list": tensor_from_list,
            "row write": row_write, "small matmul": small_matmul}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(p)
    p.add_argument("--iterations", type=int, default=2000, help="loop iterations per timed call")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--only", default="", help="run the workloads whose name contains this text")
    args = p.parse_args(argv)
    if args.device != "cpu":
        p.error("the loops run on the CPU (their tensors are a few elements)")
    n = 50 if args.tiny else args.iterations
    rounds = 2 if args.tiny else args.rounds
    import glassgrad as gg
    torch = None if args.no_torch else torch_or_none()
    threads = apply_threads(args.threads, torch)
    res = Results("eager_small_ops", args.csv, args.tiny, args.notes)
    ours = workloads(gg, n)
    theirs = workloads(torch, n) if torch is not None else {}
    for name, loop in ours.items():
        if args.only and args.only not in name:
            continue
        if torch is not None:
            a, b = ours[name](), theirs[name]()
            if not np.isclose(a, b, rtol=1e-4, atol=1e-3):
                raise SystemExit(f"{name}: glassgrad's result {a} differs from PyTorch's {b}")
        contenders = {"glassgrad": (loop, lambda: None)}
        if torch is not None:
            contenders[torch_name(torch)] = (theirs[name], lambda: None)
        medians, _ = alternating_medians(contenders, rounds=rounds, steps=1, warmup=1)
        ours_us = medians["glassgrad"] / n * 1e6
        ratio = None
        if torch is not None:
            theirs_us = medians[torch_name(torch)] / n * 1e6
            ratio = ours_us / theirs_us
            res.add("cpu", name, "us_per_iteration", theirs_us, "us", framework=torch_name(torch),
                    notes=f"{n} iterations; {threads}")
        res.add("cpu", name, "us_per_iteration", ours_us, "us", ratio=ratio, notes=f"{n} iterations; {threads}")
    print(f"rows appended to {res.write()}")


if __name__ == "__main__":
    main()
