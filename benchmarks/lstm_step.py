"""The LSTM training step of word_language_model's medium setting (2 layers, 650 hidden, sequence
35, batch 20, dropout 0.5 between the layers), glassgrad.compile against PyTorch eager (cuDNN's
LSTM on a GPU, TF32 off), in alternating rounds of one process. The step: the LSTM over a batch of
embedded tokens (random [35, 20, 650] inputs: the embedding and the decoder are other layers'
work), a mean-square loss on its outputs and final states, backward, SGD. A workload of
ordinary_gpu.py (--only lstm), and on its own for the CPU:

    python benchmarks/lstm_step.py --device cpu --threads 2 --hidden 200   # the small setting
    python benchmarks/lstm_step.py --tiny --device cpu                       # seconds (CI)

Rows go to benchmarks/results/lstm_step.csv (standalone) or ordinary_gpu.csv; the ratio is
glassgrad's time over PyTorch's.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (numpy_state, Results, apply_threads, gg_device, gg_sync, time_repeats, torch_name, torch_or_none,
                    torch_setup)

MEDIUM = dict(layers=2, hidden=650, steps=35, batch=20, dropout=0.5)
TINY = dict(layers=2, hidden=16, steps=5, batch=3, dropout=0.5)


def workload(args, res, dev, torch, note, where):
    """Times the step for each size in args.lstm_hidden (comma-separated), writing one row per
    framework and size."""
    import glassgrad as gg
    shape = dict(TINY if args.tiny else MEDIUM)
    sizes = [shape["hidden"]] if args.tiny else [int(h) for h in str(args.lstm_hidden).split(",")]
    rounds, steps = (1, 2) if args.tiny else (args.rounds, args.steps)
    for hidden in sizes:
        T, B, L, p = shape["steps"], shape["batch"], shape["layers"], shape["dropout"]
        gg.manual_seed(0)
        model = gg.nn.LSTM(hidden, hidden, L, dropout=p).to(dev)
        state = numpy_state(model)
        opt = gg.optim.SGD(model.parameters(), lr=0.1)
        xn = np.random.default_rng(0).standard_normal((T, B, hidden)).astype(np.float32)
        x = gg.tensor(xn, device=dev)
        gg.realize(x)

        def step(x):
            y, (h, c) = model(x)
            loss = (y * y).mean() + (h * h).mean() + (c * c).mean()
            loss.backward()
            opt.step()
            opt.zero_grad()
            return loss

        run = gg.compile(step)
        contenders = {"glassgrad.compile": (lambda: run(x), gg_sync(dev))}
        if torch is not None:
            tdev, tsync = torch_setup(torch, dev)
            tm = torch.nn.LSTM(hidden, hidden, L, dropout=p).to(tdev)
            tm.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()})
            topt = torch.optim.SGD(tm.parameters(), lr=0.1)
            tx = torch.from_numpy(xn).to(tdev)

            def tstep():
                y, (h, c) = tm(tx)
                loss = (y * y).mean() + (h * h).mean() + (c * c).mean()
                loss.backward()
                topt.step()
                topt.zero_grad()

            contenders[torch_name(torch)] = (tstep, tsync)
        for fn, sync in contenders.values():  # warm-up: plans, graphs, cuDNN's choices
            for _ in range(3):
                fn()
            sync()
        times = {k: [] for k in contenders}
        for _ in range(rounds):
            for name, (fn, sync) in contenders.items():
                times[name] += time_repeats(fn, repeats=steps, warmup=0, sync=sync)
        med = {k: statistics.median(v) for k, v in times.items()}
        theirs = next((k for k in med if k.startswith("torch")), None)
        label = f"LSTM train step {L} layers {hidden} hidden seq {T} batch {B}{where}"
        for name, t in med.items():
            res.add(dev, label, "synchronized_step_ms", t * 1e3, "ms", name,
                    ratio=None if name == theirs or theirs is None else t / med[theirs],
                    notes=f"{note}; median of {len(times[name])} steps in {rounds} alternating rounds")
            print(f"{label}: {name} {t * 1e3:.3f} ms" + ("" if name == theirs or theirs is None
                                                       else f" ({t / med[theirs]:.3f}x PyTorch)"), flush=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default="cpu")
    p.add_argument("--threads", type=int, default=0, help="CPU threads of both frameworks (0: their defaults)")
    p.add_argument("--lstm-hidden", "--hidden", dest="lstm_hidden", default="650")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--tiny", action="store_true")
    p.add_argument("--no-torch", action="store_true")
    p.add_argument("--csv", default=None)
    args = p.parse_args(argv)
    dev = gg_device(args.device)
    torch = None if args.no_torch else torch_or_none()
    note = apply_threads(args.threads, torch)
    res = Results("lstm_step", args.csv, tiny=args.tiny)
    workload(args, res, dev, torch, note or dev, "")
    print("wrote", res.write())
    return 0


if __name__ == "__main__":
    sys.exit(main())
