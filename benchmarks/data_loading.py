"""The input pipeline, glassgrad's DataLoader against PyTorch's in the same run, and (on a GPU) a
training epoch fed by a DataLoader against the same epoch over tensors already on the device.

  pipeline   CIFAR-shaped samples (PIL images 32x32, as torchvision's CIFAR10 returns them) through
             RandomCrop(32, padding=4), RandomHorizontalFlip, ToTensor and Normalize, batches of
             128, num_workers 0 and 2; images per second over whole epochs (worker start-up
             included). PyTorch's side uses torchvision's transforms when torchvision imports;
             otherwise the same operations written here with PIL and torch (torchvision's own
             steps: PIL pad and crop, PIL flip, from_numpy/permute/div, sub/div per channel), and
             its rows say so.
  loader_cpu The training process's CPU time per batch (time.process_time over whole epochs, its
             threads included, the time a simulated step sleeps excluded), and with workers the
             workers' CPU time per batch, all workers together (Linux), for glassgrad's DataLoader
             and PyTorch's on the same TensorDataset of Fashion-MNIST-shaped float32 images,
             batches of 32 and 256, num_workers=2, pin_memory off (and on, on a GPU): every
             microsecond of it adds to a GPU step that is bound by the host. The loop sleeps
             --step-us between batches (a training step the process spends elsewhere) so the
             workers are ahead, as in training; the ratio is glassgrad's time over PyTorch's
             (below 1: glassgrad's costs less).
  gpu_epoch  SimpleCNN (the seed's model), one epoch of Fashion-MNIST (random images when it is not
             installed) at --batch-sizes, plain loop and glassgrad.compile: fed by
             DataLoader(TensorDataset(x, y), shuffle=True, pin_memory=True, num_workers=2) with
             .to(device) (and .to(device, non_blocking=True), as PyTorch's ImageNet example
             writes it), against the same epoch over tensors already on the device; the ratio is
             loader-fed time over resident time.

    python benchmarks/data_loading.py                          # the pipeline, CPU
    python benchmarks/data_loading.py --only loader_cpu           # also runs without a GPU
    python benchmarks/data_loading.py --only gpu_epoch --device cuda
    python benchmarks/data_loading.py --only gpu_epoch --device cuda --transforms --batch-sizes 64
    python benchmarks/data_loading.py --tiny                   # a few batches (CI)
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Optional

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads as W
from common import Results, add_common_args, gg_sync, torch_name, torch_or_none

import glassgrad as gg
from glassgrad.utils.data import DataLoader, TensorDataset
from glassgrad.vision import transforms as T

MEAN, STD = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)


# ---------------------------------------------------------------------------------------------
# pipeline

def cifar_like(n: int) -> tuple:
    """n CIFAR-shaped images (uint8, 32x32x3) and labels: the real training set when the python
    batches are at $CIFAR10_DIR, else random ones (the transforms cost the same)."""
    root = os.environ.get("CIFAR10_DIR")
    if root:
        try:
            c = gg.data.load_cifar10(root)
            return c.x_train[:n].transpose(0, 2, 3, 1).copy(), c.y_train[:n], "CIFAR-10"
        except gg.data.DatasetNotFoundError:
            pass
    rng = np.random.default_rng(0)
    return rng.integers(0, 256, (n, 32, 32, 3), dtype=np.uint8), rng.integers(0, 10, n), "random images"


class CifarLike:
    """As torchvision's CIFAR10.__getitem__: a PIL image of the HWC array, through the transform
    (glassgrad's or PyTorch's; both DataLoaders take any object with __getitem__ and __len__)."""

    def __init__(self, data, targets, transform):
        self.data, self.targets, self.transform = data, targets, transform

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        from PIL import Image
        return self.transform(Image.fromarray(self.data[i])), int(self.targets[i])


def glassgrad_pipeline():
    return T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor(), T.Normalize(MEAN, STD)])


def torch_pipeline(torch):
    """(transform, description): torchvision's when it imports, else its steps written with PIL
    and torch."""
    try:
        import torchvision.transforms as tvt
        return tvt.Compose([tvt.RandomCrop(32, padding=4), tvt.RandomHorizontalFlip(), tvt.ToTensor(),
                            tvt.Normalize(MEAN, STD)]), "torchvision transforms"
    except Exception:  # not installed, or built for another torch
        pass
    from PIL import Image, ImageOps
    mean = torch.tensor(MEAN).view(-1, 1, 1)
    std = torch.tensor(STD).view(-1, 1, 1)

    def transform(img):
        img = ImageOps.expand(img, border=4, fill=(0, 0, 0))          # RandomCrop's pad
        i, j = torch.randint(0, 9, (1,)).item(), torch.randint(0, 9, (1,)).item()
        img = img.crop((j, i, j + 32, i + 32))                        # RandomCrop's crop
        if torch.rand(1) < 0.5:                                       # RandomHorizontalFlip
            img = img.transpose(Image.FLIP_LEFT_RIGHT)
        x = torch.from_numpy(np.array(img, np.uint8, copy=True))      # ToTensor
        x = x.view(32, 32, 3).permute(2, 0, 1).contiguous().to(torch.float32).div(255)
        return x.sub_(mean).div_(std)                                 # Normalize
    return transform, "the transforms' steps in PIL and torch (torchvision does not import here)"


def images_per_second(loader, epochs: int) -> list:
    rates = []
    for _ in range(epochs):
        start, n = time.perf_counter(), 0
        for x, _ in loader:
            n += int(x.shape[0])
        rates.append(n / (time.perf_counter() - start))
    return rates


def pipeline(args, torch, res: Results) -> None:
    n = 512 if args.tiny else args.images
    data, targets, source = cifar_like(n)
    for workers in (0, 2):
        workload = f"CIFAR pipeline batch 128, num_workers {workers} ({n} {source})"
        epochs = 1 if args.tiny else args.epochs
        # Interleaved, one epoch each in turn, so load on a shared machine hits both alike.
        ours, theirs = [], []
        gg_loader = DataLoader(CifarLike(data, targets, glassgrad_pipeline()), batch_size=128, shuffle=True,
                               num_workers=workers)
        tl = None
        if torch is not None:
            transform, how = torch_pipeline(torch)
            tl = torch.utils.data.DataLoader(CifarLike(data, targets, transform), batch_size=128, shuffle=True,
                                             num_workers=workers)
        for _ in range(epochs):
            ours += images_per_second(gg_loader, 1)
            if tl is not None:
                theirs += images_per_second(tl, 1)
        best = max(ours)
        ratio = None
        if theirs:
            ratio = best / max(theirs)
            res.add(args.device, workload, "images_per_second", max(theirs), "img/s", torch_name(torch),
                    notes=f"best of {len(theirs)} epochs ({', '.join(f'{r:.0f}' for r in theirs)}); {how}")
        # Here the ratio is glassgrad's rate over PyTorch's: above 1 means glassgrad is faster.
        res.add(args.device, workload, "images_per_second", best, "img/s", "glassgrad", ratio=ratio,
                notes=f"best of {len(ours)} epochs ({', '.join(f'{r:.0f}' for r in ours)}); ratio = rate / "
                      f"torch's rate (above 1: faster)")


# ---------------------------------------------------------------------------------------------
# loader_cpu

def workers_cpu_seconds(loader):
    """CPU seconds the loader's persistent worker processes have run, all their threads (Linux's
    scheduler accounting in nanoseconds, /proc/<pid>/task/<tid>/schedstat), or None (no workers,
    or no such files). Both DataLoaders keep their persistent iterator in `_iterator` and its
    processes in `_workers`."""
    workers = getattr(getattr(loader, "_iterator", None), "_workers", None)
    if not workers:
        return None
    total = 0.0
    for w in workers:
        try:
            for tid in os.listdir(f"/proc/{w.pid}/task"):
                with open(f"/proc/{w.pid}/task/{tid}/schedstat") as f:
                    total += int(f.read().split()[0]) * 1e-9
        except (OSError, ValueError, IndexError):
            return None
    return total


def main_process_us_per_batch(loader, epochs: int, step_s: float) -> list:
    """This process's CPU time per batch over each epoch (all its threads: PyTorch's and
    multiprocessing's helper threads count), less the CPU the simulated step's sleep costs, the
    epoch's images per second of wall time (sleeps included), and the CPU time of all workers
    together per batch (None without workers): a list of (us, images/s, worker us)."""
    n_sleep = 200
    start = time.process_time()
    for _ in range(n_sleep):
        time.sleep(step_s)
    sleep_cpu = (time.process_time() - start) / n_sleep
    out = []
    for _ in range(epochs):
        workers_before = workers_cpu_seconds(loader)
        start, wall, n, images = time.process_time(), time.perf_counter(), 0, 0
        for batch in loader:
            time.sleep(step_s)
            n += 1
            images += len(batch[0])
        wall = time.perf_counter() - wall
        cpu = time.process_time() - start
        workers_after = workers_cpu_seconds(loader)
        worker_us = None if workers_before is None or workers_after is None \
            else (workers_after - workers_before) / n * 1e6
        out.append(((cpu / n - sleep_cpu) * 1e6, images / wall, worker_us))
    return out


def loader_cpu(args, torch, res: Results) -> None:
    n = 2048 if args.tiny else args.cpu_images
    rng = np.random.default_rng(0)
    xn = rng.random((n, 1, 28, 28), dtype=np.float32)
    yn = rng.integers(0, 10, n).astype(np.int64)
    epochs = 1 if args.tiny else args.epochs
    pins = (False, True) if args.device.startswith("cuda") else (False,)
    cases = [(int(b), int(w), pin) for b in args.batch_sizes.split(",") for w in args.workers.split(",")
             for pin in pins]
    for batch, workers, pin in cases:
        workload = (f"DataLoader main process, TensorDataset {n}x1x28x28 float32, batch {batch}, {workers} workers, "
                    f"pin_memory={pin}")
        kwargs = dict(batch_size=batch, shuffle=True, drop_last=True, num_workers=workers, pin_memory=pin,
                      persistent_workers=workers > 0)
        ours = DataLoader(TensorDataset(xn, yn), **kwargs)
        theirs = None
        if torch is not None:
            theirs = torch.utils.data.DataLoader(
                torch.utils.data.TensorDataset(torch.from_numpy(xn), torch.from_numpy(yn)), **kwargs)
        mine, torchs = [], []
        for loader, into in ((ours, mine), (theirs, torchs)):
            if loader is not None:
                main_process_us_per_batch(loader, 1, 0.0)  # start the persistent workers
        for _ in range(epochs):  # interleaved, so load on a shared machine hits both alike
            mine += main_process_us_per_batch(ours, 1, args.step_us * 1e-6)
            if theirs is not None:
                torchs += main_process_us_per_batch(theirs, 1, args.step_us * 1e-6)
        step = f"step {args.step_us:.0f} us; load average {os.getloadavg()[0]:.1f}"
        for metric, unit, pick, k, better in (("main_process_us_per_batch", "us", min, 0, "below 1: less CPU"),
                                               ("images_per_second", "img/s", max, 1, "above 1: faster"),
                                               ("worker_us_per_batch", "us", min, 2, "below 1: less CPU")):
            m, t = [r[k] for r in mine if r[k] is not None], [r[k] for r in torchs if r[k] is not None]
            if not m:
                continue  # no workers (or no per-process accounting): no worker row
            ratio = pick(m) / pick(t) if t else None
            if t:
                res.add(args.device, workload, metric, pick(t), unit, torch_name(torch),
                        notes=f"best of {len(t)} epochs ({', '.join(f'{v:.0f}' for v in t)}); {step}")
            res.add(args.device, workload, metric, pick(m), unit, "glassgrad", ratio=ratio,
                    notes=f"best of {len(m)} epochs ({', '.join(f'{v:.0f}' for v in m)}); {step}; ratio = "
                          f"glassgrad / torch ({better})")
        del ours, theirs


# ---------------------------------------------------------------------------------------------
# gpu_epoch

def fashion_mnist(limit: int):
    try:
        x, y, _, _ = gg.data.load_fashion_mnist()
        source = "Fashion-MNIST"
    except gg.data.DatasetNotFoundError:
        rng = np.random.default_rng(0)
        x, y = rng.integers(0, 255, (60000, 1, 28, 28), dtype=np.uint8), rng.integers(0, 10, 60000)
        source = "random images"
    if limit:
        x, y = x[:limit], y[:limit]
    return (x.astype(np.float32) / 255.0), y.astype(np.int64), source


FASHION_MEAN, FASHION_STD = 0.2860, 0.3530


class FashionLike:
    """As torchvision's FashionMNIST.__getitem__: a PIL image ('L', 28x28) of the uint8 array,
    through the transform (ToTensor and Normalize, as pytorch/examples' MNIST script)."""

    def __init__(self, images, targets, transform):
        self.images, self.targets, self.transform = images, targets, transform

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        from PIL import Image
        return self.transform(Image.fromarray(self.images[i])), int(self.targets[i])


def epoch_resident(run, X, y, batch: int, sync) -> float:
    sync()
    start = time.perf_counter()
    loss = None
    for i in range(0, X.shape[0] - batch + 1, batch):
        loss = run(X[i:i + batch], y[i:i + batch])
    loss.item()
    sync()
    return time.perf_counter() - start


def epoch_loader(run, loader, dev: str, sync, non_blocking: bool = False, parts: Optional[list] = None) -> float:
    """The epoch's seconds; `parts` (a list) gets the host's microseconds per batch waiting in
    next(loader) and in the two .to() calls (where the loop's time beside the step goes)."""
    sync()
    start = time.perf_counter()
    loss = None
    waiting = moving = 0.0
    n = 0
    it = iter(loader)
    while True:
        t0 = time.perf_counter()
        try:
            xb, yb = next(it)
        except StopIteration:
            break
        t1 = time.perf_counter()
        xd, yd = xb.to(dev, non_blocking=non_blocking), yb.to(dev, non_blocking=non_blocking)
        t2 = time.perf_counter()
        waiting, moving, n = waiting + (t1 - t0), moving + (t2 - t1), n + 1
        loss = run(xd, yd)
    loss.item()
    sync()
    seconds = time.perf_counter() - start
    if parts is not None and n:
        parts.append((waiting / n * 1e6, moving / n * 1e6))
    return seconds


def gpu_epoch(args, res: Results) -> None:
    dev = "cuda:0" if args.device.startswith("cuda") else "cpu"
    limit = 2048 if args.tiny else args.limit
    xn, yn, source = fashion_mnist(limit)
    if args.transforms:  # per sample: a PIL image through ToTensor and Normalize in the workers
        dataset = FashionLike(np.rint(xn * 255.0).astype(np.uint8).reshape(-1, 28, 28), yn,
                              T.Compose([T.ToTensor(), T.Normalize((FASHION_MEAN,), (FASHION_STD,))]))
        xn = (xn - np.float32(FASHION_MEAN)) / np.float32(FASHION_STD)  # the same values, resident
        source += ", ToTensor + Normalize per sample"
    else:
        dataset = TensorDataset(xn, yn)
    X, Y = gg.tensor(xn, device=dev), gg.tensor(yn, device=dev)
    sync = gg_sync(dev)
    for batch in [int(b) for b in args.batch_sizes.split(",")]:
        loader = DataLoader(dataset, batch_size=batch, shuffle=True, drop_last=True,
                            num_workers=2, pin_memory=dev != "cpu", persistent_workers=True)
        for compiled in (False, True):
            gg.manual_seed(0)
            model = gg.models.SimpleCNN().to(dev)
            step = W.gg_step(W.SIMPLE_CNN, model)
            run = gg.compile(step) if compiled else step
            epoch_resident(run, X, Y, batch, sync)  # warm: plans, autotuning, graph capture
            epoch_loader(run, loader, dev, sync)
            resident, fed, fed_nb = [], [], []
            parts: dict = {".to(device)": [], ".to(device, non_blocking=True)": []}
            for _ in range(1 if args.tiny else args.repeats):  # interleaved
                resident.append(epoch_resident(run, X, Y, batch, sync))
                fed.append(epoch_loader(run, loader, dev, sync, parts=parts[".to(device)"]))
                fed_nb.append(epoch_loader(run, loader, dev, sync, non_blocking=True,
                                           parts=parts[".to(device, non_blocking=True)"]))
            name = "glassgrad" + (".compile" if compiled else "")
            workload = f"SimpleCNN epoch batch {batch} ({X.shape[0]} {source})"
            r = statistics.median(resident)
            res.add(args.device, workload + ", tensors on the device", "epoch_seconds", r, "s", name,
                    notes=f"median of {len(resident)}: {', '.join(f'{t:.3f}' for t in resident)}")
            for how, times in ((".to(device)", fed), (".to(device, non_blocking=True)", fed_nb)):
                f = statistics.median(times)
                per_batch = "; ".join(f"next() {w:.1f} us, .to() x2 {m:.1f} us a batch" for w, m in parts[how])
                res.add(args.device, workload + f", DataLoader(pin_memory, 2 workers), {how}", "epoch_seconds", f,
                        "s", name, notes=f"median of {len(times)}: {', '.join(f'{t:.3f}' for t in times)}; "
                                         f"loader-fed / resident = {f / r:.3f} (target 1.2 on a GPU); "
                                         f"host per epoch: {per_batch}")
        del loader


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_common_args(p)
    p.add_argument("--only", choices=["pipeline", "loader_cpu", "gpu_epoch"], default=None)
    p.add_argument("--images", type=int, default=10240, help="pipeline: images per epoch")
    p.add_argument("--epochs", type=int, default=3,
                   help="pipeline and loader_cpu: epochs per loader (best is reported)")
    p.add_argument("--batch-sizes", default="256,32", help="loader_cpu and gpu_epoch: batch sizes")
    p.add_argument("--workers", default="2", help="loader_cpu: num_workers values, e.g. 0,2")
    p.add_argument("--cpu-images", type=int, default=10240, help="loader_cpu: images per epoch")
    p.add_argument("--step-us", type=float, default=300.0,
                   help="loader_cpu: microseconds the loop sleeps per batch (a step spent elsewhere)")
    p.add_argument("--limit", type=int, default=0, help="gpu_epoch: training images (default all 60000)")
    p.add_argument("--repeats", type=int, default=5, help="gpu_epoch: timed epochs of each kind")
    p.add_argument("--transforms", action="store_true",
                   help="gpu_epoch: samples as PIL images through ToTensor and Normalize in the workers (pytorch/"
                        "examples' MNIST pipeline) instead of a TensorDataset")
    args = p.parse_args()
    torch = None if args.no_torch else torch_or_none()
    res = Results("data_loading", args.csv, args.tiny, args.notes)
    if args.only in (None, "pipeline"):
        pipeline(args, torch, res)
    if args.only in (None, "loader_cpu"):
        loader_cpu(args, torch, res)
    if args.only == "gpu_epoch" or (args.only is None and args.device.startswith("cuda")):
        gpu_epoch(args, res)
    print("wrote", res.write())


if __name__ == "__main__":
    main()
