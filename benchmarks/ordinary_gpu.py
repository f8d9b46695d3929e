"""Compute-bound speed on an ordinary GPU: the training workloads on a slice of a large GPU, glassgrad
against PyTorch (cuDNN, TF32 off) in alternating rounds, in one process.

The seed's users train on a small card (a GTX 1050 Ti: 6 SMs, 4 GB, no tensor cores), where every
step is compute-bound; a large GPU hides that behind its 100+ SMs. CUDA MPS limits a client to a
share of the SMs (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE). This script starts its own MPS control daemon
(pipe and log directories in a temporary folder), runs the workloads in a child process with that
share (default: the smallest that gives at least --min-sms SMs), and always stops the daemon, also
on error. Both frameworks get a 4 GB memory cap (--cap; --cap '' for none). Workloads:

  convs     every convolution of SimpleCNN and ResNet-18 (CIFAR) at batch 32, plus the shapes of
            issue 13: forward, input gradient and weight gradient against cuDNN
  resnet    the ResNet-18 training step (glassgrad.compile; PyTorch eager and, on a GPU, PyTorch's
            whole step captured in one CUDA graph)
  simplecnn one SimpleCNN epoch at batch 32 (glassgrad.compile against PyTorch eager)
  gpt       a GPT training step (examples-and-tutorials/char_gpt.py's model, 6 layers, 384 features,
            context 256, batch 64) against PyTorch eager with scaled_dot_product_attention; peak
            memories; the step under --memory-limit (benchmarks/gpt_workload.py). Not in the default
            --only; --gpt-size small --device cpu --no-mps --threads 2 is the CPU comparison
  lstm      word_language_model's medium LSTM training step (lstm_step.py: 2 layers, 650 hidden,
            sequence 35, batch 20) against PyTorch's cuDNN LSTM
  dcgan     the DCGAN iteration, 64x64, ngf = ndf = 64, batch 64 (dcgan_step.py; not in the default
            set: --only dcgan)

What the slice does not emulate: the small card's memory bandwidth and L2 (the slice shares the
large GPU's), its clocks, and its host. Its arithmetic rate per SM is the large GPU's.

    python benchmarks/ordinary_gpu.py                        # MPS slice of >= 6 SMs, all workloads
    python benchmarks/ordinary_gpu.py --percentage 5         # an explicit share
    python benchmarks/ordinary_gpu.py --no-mps --resnet-batches 32,128   # the whole GPU
    python benchmarks/ordinary_gpu.py --only convs --conv-algo igemm    # one convolution algorithm
    python benchmarks/ordinary_gpu.py --tiny --no-mps --device cpu     # seconds: proves it runs (CI)
    python benchmarks/ordinary_gpu.py --only gpt                        # the GPT step on an 8-SM slice

The convolution and ResNet-18 rows carry the roofline columns (roofline.py): FLOPs (the direct
count; for glassgrad's Winograd choices also the point products it computes), bytes, rates, and
fractions of the peaks of the multiprocessors the child sees (FP32 lanes x 2 x clock from the
device properties, so an 8-SM slice's peak is 8 SMs') and of the memory bandwidth (the whole
GPU's: the slice shares it).

Rows go to benchmarks/results/ordinary_gpu.csv (--csv to change); every workload ends with
"on <N> SMs" and every row's notes start with "<N> SMs" (the count glassgrad's device query
reports in the child process); benchmarks/report.py makes one table per SM count.
"""
from __future__ import annotations

import argparse
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lstm_step
import roofline as R
import workloads as W
from dcgan_step import add_dcgan_args, dcgan
from common import (add_op_bench_arguments, numpy_state, Results, alternating_medians, apply_threads, back_to_back,
                    gg_device, gg_sync, torch_name, torch_or_none, torch_setup)

