"""The DCGAN training iteration (examples-and-tutorials/dcgan.py, pytorch/examples' dcgan: the
discriminator on a real and a generated batch, its Adam step, the generator through the
discriminator, its Adam step), glassgrad.compile against PyTorch eager with the same weights, in
alternating rounds.

    python benchmarks/dcgan_step.py --device cpu --threads 2                    # CPU: ngf = ndf = 16, batch 16
    python benchmarks/dcgan_step.py --device cuda --ngf 64 --ndf 64 --batch 64  # the whole GPU
    python benchmarks/ordinary_gpu.py --only dcgan                              # 8 SMs under MPS (64, 64, 64)
    python benchmarks/dcgan_step.py --tiny --no-torch                           # seconds: proves it runs (CI)

64x64 images, nz = 100, one input channel (Fashion-MNIST's). Two figures per framework: the
median synchronized iteration and the pipelined one (iterations back to back, one synchronize).
Rows go to benchmarks/results/dcgan_step.csv (ordinary_gpu.py: its own CSV), with the ratio to
PyTorch eager and the roofline columns (roofline.py: dcgan_counts, the iteration's convolution
FLOPs in every direction it runs; peaks measured at the start of the run).
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (numpy_state, Results, apply_threads, back_to_back, gg_device, gg_sync, time_repeats, torch_name,
                    torch_or_none, torch_setup)
import roofline as R

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples-and-tutorials", "dcgan.py")
NZ, NC, IMAGE = 100, 1, 64


def example():
    """examples-and-tutorials/dcgan.py as a module: the layer lists, weights_init, train_step."""
    spec = importlib.util.spec_from_file_location("dcgan_example", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def torch_models(torch, ex, ngf, ndf, g_state, d_state, device):
    """The same generator and discriminator in PyTorch, loaded with glassgrad's weights."""
    nn = torch.nn
    netG = nn.Sequential(*ex.generator_layers(nn, NZ, ngf, NC))
    netD = nn.Sequential(*ex.discriminator_layers(nn, ndf, NC))
    for net, state in ((netG, g_state), (netD, d_state)):
        net.load_state_dict({k.split("main.", 1)[1]: torch.from_numpy(np.asarray(v)) for k, v in state.items()})
    return netG.to(device), netD.to(device)


def torch_step(torch, netG, netD, lr=0.0002, beta1=0.5):
    """pytorch/examples' dcgan iteration (main.py's loop body, without the prints)."""
    criterion = torch.nn.BCELoss()
    optD = torch.optim.Adam(netD.parameters(), lr=lr, betas=(beta1, 0.999))
    optG = torch.optim.Adam(netG.parameters(), lr=lr, betas=(beta1, 0.999))

    def step(real, noise):
        batch = real.size(0)
        netD.zero_grad()
        label = torch.full((batch,), 1.0, dtype=real.dtype, device=real.device)
        errD_real = criterion(netD(real).view(-1), label)
        errD_real.backward()
        fake = netG(noise)
        label.fill_(0.0)
        errD_fake = criterion(netD(fake.detach()).view(-1), label)
        errD_fake.backward()
        optD.step()
        netG.zero_grad()
        label.fill_(1.0)
        errG = criterion(netD(fake).view(-1), label)
        errG.backward()
        optG.step()
    return step


