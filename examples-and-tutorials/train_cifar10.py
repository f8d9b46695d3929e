"""Train ResNet-18 (CIFAR variant) on CIFAR-10 with glassgrad, at batch size 32.

The data: the "python version" of CIFAR-10 (cifar-10-python.tar.gz from the CIFAR-10 page,
extracted); glassgrad never downloads it. --data is the cifar-10-batches-py directory or the one
holding it. Training images get the standard augmentation (random 32x32 crop of the image
padded by 4, random horizontal flip) and are normalized with the data set's channel means and
standard deviations. SGD with Nesterov momentum 0.9, weight decay 5e-4 and a cosine learning
rate over all steps.

    python examples-and-tutorials/train_cifar10.py --data ~/data/cifar-10-batches-py      # full run
    python examples-and-tutorials/train_cifar10.py --data DIR --checkpoint ck.gg --resume  # go on
    python examples-and-tutorials/train_cifar10.py --data DIR --epochs 1 --limit 256 \\
        --test-limit 64 --width 8 --device cpu                                           # quick (CI)

--width scales every layer (64 is the real ResNet-18: 11.2 M parameters; 8 has 1/64 of them).
--checkpoint saves model, optimizer and data-order state after every epoch (atomically, so an
interrupted run never leaves a broken file); with --resume the run continues from it.
"""
import argparse
import math
import os
import sys
import time


import glassgrad as gg

try:
    from tqdm import tqdm
except ImportError:  # the bar is a nicety
    tqdm = None


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="Train ResNet-18 (CIFAR variant) on CIFAR-10 with glassgrad.")
    p.add_argument("--data", required=True, help="cifar-10-batches-py directory (or the directory holding it)")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.025, help="peak learning rate (0.1 at batch 128, scaled to 32)")
    p.add_argument("--weight-decay", type=float, default=5e-4)
    p.add_argument("--width", type=int, default=64, help="channels of the first stage (64 = ResNet-18)")
    p.add_argument("--limit", type=int, default=0, help="use only the first N training images (quick runs)")
    p.add_argument("--test-limit", type=int, default=0, help="evaluate on the first N test images only")
    p.add_argument("--eval-batch-size", type=int, default=250)
    p.add_argument("--compile", action="store_true",
                   help="glassgrad.compile the training step (replays its plans without re-tracing)")
    p.add_argument("--checkpoint", default=None, help="save model + optimizer here after every epoch")
    p.add_argument("--resume", action="store_true", help="continue from --checkpoint if it exists")
    p.add_argument("--device", default=None, help="cpu or cuda (default: the GPU when one is usable)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--distributed", action="store_true",
                   help="data-parallel over the ranks of python -m glassgrad.distributed.run --nproc-per-node N "
                        "(each rank trains on its share; --batch-size is per rank)")
    p.add_argument("--sync-bn", action="store_true", help="with --distributed: BatchNorm over the global batch")
    return p.parse_args(argv)


def normalize(x_uint8):
    return gg.data.to_float(x_uint8, gg.data.CIFAR10_MEAN, gg.data.CIFAR10_STD)


def evaluate(model, x, y, batch):
    """Top-1 accuracy in eval mode (BatchNorm uses its running statistics)."""
    model.eval()
    correct = 0
    with gg.no_grad():
        for i in range(0, len(x), batch):
            logits = model(gg.tensor(normalize(x[i:i + batch])))
            correct += int((logits.argmax(dim=1).cpu().numpy() == y[i:i + batch]).sum())
    model.train()
    return correct / max(1, len(x))