# (N, C, H, W, K, kernel, stride, padding, model)
CONV_SHAPES = [
    (32, 1, 28, 28, 16, 3, 1, 0, "SimpleCNN conv1"),
    (32, 16, 13, 13, 32, 3, 1, 0, "SimpleCNN conv2"),
    (32, 3, 32, 32, 64, 3, 1, 1, "ResNet-18 conv1"),
    (32, 64, 32, 32, 64, 3, 1, 1, "ResNet-18 layer1"),
    (32, 64, 32, 32, 128, 3, 2, 1, "ResNet-18 layer2.0.conv1"),
    (32, 64, 32, 32, 128, 1, 2, 0, "ResNet-18 layer2.0.shortcut"),
    (32, 128, 16, 16, 128, 3, 1, 1, "ResNet-18 layer2"),
    (32, 128, 16, 16, 256, 3, 2, 1, "ResNet-18 layer3.0.conv1"),
    (32, 128, 16, 16, 256, 1, 2, 0, "ResNet-18 layer3.0.shortcut"),
    (32, 256, 8, 8, 256, 3, 1, 1, "ResNet-18 layer3"),
    (32, 256, 8, 8, 512, 3, 2, 1, "ResNet-18 layer4.0.conv1"),
    (32, 256, 8, 8, 512, 1, 2, 0, "ResNet-18 layer4.0.shortcut"),
    (32, 512, 4, 4, 512, 3, 1, 1, "ResNet-18 layer4"),
    (32, 16, 28, 28, 32, 3, 1, 1, "issue 13"),
]
TINY_CONV_SHAPES = [(2, 3, 8, 8, 4, 3, 1, 1, "tiny")]


# ---------------------------------------------------------------------------------------------
# The parent: MPS daemon around a child process


def run_child(argv, env, script: str = __file__) -> int:
    """Runs `script` (this file, or another benchmark that borrows the MPS set-up) with --child."""
    return subprocess.call([sys.executable, os.path.abspath(script), "--child", *argv], env=env)


