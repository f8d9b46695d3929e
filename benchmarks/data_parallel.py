"""Data-parallel training throughput and equivalence: glassgrad's DistributedDataParallel against
PyTorch's DDP, each started by its own launcher on the same machine in the same run.

GPUs (NCCL): ResNet-18 (CIFAR variant), batch --batch per GPU, SGD momentum 0.9, random data;
for each world size in --gpus, the median step time over --steps steps after warm-up on rank 0
(each step synchronized), throughput = world * batch / step time, and scaling = throughput / the
1-GPU throughput of the same framework (the targets: 2 GPUs >= 1.9x, 4 GPUs >= 3.7x).

    python benchmarks/data_parallel.py --device cuda --gpus 1 2 4          # a machine with 4 GPUs
    python benchmarks/data_parallel.py --device cuda     # 1, 2, 4, 8 GPUs, as many as there are

CPU (MPI): --procs ranks with batch --batch each against one process with the concatenated
batch (same initial weights and data): the losses of every step side by side (they must agree
to float rounding) and the median step times.

    python benchmarks/data_parallel.py --device cpu --procs 2 --batch 32 --steps 10
    python benchmarks/data_parallel.py --device cpu --procs 2 --batch 64 --model simplecnn

Rows go to benchmarks/results/data_parallel.csv (common.py's columns). --tiny: a few steps of a
narrow ResNet-18 on the CPU, to prove the script runs. Internally the script re-runs itself as
one rank (--worker) under `python -m glassgrad.distributed.run` or `python -m torch.distributed.run`.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common
import workloads

HERE = os.path.dirname(os.path.abspath(__file__))


def _spec(a):
    return workloads.SIMPLE_CNN if a.model == "simplecnn" else workloads.resnet18(a.width)


def _global_batch(spec, world: int, batch: int, step: int):
    return workloads.random_batch(spec, world * batch, seed=1000 + step)


def gg_worker(a) -> dict:
    import glassgrad as gg
    import glassgrad.distributed as dist
    dist.init_process_group("nccl" if a.device == "cuda" else "mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    device = dist.device()
    gg.manual_seed(0)
    spec = _spec(a)
    model = workloads.gg_model(spec)
    if world > 1 and a.sync_bn:
        model = dist.convert_sync_batchnorm(model)
    net = dist.DistributedDataParallel(model) if world > 1 else model
    step = workloads.gg_step(spec, net)
    sync = common.gg_sync(device)
    mine = slice(rank * a.batch, (rank + 1) * a.batch)
    losses, times = [], []
    for i in range(a.warmup + a.steps):
        x, y = _global_batch(spec, world, a.batch, i if a.same_data else 0)
        xt, yt = gg.tensor(x[mine], device=device), gg.tensor(y[mine], device=device)
        sync()
        t0 = time.perf_counter()
        loss = step(xt, yt)
        sync()
        times.append(time.perf_counter() - t0)
        if world > 1:
            loss = loss.detach().clone()
            dist.all_reduce(loss, dist.ReduceOp.AVG)
        losses.append(loss.item())
    return dict(rank=rank, world=world, losses=losses, times=times[a.warmup:])


def torch_worker(a) -> dict:
    import torch
    import torch.distributed as tdist
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    local = int(os.environ.get("LOCAL_RANK", "0"))
    device = f"cuda:{local}" if a.device == "cuda" else "cpu"
    if a.device == "cuda":
        torch.cuda.set_device(local)
        torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
    if world > 1:
        tdist.init_process_group("nccl" if a.device == "cuda" else "gloo")
    import glassgrad as gg
    gg.manual_seed(0)
    spec = _spec(a)
    state = common.numpy_state(workloads.gg_model(spec))
    model = workloads.torch_model(torch, spec, state, device)
    net = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local] if a.device == "cuda" else None) \
        if world > 1 else model
    step = workloads.torch_step(torch, spec, net)
    sync = (lambda: torch.cuda.synchronize(device)) if a.device == "cuda" else (lambda: None)
    mine = slice(rank * a.batch, (rank + 1) * a.batch)
    losses, times = [], []
    for i in range(a.warmup + a.steps):
        x, y = _global_batch(spec, world, a.batch, i if a.same_data else 0)
        xt, yt = torch.from_numpy(x[mine]).to(device), torch.from_numpy(y[mine]).to(device)
        sync()
        t0 = time.perf_counter()
        loss = step(xt, yt)
        sync()
        times.append(time.perf_counter() - t0)
        loss = loss.detach()
        if world > 1:
            tdist.all_reduce(loss)
            loss /= world
        losses.append(float(loss))
    return dict(rank=rank, world=world, losses=losses, times=times[a.warmup:])


def launch(framework: str, world: int, a) -> dict:
    """Runs this script as `world` ranks of `framework` and returns rank 0's result."""
    worker = [os.path.abspath(__file__), "--worker", framework, "--device", a.device, "--batch", str(a.batch),
              "--steps", str(a.steps), "--warmup", str(a.warmup), "--width", str(a.width), "--model", a.model]
    if a.same_data:
        worker.append("--same-data")
    if a.sync_bn:
        worker.append("--sync-bn")
    if framework == "glassgrad":
        backend = "nccl" if a.device == "cuda" else "mpi"
        cmd = [sys.executable, "-m", "glassgrad.distributed.run", "--backend", backend, "--nproc-per-node", str(world),
               *worker]
    else:
        cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", str(world), *worker]
    import glassgrad  # the one this driver imported (installed, or the in-tree build), for the ranks too
    root = os.path.dirname(os.path.dirname(os.path.abspath(glassgrad.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (root, HERE, os.environ.get("PYTHONPATH", "")) if p))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=a.timeout)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    raise RuntimeError(f"{' '.join(cmd)} gave no result (exit {proc.returncode}):\n{proc.stdout[-3000:]}\n"
                       f"{proc.stderr[-3000:]}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    common.add_common_args(p)
    p.add_argument("--gpus", type=int, nargs="+", default=None,
                   help="CUDA: world sizes to run (default 1, 2, 4, 8 up to the GPUs this machine has)")
    p.add_argument("--procs", type=int, default=2, help="CPU: MPI ranks against one process")
    p.add_argument("--batch", type=int, default=128, help="batch per rank")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--width", type=int, default=64, help="ResNet-18's first-stage width (64: the real model)")
    p.add_argument("--model", choices=("resnet18", "simplecnn"), default="resnet18",
                   help="simplecnn: the seed's Fashion-MNIST model (plain SGD), a small CPU comparison")
    p.add_argument("--sync-bn", action="store_true",
                   help="glassgrad's ranks use SyncBatchNorm (the CPU comparison turns it on: then the ranks' losses "
                        "equal the single process's; PyTorch's SyncBatchNorm needs CUDA, so its CPU ranks keep "
                        "per-rank statistics)")
    p.add_argument("--same-data", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--worker", choices=("glassgrad", "torch"), help=argparse.SUPPRESS)
    p.add_argument("--timeout", type=float, default=1800)
    a = p.parse_args()
    if a.worker:
        result = (gg_worker if a.worker == "glassgrad" else torch_worker)(a)
        if result["rank"] == 0:
            print("RESULT " + json.dumps(result), flush=True)
        return
    if a.tiny:
        a.device, a.batch, a.steps, a.warmup, a.width, a.procs = "cpu", 4, 2, 1, 8, 2
    a.same_data = True
    res = common.Results("data_parallel", a.csv, a.tiny, a.notes)
    torch = None if a.no_torch else common.torch_or_none()
    frameworks = ["glassgrad"] + (["torch"] if torch is not None else [])
    label = _spec(a).label
    if a.device == "cuda":
        if a.gpus is None:
            import glassgrad as gg
            a.gpus = [w for w in (1, 2, 4, 8) if w <= gg.cuda.device_count()]
        base = {}
        for world in a.gpus:
            for fw in frameworks:
                r = launch(fw, world, a)
                t = statistics.median(r["times"])
                thr = world * a.batch / t
                base.setdefault(fw, thr if world == 1 else None)
                workload = f"{label} DDP bs{a.batch}/GPU x{world}"
                res.add("cuda", workload, "step_time", t * 1e3, "ms", fw)
                res.add("cuda", workload, "throughput", thr, "img/s", fw)
                if base.get(fw):
                    res.add("cuda", workload, "scaling_vs_1gpu", thr / base[fw], "x", fw)
    else:
        a.sync_bn = True
        one = dict(a.__dict__)
        single = argparse.Namespace(**dict(one, batch=a.batch * a.procs))
        for fw in frameworks:
            ranks = launch(fw, a.procs, a)
            alone = launch(fw, 1, single)
            diff = max(abs(x - y) for x, y in zip(ranks["losses"], alone["losses"]))
            workload = f"{label} {a.procs} ranks x bs{a.batch} vs 1 x bs{a.batch * a.procs}"
            res.add("cpu", workload, "max_loss_difference", diff, "", fw,
                    notes="losses " + " ".join(f"{x:.6f}/{y:.6f}" for x, y in zip(ranks["losses"], alone["losses"])))
            res.add("cpu", workload, f"step_time_{a.procs}_ranks", statistics.median(ranks["times"]) * 1e3, "ms", fw)
            res.add("cpu", workload, "step_time_1_process", statistics.median(alone["times"]) * 1e3, "ms", fw)
    print("wrote", res.write())


if __name__ == "__main__":
    main()