def main(argv=None):
    args = parse_args(argv)
    if args.device:
        gg.set_default_device(args.device)
    gg.manual_seed(args.seed)
    if args.distributed:
        import glassgrad.distributed as dist
        dist.init_process_group()  # NCCL on GPUs (cuda:<local rank>), MPI on the CPU
        if dist.get_rank() != 0:
            args.no_progress, args.checkpoint = True, None  # rank 0 reports and saves
            global print
            print = dist.print0
    device = gg.default_device()
    try:
        ds = gg.data.load_cifar10(args.data)
    except gg.data.DatasetNotFoundError as e:
        sys.exit(f"train_cifar10.py: no CIFAR-10 data.\n{e}")
    x_train, y_train = ds.x_train, ds.y_train
    x_test, y_test = ds.x_test, ds.y_test
    if args.limit:
        x_train, y_train = x_train[:args.limit], y_train[:args.limit]
    if args.test_limit:
        x_test, y_test = x_test[:args.test_limit], y_test[:args.test_limit]
    if args.distributed:  # this rank's share; its loader shuffles the share every epoch
        shard = list(dist.DistributedSampler(x_train, shuffle=False, drop_last=True))
        x_train, y_train = x_train[shard], y_train[shard]

    # --8<-- [start:setup]
    model = gg.models.ResNet18(num_classes=10, width=args.width)
    optimizer = gg.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=args.weight_decay,
                       nesterov=True)
    loader = gg.data.DataLoader(x_train, y_train, batch_size=args.batch_size, shuffle=True, seed=args.seed,
                                drop_last=True, transform=gg.data.augment_cifar)  # crop + flip, per batch
    # --8<-- [end:setup]
    n_params = sum(p.numel() for p in model.parameters())
    print(f"glassgrad {gg.__version__} on {device}: ResNet-18 width {args.width} ({n_params / 1e6:.2f} M parameters), "
          f"{len(x_train)} training / {len(x_test)} test images, batch {args.batch_size}")
    if len(loader) == 0:
        sys.exit(f"train_cifar10.py: {len(x_train)} training images make no full batch of {args.batch_size}")

    if args.distributed:
        if args.sync_bn:
            model = dist.convert_sync_batchnorm(model)
        model = dist.DistributedDataParallel(model)  # rank 0's weights everywhere; gradients averaged
    start_epoch = 0
    if args.resume and args.checkpoint and os.path.exists(args.checkpoint):
        ckpt = gg.load(args.checkpoint)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        loader.rng.bit_generator.state = ckpt["loader_rng"]
        start_epoch = ckpt["epoch"]
        print(f"resumed from {args.checkpoint} after epoch {start_epoch}")

    # --8<-- [start:step]
    def train_step(x, y):
        logits = model(x)
        loss = gg.cross_entropy(logits, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        return loss, logits.argmax(dim=1)

    step_fn = gg.compile(train_step) if args.compile else train_step
    total_steps = args.epochs * len(loader)
    for epoch in range(start_epoch, args.epochs):
        model.train()
        start, seen, loss_sum, correct = time.perf_counter(), 0, 0.0, 0
        batches = loader if (tqdm is None or args.no_progress) else tqdm(
            loader, desc=f"epoch {epoch + 1}", unit="batch", leave=False, file=sys.stdout)
        for b, (xb, yb) in enumerate(batches):
            step = epoch * len(loader) + b  # cosine decay; lr is data, so this never recompiles
            optimizer.lr = args.lr * 0.5 * (1.0 + math.cos(math.pi * step / total_steps))
            loss, pred = step_fn(gg.tensor(normalize(xb)), gg.tensor(yb))
            loss_sum += loss.item() * len(yb)
            correct += int((pred.cpu().numpy() == yb).sum())
            seen += len(yb)
        # --8<-- [end:step]
        seconds = time.perf_counter() - start
        test_acc = evaluate(model, x_test, y_test, args.eval_batch_size)
        print(f"epoch {epoch + 1}/{args.epochs}: loss {loss_sum / seen:.4f}, train accuracy {correct / seen:.4f}, "
              f"test accuracy {test_acc:.4f}, {seconds:.1f} s ({seen / seconds:.0f} images/s)", flush=True)
        if args.checkpoint:
            gg.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch + 1,
                     "loader_rng": loader.rng.bit_generator.state}, args.checkpoint)
    mem = gg.memory_stats(device)
    stats = gg.cache_stats()
    print(f"peak memory on {device}: {mem['peak'] / 2**20:.1f} MiB; plan cache: {stats['compiles']} compiles, "
          f"{stats['hits']} hits")


if __name__ == "__main__":
    main()