def probe_sms(env) -> int:
    """The multiprocessors a CUDA client sees under env (0 when it cannot tell)."""
    code = "import glassgrad as gg; print(gg.cuda.device_info()['multiprocessors'] if gg.cuda.is_available() else 0)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    try:
        return int(out.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        print("could not read the SM count:", out.stdout[-500:], out.stderr[-500:], file=sys.stderr)
        return 0


def with_mps(args, argv, script: str = __file__) -> int:
    """Runs `script`'s child under an MPS daemon with the smallest share of at least
    args.min_sms SMs (or args.percentage), and stops the daemon afterwards."""
    control = shutil.which("nvidia-cuda-mps-control")
    if control is None:
        print("nvidia-cuda-mps-control not found: run with --no-mps (whole GPU) or install the CUDA MPS tools",
              file=sys.stderr)
        return 2
    full = probe_sms(dict(os.environ))
    tmp = tempfile.mkdtemp(prefix="glassgrad-mps-")
    env = dict(os.environ, CUDA_MPS_PIPE_DIRECTORY=os.path.join(tmp, "pipe"),
               CUDA_MPS_LOG_DIRECTORY=os.path.join(tmp, "log"))
    os.makedirs(env["CUDA_MPS_PIPE_DIRECTORY"])
    os.makedirs(env["CUDA_MPS_LOG_DIRECTORY"])
    started = False
    try:
        subprocess.run([control, "-d"], env=env, check=True)
        started = True
        if args.percentage:
            pct = args.percentage
        else:  # the smallest share with at least --min-sms SMs (MPS rounds to its own granularity)
            pct = max(1, math.ceil(100.0 * args.min_sms / full)) if full else 5
            while pct < 100:
                sms = probe_sms(dict(env, CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=str(pct)))
                if sms >= args.min_sms:
                    break
                pct += 1
        print(f"MPS: {pct}% of a {full}-SM GPU", flush=True)
        return run_child(argv, dict(env, CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=str(pct)), script)
    finally:
        if started:
            subprocess.run([control], input="quit\n", env=env, text=True)
            time.sleep(1)  # the daemon removes its pipes as it exits
        shutil.rmtree(tmp, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# The child: the workloads


def convs(args, res, dev, torch, note, where):
    import glassgrad as gg
    from glassgrad import _C
    sync = gg_sync(dev)
    rng = np.random.default_rng(0)
    shapes = TINY_CONV_SHAPES if args.tiny else CONV_SHAPES
    if args.shapes:
        shapes = [sh for sh in shapes if any(word in sh[-1] for word in args.shapes.split(","))]
    rounds, calls = (1, 2) if args.tiny else (args.rounds, args.calls)
    peak = R.device_peak(dev)
    for n, c, h, w, k, r, s, p, model in shapes:
        oh, ow = (h + 2 * p - r) // s + 1, (w + 2 * p - r) // s + 1
        x = rng.standard_normal((n, c, h, w)).astype(np.float32)
        wt = (rng.standard_normal((k, c, r, r)) * 0.1).astype(np.float32)
        g = rng.standard_normal((n, k, oh, ow)).astype(np.float32)
        X, Wt, G = (_C.Tensor.from_numpy(a, dev) for a in (x, wt, g))
        attrs = {"stride": [s, s], "padding": [p, p, p, p]}
        fns = {
            "forward": (lambda: _C.run_op("Conv2D", [X, Wt], attrs, ""), sync),
            "input grad": (lambda: _C.run_op("Conv2DBackwardInput", [G, Wt], dict(attrs, input_shape=[n, c, h, w]),
                                             ""), sync),
            "weight grad": (lambda: _C.run_op("Conv2DBackwardWeight", [X, G], dict(attrs, weight_shape=[k, c, r, r]),
                                              ""), sync),
        }
        theirs = {}
        if torch is not None:
            tdev, tsync = torch_setup(torch, dev)
            tx, tw, tg = (torch.from_numpy(a).to(tdev) for a in (x, wt, g))
            F = torch.nn.functional
            theirs = {
                "forward": (lambda: F.conv2d(tx, tw, stride=s, padding=p), tsync),
                "input grad": (lambda: torch.nn.grad.conv2d_input(tx.shape, tw, tg, stride=s, padding=p), tsync),
                "weight grad": (lambda: torch.nn.grad.conv2d_weight(tx, tw.shape, tg, stride=s, padding=p), tsync),
            }
        flops = 2.0 * n * k * oh * ow * c * r * r
        for name in fns:
            contenders = [("glassgrad", fns[name])] + ([(torch_name(torch), theirs[name])] if theirs else [])
            for _, (fn, sy) in contenders:  # warm-up: plans, autotuning, cuDNN's benchmark mode
                fn()
                fn()
                sy()
            times = {label: [] for label, _ in contenders}
            for _ in range(rounds):
                for label, (fn, sy) in contenders:
                    times[label].append(back_to_back(fn, sy, calls))
            med = {label: statistics.median(t) for label, t in times.items()}
            wl = f"conv {r}x{r}/{s} [{n},{c},{h},{w}]->{k} {name} ({model}){where}"
            if args.kernels and torch is not None and dev.startswith("cuda"):
                try:
                    print(f"{wl}: {kernel_breakdown(torch, fns[name][0], sync)}", flush=True)
                except Exception as e:  # the profiler is a diagnostic: never fail the timing for it
                    print(f"{wl}: no kernel breakdown ({type(e).__name__}: {e})", flush=True)
            tname = contenders[-1][0] if theirs else None
            if dev.startswith("cuda"):
                algo = R.cuda_conv_algorithm(gg.cuda.conv_choices(), R.OP_OF[name], n, c, h, w, k, r, s, p)
            else:
                algo = R.cpu_conv_algorithm(R.OP_OF[name], (n, c, h, w), (k, c, r, r), s, p)
            ours, algo_name = R.algorithm_flop(algo, n, c, h, w, k, r, s, p, name)
            nbytes = R.conv_bytes(n, c, h, w, k, r, s, p, name)
            for label, t in med.items():
                is_torch = label == tname
                res.add(dev, wl, "us_per_call", t * 1e6, "us", label,
                        ratio=None if is_torch or tname is None else t / med[tname],
                        notes=f"{note}; {flops / t / 1e12:.2f} TFLOP/s; median of {rounds} alternating rounds of "
                              f"{calls} calls" + ("" if is_torch else f"; {algo_name}") + f"; {peak.note()}",
                        roofline=R.columns(flops, t, peak, nbytes, None if is_torch else ours))
    print_conv_choices(gg, dev, "convolution choices:")


def kernel_breakdown(torch, fn, sync, calls=5) -> str:
    """glassgrad's kernels in one call of fn, timed by CUPTI through torch.profiler (it records
    every kernel of the process): 'name us; ...', the largest first, microseconds per call."""
    from torch.profiler import ProfilerActivity, profile
    sync()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        sync()
    per = {}
    for ev in prof.events():
        if ev.device_type.name == "CUDA":
            t = ev.device_time_total if hasattr(ev, "device_time_total") else ev.cuda_time_total
            per[ev.name] = per.get(ev.name, 0.0) + t / calls
    total = sum(per.values())
    return f"kernels {total:.1f} us: " + "; ".join(f"{k} {v:.1f}" for k, v in sorted(per.items(), key=lambda kv: -kv[1]))


def torch_graph_step(torch, spec, model, x, y):
    """PyTorch's whole training step captured in one CUDA graph (the documented whole-network
    capture: warm-up on a side stream, gradients allocated inside the graph)."""
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=spec.momentum)
    F = torch.nn.functional
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            opt.zero_grad(set_to_none=True)
            F.cross_entropy(model(x), y).backward()
            opt.step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(graph):
        F.cross_entropy(model(x), y).backward()
        opt.step()
    return graph.replay


def resnet(args, res, dev, torch, note, where):
    import glassgrad as gg
    spec = W.resnet18(4) if args.tiny else W.RESNET18
    batches = [2] if args.tiny else [int(b) for b in args.resnet_batches.split(",")]
    rounds, steps = (1, 2) if args.tiny else (args.rounds, args.steps)
    peak = R.device_peak(dev)
    for batch in batches:
        model, x, y, data = W.gg_setup(spec, batch)
        run = gg.compile(W.gg_step(spec, model))
        contenders = {"glassgrad.compile": (lambda: run(x, y), gg_sync(dev))}
        if torch is not None:
            tdev, tsync = torch_setup(torch, dev)
            _, tstep, tx, ty = W.torch_twin(torch, spec, data, tdev)
            contenders[torch_name(torch)] = (lambda: tstep(tx, ty), tsync)
            if tdev.startswith("cuda"):
                replay = torch_graph_step(torch, spec, W.torch_model(torch, spec, data.state, tdev), tx, ty)
                contenders[torch_name(torch) + " CUDA graph"] = (replay, tsync)
        med, times = alternating_medians(contenders, rounds, steps)  # warm-up: plans, autotuning, graphs, cuDNN's
        eager = next((k for k in contenders if k.startswith("torch") and not k.endswith("graph")), None)
        workload = f"{spec.label} train step batch {batch}{where}"
        flop, nbytes = R.step_counts(model, (batch,) + spec.input_shape)
        for name, t in med.items():
            ratio = None if name.startswith("torch") or eager is None else t / med[eager]
            extra = ""
            if not name.startswith("torch") and eager is not None and len(med) > 2:
                graph = [k for k in med if k.endswith("graph")][0]
                extra = f"; {t / med[graph]:.3f}x PyTorch's CUDA graph"
            res.add(dev, workload, "synchronized_step_ms", t * 1e3, "ms", name, ratio=ratio,
                    notes=f"{note}; median of {len(times[name])} steps in {rounds} alternating rounds{extra}; "
                          f"{peak.note()}", roofline=R.columns(flop, t, peak, nbytes))


def simplecnn(args, res, dev, torch, note, where):
    import end_to_end as E
    import glassgrad as gg
    limit = 256 if args.tiny else args.limit
    Xn, yn, _, _, source = E.load_data(limit)
    X, y = gg.tensor(Xn), gg.tensor(yn)
    batch = 32
    gg.manual_seed(0)
    init = numpy_state(gg.models.SimpleCNN())
    workload = f"SimpleCNN epoch batch {batch} ({Xn.shape[0]} images){where}"
    model = gg.models.SimpleCNN()
    model.load_state_dict(init)
    first = []
    t, last, _ = E.glassgrad_epoch(model, X, y, batch, True, dev, first_steps=first)
    tt = None
    if torch is not None:
        tdev, tsync = torch_setup(torch, dev)
        tm = W.torch_model(torch, W.SIMPLE_CNN, init, tdev)
        TX, Ty = torch.from_numpy(Xn).to(tdev), torch.from_numpy(yn).to(tdev)
        tt, tlast, _ = E.torch_epoch(torch, tm, TX, Ty, batch, tdev, tsync)
        res.add(dev, workload, "epoch_seconds", tt, "s", torch_name(torch), notes=f"{note}; {source}; last loss "
                                                                                  f"{tlast:.4f}")
    res.add(dev, workload, "epoch_seconds", t, "s", "glassgrad.compile", ratio=(t / tt) if tt else None,
            notes=f"{note}; {source}; last loss {last:.4f}; includes the first step's compile and autotuning"
                  + (f" (the first 4 steps took {first[0] * 1e3:.1f} ms)" if first else ""))
    print_conv_choices(gg, dev, "convolution choices so far (the epoch's among them):")


def print_conv_choices(gg, dev: str, title: str) -> None:
    """The autotuner's cached convolution choices, each with the candidates' times."""
    if dev.startswith("cuda") and hasattr(gg.cuda, "conv_choices"):
        print(title)
        for line in gg.cuda.conv_choices():
            print("  " + line)


def child(args) -> int:
    import glassgrad as gg
    dev = gg_device(args.device)
    torch = None if args.no_torch else torch_or_none()
    sms, note_cap = 0, ""
    if dev.startswith("cuda"):
        sms = int(gg.cuda.device_info()["multiprocessors"])
        seen = torch.cuda.get_device_properties(0).multi_processor_count if torch is not None else "n/a"
        print(f"SMs: glassgrad sees {sms}, PyTorch sees {seen}", flush=True)
        cap = gg._C.parse_bytes(args.cap) if args.cap else 0
        note_cap = f"; memory cap {args.cap}" if cap else "; no memory cap"
        if cap:
            gg.set_memory_limit(cap, dev)
        if torch is not None:
            if cap:
                torch.cuda.set_per_process_memory_fraction(
                    min(1.0, cap / torch.cuda.get_device_properties(0).total_memory))
            torch.backends.cudnn.benchmark = True
        if args.conv_algo:
            gg.cuda.set_conv_algo(args.conv_algo)
    note = f"{sms} SMs" + note_cap + ("" if not args.label else f"; {args.label}")
    if args.conv_algo:
        note += f"; conv algo {args.conv_algo}"
    res = Results("ordinary_gpu", args.csv, tiny=args.tiny)
    only = set(args.only.split(","))
    where = f" on {sms} SMs" if sms else ""  # the report groups rows by it
    try:  # the rows of the workloads that ran are written even when a later one fails
        if "convs" in only:
            convs(args, res, dev, torch, note, where)
        if "resnet" in only:
            resnet(args, res, dev, torch, note, where)
        if "simplecnn" in only:
            simplecnn(args, res, dev, torch, note, where)
        if "gpt" in only:
            import gpt_workload
            gpt_workload.run(args, res, dev, torch, note + "; " + apply_threads(args.threads, torch), where)
        if "lstm" in only:
            lstm_step.workload(args, res, dev, torch, note + "; " + apply_threads(args.threads, torch), where)
        if "dcgan" in only:
            dcgan(args, res, dev, torch, note + "; " + apply_threads(args.threads, torch), where)
    finally:
        print("wrote", res.write())
        if args.choices:  # a memory cap changes both: workspace-hungry candidates, recomputation
            print_conv_choices(gg, dev, "convolution choices:")
            print("plan cache:", gg.cache_stats())
    return 0


def add_mps_arguments(p: argparse.ArgumentParser, min_sms: int) -> None:
    """The device and MPS options of a benchmark that runs its child under with_mps."""
    p.add_argument("--device", default="cuda")
    p.add_argument("--no-mps", action="store_true", help="run on the whole device (no MPS daemon)")
    p.add_argument("--percentage", type=int, default=0, help="CUDA_MPS_ACTIVE_THREAD_PERCENTAGE (default: smallest "
                                                             "share with >= --min-sms SMs)")
    p.add_argument("--min-sms", type=int, default=min_sms)
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)


