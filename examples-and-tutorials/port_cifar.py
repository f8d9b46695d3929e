"""A PyTorch CIFAR-10 script ported to glassgrad: port_cifar_pytorch.py with its imports changed.

Below the imports, this file is port_cifar_pytorch.py with `torch.` written `gg.`, plus the lines
marked `# glassgrad only` (they report what glassgrad's plan cache did); a test checks that. A
residual CNN with Conv2d(padding="same"), BatchNorm2d, AdaptiveAvgPool2d and dropout, trained
with AdamW, the OneCycleLR schedule (the learning rate and beta1 change every step) and label
smoothing. With --compile the step is traced twice and then replayed: the changing learning rate
is an input of the recorded plans, so nothing is compiled again after the first steps.

    python examples-and-tutorials/port_cifar.py --data ~/data/cifar-10-batches-py --compile
    python examples-and-tutorials/port_cifar.py --synthetic 512 --epochs 2 --compile    # no files needed

--data is the "python version" of CIFAR-10 (the cifar-10-batches-py directory, extracted from
cifar-10-python.tar.gz); nothing is downloaded. --synthetic N trains on N generated images whose
class sets their mean color (a quick check that the loop learns).
"""
import argparse
import os
import pickle
import sys
import time

import numpy as np

# --8<-- [start:imports]
import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F
from glassgrad.optim.lr_scheduler import OneCycleLR
# --8<-- [end:imports]

MEAN = np.array([0.4914, 0.4822, 0.4465], np.float32).reshape(1, 3, 1, 1)
STD = np.array([0.2470, 0.2435, 0.2616], np.float32).reshape(1, 3, 1, 1)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="Train a residual CNN on CIFAR-10.")
    p.add_argument("--data", help="the cifar-10-batches-py directory")
    p.add_argument("--synthetic", type=int, default=0, help="train on N generated images instead of --data")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=0.01, help="OneCycleLR's max_lr")
    p.add_argument("--width", type=int, default=32, help="channels of the first stage")
    p.add_argument("--limit", type=int, default=0, help="use only the first N training images")
    p.add_argument("--compile", action="store_true", help="compile the training step")
    p.add_argument("--device", default=None, help="cpu or cuda (default: cuda when available)")
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


def read_cifar10(directory):
    """(x_train, y_train, x_test, y_test): uint8 [N, 3, 32, 32] images and int64 labels."""
    def batch(name):
        with open(os.path.join(directory, name), "rb") as f:
            d = pickle.load(f, encoding="bytes")
        return d[b"data"].reshape(-1, 3, 32, 32), np.array(d[b"labels"], np.int64)
    train = [batch(f"data_batch_{i}") for i in range(1, 6)]
    x_test, y_test = batch("test_batch")
    return np.concatenate([x for x, _ in train]), np.concatenate([y for _, y in train]), x_test, y_test


def synthetic_cifar10(n, rng):
    """n training and n // 4 test images; each class has its own mean color, plus noise."""
    colors = rng.integers(40, 216, (10, 3))
    def images(m):
        y = rng.integers(0, 10, m)
        x = colors[y][:, :, None, None] + rng.integers(-60, 60, (m, 3, 32, 32))
        return np.clip(x, 0, 255).astype(np.uint8), y.astype(np.int64)
    return images(n) + images(max(1, n // 4))


def augment(x, rng):
    """Random 32x32 crops of the images zero-padded by 4, and random horizontal flips."""
    n = len(x)
    padded = np.pad(x, ((0, 0), (0, 0), (4, 4), (4, 4)))
    rows = rng.integers(0, 9, n)[:, None] + np.arange(32)
    cols = rng.integers(0, 9, n)[:, None] + np.arange(32)
    out = padded[np.arange(n)[:, None, None, None], np.arange(3)[None, :, None, None],
                 rows[:, None, :, None], cols[:, None, None, :]]
    flip = rng.random(n) < 0.5
    out[flip] = out[flip][..., ::-1]
    return out


def normalize(x):
    return ((x.astype(np.float32) / 255.0 - MEAN) / STD).astype(np.float32)


# --8<-- [start:model]
def conv_bn(c_in, c_out):
    return nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding="same", bias=False), nn.BatchNorm2d(c_out), nn.ReLU())


