"""End-to-end training time: the seed's SimpleCNN for one epoch of Fashion-MNIST (batch 32 and
256), with glassgrad's plain loop, glassgrad.compile, and PyTorch eager on the same data, the same
initial weights and the same hyper-parameters, in one process. Also reports test accuracy.

    python benchmarks/end_to_end.py                      # full epochs, CPU
    python benchmarks/end_to_end.py --device cuda        # on the GPU (PyTorch with TF32 off)
    python benchmarks/end_to_end.py --tiny               # a few steps, to prove it runs (CI)
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Results, torch_or_none  # noqa: E402

import glassgrad as gg  # noqa: E402


class SimpleCNN(gg.Module):
    """The seed's model (section 4.2)."""

    def __init__(self):
        super().__init__()
        self.conv1 = gg.Conv2D(1, 16, 3)
        self.bn1 = gg.BatchNorm2D(16)
        self.conv2 = gg.Conv2D(16, 32, 3)
        self.bn2 = gg.BatchNorm2D(32)
        self.fc = gg.Linear(32 * 5 * 5, 10)

    def forward(self, x):
        x = gg.max_pool2d(gg.relu(self.bn1(self.conv1(x))), 2)
        x = gg.max_pool2d(gg.relu(self.bn2(self.conv2(x))), 2)
        return self.fc(gg.flatten(x))


def load_data(limit: int):
    try:
        d = gg.data.load_fashion_mnist()
        X, y, Xt, yt = d
    except gg.data.DatasetNotFoundError:
        rng = np.random.default_rng(0)  # no data installed: random images, timing only
        X, y = rng.integers(0, 255, (60000, 1, 28, 28), dtype=np.uint8), rng.integers(0, 10, 60000)
        Xt, yt = X[:10000], y[:10000]
    if limit:
        X, y = X[:limit], y[:limit]
    return X.astype(np.float32) / 255.0, y.astype(np.int64), Xt.astype(np.float32) / 255.0, yt.astype(np.int64)


def glassgrad_epoch(model, X, y, batch, compiled: bool):
    opt = gg.SGD(model.parameters(), lr=0.01)

    def step(xb, yb):
        logits = model(xb)
        loss = gg.cross_entropy(logits, yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss

    run = gg.compile(step) if compiled else step
    gg.realize(X, y)
    start = time.perf_counter()
    loss = None
    for i in range(0, X.shape[0] - batch + 1, batch):
        loss = run(X[i:i + batch], y[i:i + batch])
    last = loss.item()
    gg._C.synchronize_all() if hasattr(gg._C, "synchronize_all") else None
    return time.perf_counter() - start, last


def glassgrad_accuracy(model, Xt, yt):
    model.eval()
    correct = 0
    with gg.no_grad():
        for i in range(0, Xt.shape[0], 1000):
            correct += int((model(Xt[i:i + 1000]).argmax(dim=1) == yt[i:i + 1000]).float().sum().item())
    model.train()
    return correct / Xt.shape[0]


def torch_model(torch, state):
    nn = torch.nn

    class TorchCNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 16, 3)
            self.bn1 = nn.BatchNorm2d(16)
            self.conv2 = nn.Conv2d(16, 32, 3)
            self.bn2 = nn.BatchNorm2d(32)
            self.fc = nn.Linear(800, 10)

        def forward(self, x):
            F = torch.nn.functional
            x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
            x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
            return self.fc(torch.flatten(x, 1))

    m = TorchCNN()
    m.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in state.items()}, strict=False)
    return m


def torch_epoch(torch, model, X, y, batch, sync):
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    F = torch.nn.functional
    sync()
    start = time.perf_counter()
    loss = None
    for i in range(0, X.shape[0] - batch + 1, batch):
        logits = model(X[i:i + batch])
        loss = F.cross_entropy(logits, y[i:i + batch])
        loss.backward()
        opt.step()
        opt.zero_grad()
    last = loss.item()
    sync()
    return time.perf_counter() - start, last


def torch_accuracy(torch, model, Xt, yt):
    model.eval()
    with torch.no_grad():
        correct = sum(int((model(Xt[i:i + 1000]).argmax(1) == yt[i:i + 1000]).sum()) for i in range(0, len(Xt), 1000))
    model.train()
    return correct / len(Xt)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default="cpu")
    p.add_argument("--batch-sizes", default="32,256")
    p.add_argument("--limit", type=int, default=0, help="training images per epoch (default: all 60000)")
    p.add_argument("--tiny", action="store_true", help="a few steps only (CI)")
    p.add_argument("--no-torch", action="store_true")
    p.add_argument("--csv", default=None)
    args = p.parse_args()
    limit = 256 if args.tiny else args.limit
    gg.set_default_device(args.device)
    dev = gg.default_device()
    torch = None if args.no_torch else torch_or_none()
    res = Results("end_to_end", args.csv)
    Xn, yn, Xtn, ytn = load_data(limit)
    if args.tiny:
        Xtn, ytn = Xtn[:500], ytn[:500]
    X, y, Xt, yt = gg.tensor(Xn), gg.tensor(yn), gg.tensor(Xtn), gg.tensor(ytn)
    for batch in [int(b) for b in args.batch_sizes.split(",")]:
        workload = f"SimpleCNN epoch batch {batch} ({Xn.shape[0]} images)"
        gg.manual_seed(0)
        init = SimpleCNN().state_dict()
        times = {}
        for compiled in (False, True):
            model = SimpleCNN()
            model.load_state_dict(init)
            t, last = glassgrad_epoch(model, X, y, batch, compiled)
            acc = glassgrad_accuracy(model, Xt, yt)
            name = "glassgrad" + (".compile" if compiled else "")
            times[name] = t
            res.add(dev, workload, "epoch_seconds", t, "s", name, notes=f"last loss {last:.4f}")
            res.add(dev, workload, "test_accuracy", acc, "", name)
        if torch is not None:
            tdev = "cuda" if dev.startswith("cuda") else "cpu"
            if tdev == "cuda":
                torch.backends.cuda.matmul.allow_tf32 = False
                torch.backends.cudnn.allow_tf32 = False
            sync = (lambda: torch.cuda.synchronize()) if tdev == "cuda" else (lambda: None)
            tm = torch_model(torch, init).to(tdev)
            TX, Ty = torch.from_numpy(Xn).to(tdev), torch.from_numpy(yn).to(tdev)
            t, last = torch_epoch(torch, tm, TX, Ty, batch, sync)
            acc = torch_accuracy(torch, tm, torch.from_numpy(Xtn).to(tdev), torch.from_numpy(ytn).to(tdev))
            res.add(dev, workload, "epoch_seconds", t, "s", f"torch {torch.__version__}", notes=f"last loss {last:.4f}")
            res.add(dev, workload, "test_accuracy", acc, "", f"torch {torch.__version__}")
            for name, tg in times.items():
                res.add(dev, workload, "epoch_time_ratio", tg / t, "x", name, ratio=tg / t)
    print("wrote", res.write())


if __name__ == "__main__":
    main()
