"""Where a CPU training step's time goes, op by op: glassgrad's compiled step with a step observer
(glassgrad._C.add_step_observer) that reads the thread's CPU clock after every plan step, summed
per (op, role) and shape, next to the whole step's CPU time in glassgrad and in PyTorch (the same
model and weights, eager, PyTorch's own kernels).

CPU time, not wall time: on a machine shared with other work a step's wall time measures the
queue for the cores more than the step (a 2-core machine at load 20 stretched a 50 ms step to
3 s); the CPU time a thread spends computing does not wait in that queue. With one thread
(--threads 1, the default) the thread's CPU clock is the step's whole computation; with more,
the process's CPU clock is used, which also counts time the workers spend spinning.

    python benchmarks/profile_cpu_ops.py                          # char_gpt's small GPT (the CPU target's size)
    python benchmarks/profile_cpu_ops.py --gpt-size tiny --steps 2  # seconds (CI)

The first plan step of each run also carries the host's work of replaying the compiled step
(binding the inputs, the Python call); it is listed under its op like any other. Rows go to
benchmarks/results/profile_cpu_ops.csv (--csv to change).
"""
from __future__ import annotations

import argparse
import collections
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples-and-tutorials"))
import gpt_workload as W
from common import numpy_state, Results, torch_or_none

import glassgrad as gg
from glassgrad import _C


def cpu_clock(threads: int):
    return time.thread_time if threads == 1 else time.process_time


def per_step(fn, steps: int, clock) -> float:
    start = clock()
    for _ in range(steps):
        fn()
    return (clock() - start) / steps


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gpt-size", choices=("small", "tiny"), default="small",
                   help="small: 2 layers, 4 heads, 128 features, context 64, batch 8 (the CPU comparison)")
    p.add_argument("--gpt-dropout", type=float, default=0.2)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--steps", type=int, default=5, help="profiled steps (after 3 warm-up steps)")
    p.add_argument("--top", type=int, default=30)
    p.add_argument("--no-torch", action="store_true")
    p.add_argument("--csv", default=None)
    args = p.parse_args(argv)
    import char_gpt as G
    gg.set_num_threads(args.threads)
    clock = cpu_clock(args.threads)
    s = W.sizes(argparse.Namespace(tiny=args.gpt_size == "tiny", gpt_size="small", gpt_batch=8))
    rng = np.random.default_rng(0)
    xn = rng.integers(0, W.VOCAB, (s["batch"], s["block"])).astype(np.int64)
    yn = rng.integers(0, W.VOCAB, (s["batch"], s["block"])).astype(np.int64)
    gg.manual_seed(0)
    state = numpy_state(G.GPT(W.VOCAB, s["block"], s["layers"], s["heads"], s["dim"], args.gpt_dropout))
    step = W.gg_train_step(gg, G, s, args.gpt_dropout, state)
    x, y = gg.tensor(xn), gg.tensor(yn)
    gg.realize(x, y)
    for _ in range(3):
        step(x, y).item()
    plain = per_step(lambda: step(x, y).item(), args.steps, clock)

    spent = collections.defaultdict(float)
    calls = collections.Counter()
    last = [0.0]

    def observe(index, op, scope, role, source, inputs, outputs):
        now = clock()
        key = (op, role, tuple(tuple(t.shape) for t in inputs[:3]))
        spent[key] += now - last[0]
        calls[key] += 1
        last[0] = clock()  # the observer's own time is left out

    handle = _C.add_step_observer(observe)
    try:
        for _ in range(args.steps):
            last[0] = clock()
            step(x, y).item()
    finally:
        _C.remove_step_observer(handle)
    observed = sum(spent.values()) / args.steps

    label = (f"GPT {s['layers']}x{s['dim']} ({s['heads']} heads) train step batch {s['batch']} block {s['block']} "
             f"dropout {args.gpt_dropout}")
    note = f"{args.threads} thread(s), {'thread' if args.threads == 1 else 'process'} CPU time"
    res = Results("profile_cpu_ops", args.csv, tiny=args.gpt_size == "tiny", notes=note)
    res.add("cpu", label, "cpu_ms_per_step", plain * 1e3, "ms", "glassgrad.compile")
    torch = None if args.no_torch else torch_or_none()
    if torch is not None:
        torch.set_num_threads(args.threads)
        tmodel = W.torch_gpt(torch, s, args.gpt_dropout, state, "cpu")
        topt = torch.optim.AdamW(tmodel.parameters(), lr=1e-3)
        tx, ty = torch.from_numpy(xn), torch.from_numpy(yn)

        def torch_step():
            loss = tmodel(tx, ty)
            loss.backward()
            topt.step()
            topt.zero_grad(set_to_none=True)
        for _ in range(3):
            torch_step()
        t = per_step(torch_step, args.steps, clock)
        res.add("cpu", label, "cpu_ms_per_step", t * 1e3, "ms", W.torch_name(torch))
        print(f"{label}: glassgrad {plain * 1e3:.1f} ms, PyTorch {t * 1e3:.1f} ms CPU time a step ({note}); "
              f"ratio {plain / t:.2f}")
    else:
        print(f"{label}: glassgrad {plain * 1e3:.1f} ms CPU time a step ({note})")
    print(f"observed steps' sum {observed * 1e3:.1f} ms a step; the largest:")
    print(f"{'op':30s} {'role':10s} {'ms/step':>8s} {'calls':>5s} {'share':>6s}  inputs")
    for key, t in sorted(spent.items(), key=lambda kv: -kv[1])[:args.top]:
        op, role, shapes = key
        ms = t / args.steps * 1e3
        print(f"{op:30s} {role:10s} {ms:8.2f} {calls[key] // args.steps:5d} {100 * t / args.steps / observed:5.1f}%  "
              f"{list(shapes)}")
        res.add("cpu", f"{label}: {op} ({role}) {list(shapes)}", "cpu_ms_per_step", ms, "ms", "glassgrad.compile",
                notes=f"{calls[key] // args.steps} calls a step")
    res.write()
    return 0


if __name__ == "__main__":
    sys.exit(main())