class Residual(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding="same", bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding="same", bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        return F.relu(x + self.bn2(self.conv2(out)))


class Net(nn.Module):
    def __init__(self, width=32, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            conv_bn(3, width), Residual(width), nn.MaxPool2d(2),
            conv_bn(width, 2 * width), Residual(2 * width), nn.MaxPool2d(2),
            conv_bn(2 * width, 4 * width), Residual(4 * width))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.dropout = nn.Dropout(0.2)
        self.fc = nn.Linear(4 * width, num_classes)

    def forward(self, x):
        x = self.pool(self.features(x))
        return self.fc(self.dropout(gg.flatten(x, 1)))
# --8<-- [end:model]


def evaluate(model, x, y, device, batch=500):
    model.eval()
    correct = 0
    with gg.no_grad():
        for i in range(0, len(x), batch):
            logits = model(gg.tensor(normalize(x[i:i + batch]), device=device))
            correct += int((logits.argmax(1).cpu().numpy() == y[i:i + batch]).sum())
    model.train()
    return correct / len(x)


def main(argv=None):
    args = parse_args(argv)
    device = args.device or ("cuda" if gg.cuda.is_available() else "cpu")
    gg.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    if args.synthetic:
        x_train, y_train, x_test, y_test = synthetic_cifar10(args.synthetic, rng)
    elif args.data and os.path.isfile(os.path.join(args.data, "data_batch_1")):
        x_train, y_train, x_test, y_test = read_cifar10(args.data)
    else:
        sys.exit("give --data DIR (the cifar-10-batches-py directory from cifar-10-python.tar.gz) or --synthetic N")
    if args.limit:
        x_train, y_train = x_train[:args.limit], y_train[:args.limit]
    steps_per_epoch = len(x_train) // args.batch_size  # full batches only: every step has one shape
    if steps_per_epoch == 0:
        sys.exit(f"{len(x_train)} training images make no batch of {args.batch_size}")

    # --8<-- [start:train]
    model = Net(args.width).to(device)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    optimizer = gg.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=5e-4)
    scheduler = OneCycleLR(optimizer, max_lr=args.lr, epochs=args.epochs, steps_per_epoch=steps_per_epoch)

    def train_step(x, y):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    step = gg.compile(train_step) if args.compile else train_step
    lrs = []
    new_compiles = []  # glassgrad only
    for epoch in range(args.epochs):
        start, loss_sum = time.perf_counter(), 0.0
        order = rng.permutation(len(x_train))
        for b in range(steps_per_epoch):
            idx = order[b * args.batch_size:(b + 1) * args.batch_size]
            x = gg.tensor(normalize(augment(x_train[idx], rng)), device=device)
            y = gg.tensor(y_train[idx], device=device)
            compiles = gg.cache_stats()["compiles"]  # glassgrad only
            loss_sum += step(x, y).item()
            scheduler.step()  # a new learning rate (and beta1) for every step
            new_compiles.append(gg.cache_stats()["compiles"] - compiles)  # glassgrad only
            lrs.append(scheduler.get_last_lr()[0])
        seconds = time.perf_counter() - start
        test_acc = evaluate(model, x_test, y_test, device)
        print(f"epoch {epoch + 1}/{args.epochs}: loss {loss_sum / steps_per_epoch:.4f}, test accuracy {test_acc:.4f}, "
              f"lr {lrs[-1]:.2e}, {steps_per_epoch * args.batch_size / seconds:.0f} images/s", flush=True)
    # --8<-- [end:train]
    if args.compile:  # glassgrad only
        print(f"compiled step: traced {step.traces} times, replayed {step.replays} times")  # glassgrad only
    if args.compile and device.startswith("cuda"):  # glassgrad only
        print(f"CUDA graphs of the compiled step: {step.cuda_graphs}")  # glassgrad only
    print(f"plan compiles by step: {new_compiles[:4]} ... then {sum(new_compiles[4:])} "  # glassgrad only
          f"in the other {len(new_compiles[4:])} steps")  # glassgrad only
    result = {"lrs": lrs, "step": step, "model": model, "test_accuracy": test_acc}
    result["new_compiles"] = new_compiles  # glassgrad only
    return result


if __name__ == "__main__":
    main()
