"""Stop training, save a checkpoint, resume, and land on exactly the same loss as a run that never
stopped. A small CNN with BatchNorm on scikit-learn's 8x8 digits, SGD with momentum or Adam.

    python examples-and-tutorials/resume_training.py               # all in one process: runs
        # --steps uninterrupted, then stops a second run at --stop-after, saves, builds a fresh
        # model and optimizer, loads, finishes; prints both final losses and whether they match
    python examples-and-tutorials/resume_training.py --stop-after 30 --checkpoint ck.gg   # stop
    python examples-and-tutorials/resume_training.py --resume ck.gg                      # resume

What has to go into the checkpoint for the resumed run to be *bit-for-bit* the same:
  - the model's parameters and buffers (BatchNorm running statistics): model.state_dict()
  - the optimizer's state: momentum buffers, or Adam's moments and step count
  - where training stopped (the step), and the state of every random generator still in use
    (here the one that draws the input noise: a NumPy Generator's bit_generator.state)
The data order is a function of the step (one seeded permutation per epoch), so the step count
is all the batching needs.
"""
import argparse
import sys

import numpy as np

import glassgrad as gg


class SmallCNN(gg.Module):
    """[N, 1, 8, 8] -> conv 3x3 (8) -> BN -> relu -> max pool 2 -> conv 3x3 (16) -> BN -> relu
    -> max pool 2 -> [N, 16, 2, 2] -> Linear(64, 10)."""

    def __init__(self):
        super().__init__()
        self.conv1 = gg.Conv2D(1, 8, 3, padding=1)
        self.bn1 = gg.BatchNorm2D(8)
        self.conv2 = gg.Conv2D(8, 16, 3, padding=1)
        self.bn2 = gg.BatchNorm2D(16)
        self.fc = gg.Linear(16 * 2 * 2, 10)

    def forward(self, x):
        x = gg.max_pool2d(gg.relu(self.bn1(self.conv1(x))), 2)
        x = gg.max_pool2d(gg.relu(self.bn2(self.conv2(x))), 2)
        return self.fc(gg.flatten(x))


def load_digits():
    try:
        from sklearn.datasets import load_digits as sk_digits
    except ImportError:
        sys.exit("resume_training.py needs scikit-learn for its data set: python3 -m pip install scikit-learn")
    d = sk_digits()
    return (d.images / 16.0).astype(np.float32)[:, None], d.target.astype(np.int64)


def batch_for(step, n, batch_size, seed):
    """Indices of the batch at `step`: epoch e uses permutation e of a Generator seeded (seed, e)."""
    per_epoch = n // batch_size
    epoch, i = divmod(step, per_epoch)
    order = np.random.default_rng([seed, epoch]).permutation(n)
    return order[i * batch_size:(i + 1) * batch_size]


def make(args, init_seed):
    gg.manual_seed(init_seed)
    model = SmallCNN()
    if args.optimizer == "adam":
        optimizer = gg.Adam(model.parameters(), lr=args.lr)
    else:
        optimizer = gg.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    return model, optimizer


# --8<-- [start:train]
def train(model, optimizer, x, y, args, start_step, stop_step, noise_rng):
    """Runs steps start_step .. stop_step - 1 and returns their losses."""
    losses = []
    for step in range(start_step, stop_step):
        idx = batch_for(step, len(x), args.batch_size, args.seed)
        xb = x[idx] + noise_rng.normal(0.0, 0.05, x[idx].shape).astype(np.float32)  # a random augmentation
        loss = gg.cross_entropy(model(gg.tensor(xb)), gg.tensor(y[idx]))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
    return losses


def save_checkpoint(path, model, optimizer, step, noise_rng, format=None):
    gg.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step,
             "noise_rng": noise_rng.bit_generator.state}, path, format=format)  # atomic: temp file + rename


def load_checkpoint(path, model, optimizer):
    """Restores model and optimizer in place; returns (step, noise generator)."""
    ckpt = gg.load(path)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    noise_rng = np.random.default_rng()
    noise_rng.bit_generator.state = ckpt["noise_rng"]
    return ckpt["step"], noise_rng
# --8<-- [end:train]


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="Stop, save, resume: the same loss as an uninterrupted run.")
    p.add_argument("--steps", type=int, default=60, help="total training steps")
    p.add_argument("--stop-after", type=int, default=None, help="stop after this many steps and save")
    p.add_argument("--checkpoint", default="resume_training.ckpt", help="checkpoint file")
    p.add_argument("--resume", default=None, metavar="CHECKPOINT", help="resume from this checkpoint and finish")
    p.add_argument("--optimizer", choices=("sgd", "adam"), default="sgd")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--format", choices=("safetensors", "npz"), default=None,
                   help="checkpoint format (default: safetensors when installed)")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    gg.set_default_device("cpu")  # bit-for-bit comparisons: one device, one set of kernels
    x, y = load_digits()

    if args.resume:  # second half of a two-process run
        model, optimizer = make(args, init_seed=12345)  # other initial weights: the checkpoint must overwrite them
        step, noise_rng = load_checkpoint(args.resume, model, optimizer)
        losses = train(model, optimizer, x, y, args, step, args.steps, noise_rng)
        print(f"resumed at step {step}; final loss {losses[-1]!r} after step {args.steps}")
        return losses[-1]

    if args.stop_after is not None:  # first half of a two-process run
        model, optimizer = make(args, init_seed=args.seed)
        noise_rng = np.random.default_rng(args.seed)
        losses = train(model, optimizer, x, y, args, 0, args.stop_after, noise_rng)
        save_checkpoint(args.checkpoint, model, optimizer, args.stop_after, noise_rng, args.format)
        print(f"stopped after step {args.stop_after} (loss {losses[-1]:.4f}); saved {args.checkpoint}")
        return losses[-1]

    # Everything in one process: an uninterrupted run, then a stopped-and-resumed one.
    stop = args.steps // 2
    model, optimizer = make(args, init_seed=args.seed)
    straight = train(model, optimizer, x, y, args, 0, args.steps, np.random.default_rng(args.seed))

    model, optimizer = make(args, init_seed=args.seed)
    noise_rng = np.random.default_rng(args.seed)
    first = train(model, optimizer, x, y, args, 0, stop, noise_rng)
    save_checkpoint(args.checkpoint, model, optimizer, stop, noise_rng, args.format)
    del model, optimizer, noise_rng  # nothing survives but the file

    model, optimizer = make(args, init_seed=12345)
    step, noise_rng = load_checkpoint(args.checkpoint, model, optimizer)
    second = train(model, optimizer, x, y, args, step, args.steps, noise_rng)
    resumed = first + second
    print(f"{args.optimizer}: uninterrupted run, loss after step {args.steps}: {straight[-1]!r}")
    print(f"{args.optimizer}: stopped at {stop}, resumed,  loss after step {args.steps}: {resumed[-1]!r}")
    same = straight == resumed
    print("identical losses at every step" if same else "the runs DIFFER")
    return straight, resumed


if __name__ == "__main__":
    out = main()
    if isinstance(out, tuple) and out[0] != out[1]:
        sys.exit(1)