def dcgan(args, res, dev, torch, note, where):
    """The workload: rows for glassgrad.compile and PyTorch eager (ordinary_gpu.py calls this too)."""
    import glassgrad as gg
    ex = example()
    default = 16 if dev == "cpu" else 64  # the CPU's small size; the GPU's target size
    ngf, ndf, batch = (4, 4, 2) if args.tiny else (args.dcgan_ngf or default, args.dcgan_ndf or default,
                                                   args.dcgan_batch or default)
    rounds, steps = (1, 2) if args.tiny else (args.rounds, args.steps)
    gg.manual_seed(0)
    netG, netD = ex.Generator(NZ, ngf, NC), ex.Discriminator(ndf, NC)
    netG.apply(ex.weights_init)
    netD.apply(ex.weights_init)
    g_state, d_state = numpy_state(netG), numpy_state(netD)
    optD = gg.optim.Adam(netD.parameters(), lr=0.0002, betas=(0.5, 0.999))
    optG = gg.optim.Adam(netG.parameters(), lr=0.0002, betas=(0.5, 0.999))
    criterion = gg.nn.BCELoss()
    rng = np.random.default_rng(0)
    real_n = rng.uniform(-1, 1, (batch, NC, IMAGE, IMAGE)).astype(np.float32)
    noise_n = rng.standard_normal((batch, NZ, 1, 1)).astype(np.float32)
    real, noise = gg.tensor(real_n), gg.tensor(noise_n)
    gg.realize(real, noise)
    run = gg.compile(ex.train_step)
    contenders = {"glassgrad.compile": (lambda: run(netD, netG, optD, optG, criterion, real, noise), gg_sync(dev))}
    if torch is not None:
        tdev, tsync = torch_setup(torch, dev)
        tG, tD = torch_models(torch, ex, ngf, ndf, g_state, d_state, tdev)
        tstep = torch_step(torch, tG, tD)
        treal, tnoise = torch.from_numpy(real_n).to(tdev), torch.from_numpy(noise_n).to(tdev)
        contenders[torch_name(torch)] = (lambda: tstep(treal, tnoise), tsync)
    for fn, sync in contenders.values():  # warm-up: plans, autotuning, cuDNN's benchmark mode
        for _ in range(2 if args.tiny else 5):
            fn()
        sync()
    sync_times = {k: [] for k in contenders}
    piped = {k: [] for k in contenders}
    for _ in range(rounds):
        for name, (fn, sync) in contenders.items():
            sync_times[name] += time_repeats(fn, repeats=steps, warmup=0, sync=sync)
            piped[name].append(back_to_back(fn, sync, steps))
    if getattr(args, "kernels", False) and torch is not None and dev.startswith("cuda"):
        from ordinary_gpu import kernel_breakdown  # both frameworks' kernels per iteration (CUPTI)
        for name, (fn, sync) in contenders.items():
            print(f"DCGAN {name}: {kernel_breakdown(torch, fn, sync, calls=3)}", flush=True)
    graphs = run.cuda_graphs  # a plan captured again, or not replayed as a graph, costs launches
    workload = f"DCGAN iteration 64x64 ngf {ngf} ndf {ndf} batch {batch}{where}"
    peak = R.device_peak(dev)
    flop, nbytes = R.dcgan_counts(netG, netD, noise_n.shape, real_n.shape)
    tname = next((k for k in contenders if k.startswith("torch")), None)
    for metric, times in (("synchronized_step_ms", sync_times), ("pipelined_step_ms", piped)):
        med = {k: statistics.median(v) for k, v in times.items()}
        for name, t in med.items():
            ratio = None if name == tname or tname is None else t / med[tname]
            res.add(dev, workload, metric, t * 1e3, "ms", name, ratio=ratio,
                    notes=f"{note}; median of {len(times[name])} in {rounds} alternating rounds; {peak.note()}"
                          + (f"; CUDA graphs {graphs}" if name == "glassgrad.compile" and dev != "cpu" else ""),
                    roofline=R.columns(flop, t, peak, nbytes))


def add_dcgan_args(p: argparse.ArgumentParser) -> None:
    """The workload's sizes (ordinary_gpu.py adds them too); default 64 on a GPU, 16 on the CPU."""
    p.add_argument("--dcgan-ngf", "--ngf", type=int, default=0, help="generator width")
    p.add_argument("--dcgan-ndf", "--ndf", type=int, default=0, help="discriminator width")
    p.add_argument("--dcgan-batch", "--batch", type=int, default=0)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default="cpu")
    p.add_argument("--threads", type=int, default=0, help="CPU threads for both libraries (default: their own)")
    p.add_argument("--rounds", type=int, default=5, help="alternating rounds")
    p.add_argument("--steps", type=int, default=5, help="iterations per round and framework")
    p.add_argument("--tiny", action="store_true")
    p.add_argument("--no-torch", action="store_true")
    p.add_argument("--csv", default=None)
    add_dcgan_args(p)
    args = p.parse_args(argv)
    dev = gg_device(args.device)
    torch = None if args.no_torch else torch_or_none()
    threads = apply_threads(args.threads, torch) if dev == "cpu" else ""
    res = Results("dcgan_step", args.csv, tiny=args.tiny, notes=threads)
    if torch is not None and dev.startswith("cuda"):
        torch.backends.cudnn.benchmark = True
    where = f", {args.threads} thread{'s' if args.threads != 1 else ''}" if dev == "cpu" and args.threads else ""
    dcgan(args, res, dev, torch, threads or dev, where)
    print("wrote", res.write())
    return 0


if __name__ == "__main__":
    sys.exit(main())
