"""The seed's train_mnist.py, on glassgrad (docs/examples.md, docs/getting-started.md).

Only three things differ from the seed's script: the import line, the data loading (Fashion-MNIST
from Debian's dataset-fashion-mnist by default, or MNIST IDX files with --data DIR) and
`class SimpleCNN(glassgrad.Module)`. Around the seed's loop: a progress bar, the device in use,
and the test accuracy after every epoch.

    python examples-and-tutorials/train_mnist.py                 # 5 epochs on Fashion-MNIST
    python examples-and-tutorials/train_mnist.py --data ~/mnist  # MNIST IDX files
    python examples-and-tutorials/train_mnist.py --epochs 1 --limit 6400 --device cpu
    python examples-and-tutorials/train_mnist.py --save simple_cnn.pt  # keep the trained weights (docs/export.md)
"""
import argparse
import sys
import time

import numpy as np

import glassgrad as mf  # the seed: `import my_framework as mf`

try:
    from tqdm import tqdm
except ImportError:  # the bar is a nicety; training does not need it
    tqdm = None


def parse_args():
    p = argparse.ArgumentParser(description="Train the seed's SimpleCNN on (Fashion-)MNIST with glassgrad.")
    p.add_argument("--data", help="directory with the four MNIST IDX files (default: Fashion-MNIST from "
                                   "/usr/share/datasets/fashion-mnist)")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--limit", type=int, default=0, help="use only the first N training images (quick runs)")
    p.add_argument("--device", default=None, help="cpu or cuda (default: the GPU when one is usable)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--save", metavar="PATH", help="write the trained model's state_dict there (glassgrad.save)")
    p.add_argument("--distributed", action="store_true",
                   help="data-parallel over the ranks of python -m glassgrad.distributed.run --nproc-per-node N "
                        "(each rank trains on its share; --batch-size is per rank)")
    return p.parse_args()


# 1. Data loading (plain NumPy, no framework dependency)
def load_mnist(path=None):
    """X_train [60000, 1, 28, 28] uint8, y_train [60000] int64 (and the test split)."""
    try:
        if path:
            return mf.data.load_mnist(path)
        return mf.data.load_fashion_mnist()
    except mf.data.DatasetNotFoundError as e:
        sys.exit(f"train_mnist.py: no training data found.\n{e}")


# 2. The network (plain Python)
class SimpleCNN(mf.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = mf.Conv2D(1, 16, 3)  # in_c=1, out_c=16, k=3
        self.bn1 = mf.BatchNorm2D(16)
        self.conv2 = mf.Conv2D(16, 32, 3)
        self.bn2 = mf.BatchNorm2D(32)
        self.fc = mf.Linear(32 * 5 * 5, 10)  # 28 -> 26 -> 13 -> 11 -> 5

    def forward(self, x):
        x = self.conv1(x)
        x = self.bn1(x)
        x = mf.relu(x)
        x = mf.max_pool2d(x, 2)
        x = self.conv2(x)
        x = self.bn2(x)
        x = mf.relu(x)
        x = mf.max_pool2d(x, 2)
        x = mf.flatten(x)  # [N, 32*5*5]
        x = self.fc(x)
        return x


def evaluate(model, X, y, batch=1000):
    model.eval()
    correct = 0
    with mf.no_grad():
        for i in range(0, len(X), batch):
            logits = model.forward(X[i:i + batch])
            correct += int((logits.argmax(dim=1) == y[i:i + batch]).float().sum().item())
    model.train()
    return correct / len(X)


def main():
    args = parse_args()
    if args.device:
        mf.set_default_device(args.device)
    mf.manual_seed(args.seed)
    if args.distributed:
        import glassgrad.distributed as dist
        dist.init_process_group()  # NCCL on GPUs (cuda:<local rank>), MPI on the CPU
        if dist.get_rank() != 0:
            args.no_progress = True
            global print
            print = dist.print0  # one rank reports
    device = mf.default_device()
    where = "GPU" if device.startswith("cuda") else "CPU"
    extra = ""
    if where == "GPU":
        info = mf.cuda.device_info()
        extra = f" ({info['name']})"
    print(f"glassgrad {mf.__version__}: training on {where} {device}{extra}")

    # 3. The training loop (every step explicit), as in the seed
    model = SimpleCNN()
    optimizer = mf.SGD(model.parameters(), lr=args.lr)
    X, y, X_test, y_test = load_mnist(args.data)
    if args.limit:
        X, y = X[:args.limit], y[:args.limit]
    net = model
    if args.distributed:
        net = dist.DistributedDataParallel(model)  # rank 0's weights everywhere; gradients averaged
        shard = list(dist.DistributedSampler(X, shuffle=False, drop_last=True))
        X, y = X[shard], y[shard]
    X_tensor = mf.tensor(X.astype(np.float32) / 255.0)  # goes to the GPU when there is one
    y_tensor = mf.tensor(y.astype(np.int64))
    X_test_tensor = mf.tensor(X_test.astype(np.float32) / 255.0)
    y_test_tensor = mf.tensor(y_test.astype(np.int64))
    batch = args.batch_size
    for epoch in range(args.epochs):
        start = time.perf_counter()
        steps = range(0, len(X), batch)
        bar = None if (tqdm is None or args.no_progress) else tqdm(steps, desc=f"epoch {epoch}", unit="batch",
                                                                  leave=False, file=sys.stdout)
        say = print if bar is None else bar.write
        for i in (steps if bar is None else bar):
            x_batch = X_tensor[i:i + batch]
            y_batch = y_tensor[i:i + batch]
            # forward
            logits = net.forward(x_batch)
            loss = mf.cross_entropy(logits, y_batch)
            # backward (explicit)
            loss.backward()
            # update (explicit)
            optimizer.step()
            optimizer.zero_grad()  # must be cleared by hand
            if i % 500 == 0:
                acc = (logits.argmax(dim=1) == y_batch).float().mean().item()
                say(f"Epoch {epoch}, Batch {i}, Loss {loss.item():.4f}, Acc {acc:.4f}")
        if bar is not None:
            bar.close()
        seconds = time.perf_counter() - start
        test_acc = evaluate(model, X_test_tensor, y_test_tensor)
        print(f"Epoch {epoch} done in {seconds:.1f} s ({len(X) / seconds:.0f} images/s), "
              f"test accuracy {test_acc:.4f}")
    stats = mf.cache_stats()
    print(f"plan cache: {stats['compiles']} compiles, {stats['hits']} hits")
    if args.save and (not args.distributed or dist.get_rank() == 0):
        mf.save(model.state_dict(), args.save)
        print(f"saved the model's weights to {args.save}")


if __name__ == "__main__":
    main()