def run(args, argv, child_fn, script: str = __file__) -> int:
    """The child's work in this process (--child), or `script`'s child on the whole device or under
    an MPS daemon."""
    if args.child:
        return child_fn(args)
    rest = [a for a in argv if a != "--child"]
    if args.no_mps or not args.device.startswith("cuda"):
        return run_child(rest, dict(os.environ), script)
    return with_mps(args, rest, script)


def op_bench_main(doc: str, script: str, child_fn, argv, rounds: int, calls: int) -> int:
    """main() of an op-level benchmark (common.OpBench): its options on a slice of >= 8 SMs."""
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_mps_arguments(p, min_sms=8)
    add_op_bench_arguments(p, rounds, calls)
    return run(p.parse_args(argv), argv, child_fn, script)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_mps_arguments(p, min_sms=6)
    p.add_argument("--only", default="convs,resnet,simplecnn,lstm")
    p.add_argument("--resnet-batches", default="32")
    p.add_argument("--rounds", type=int, default=5, help="alternating rounds")
    p.add_argument("--steps", type=int, default=10, help="ResNet-18 steps per round and framework")
    p.add_argument("--calls", type=int, default=5, help="convolution calls per round and framework")
    p.add_argument("--limit", type=int, default=0, help="SimpleCNN training images (default: all 60000)")
    p.add_argument("--lstm-hidden", default="650", help="hidden sizes of the LSTM workload (comma-separated)")
    p.add_argument("--conv-algo", default="", help="force glassgrad's convolution algorithm (set_conv_algo)")
    p.add_argument("--kernels", action="store_true", help="print each convolution's (and the GPT and DCGAN steps') kernels and times "
                                                          "(CUPTI through torch.profiler)")
    p.add_argument("--shapes", default="", help="only the convolution shapes whose model label contains one of "
                                                "these comma-separated words")
    p.add_argument("--gpt-batch", type=int, default=64)
    p.add_argument("--gpt-dropout", type=float, default=0.2, help="the GPT's dropout (nanoGPT's shakespeare_char: 0.2)")
    p.add_argument("--gpt-size", choices=("full", "small"), default="full",
                   help="full: 6 layers, 384 features, context 256; small: 2 layers, 128, 64, batch 8 (CPU)")
    p.add_argument("--cap", default="4GB", help="both frameworks' memory cap on a GPU ('' for none)")
    p.add_argument("--memory-limit", default="2GB", help="the GPT step again under set_memory_limit ('' to skip)")
    p.add_argument("--threads", type=int, default=0, help="CPU threads of both libraries (0: their defaults)")
    p.add_argument("--choices", action="store_true", help="print the convolution choices and plan-cache counts "
                                                          "at the end")
    p.add_argument("--label", default="", help="text added to every row's notes (e.g. which build)")
    p.add_argument("--tiny", action="store_true")
    p.add_argument("--no-torch", action="store_true")
    p.add_argument("--csv", default=None)
    add_dcgan_args(p)
    return run(p.parse_args(argv), argv, child)


if __name__ == "__main__":
    sys.exit(main())
