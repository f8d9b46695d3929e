"""One rank of the data-parallel tests (test_distributed.py starts it under the launcher).

grad:  DDP's averaged gradient over the ranks vs one process's gradient of the concatenated
       batch, after a no_sync accumulation step too; then 3 SGD steps' losses vs a single-process
       run with the global batch. Prints "max_grad_diff <x>" and "max_loss_diff <x>" on rank 0.
syncbn: a conv + SyncBatchNorm model's gradients and running statistics vs BatchNorm's on the
       concatenated batch (2-d images, and 3-d volumes through nn.SyncBatchNorm). Prints "max_grad_diff <x>" and "max_stat_diff <x>" on rank 0.
raise: rank 1 raises at its second step; the others must not hang.
hang:  rank 1 stops answering (sleeps) at its second step; the watchdog must end the job.
nccl:  on GPUs (backend nccl, cuda:<local rank>): the grad checks above, then 6 SGD steps (so the
       whole-step CUDA graph is captured with the all-reduces inside) against one process."""
import sys

import numpy as np

import glassgrad as gg
import glassgrad.distributed as dist

mode = sys.argv[1]
dist.init_process_group("nccl" if mode == "nccl" else "mpi", timeout=float(sys.argv[2]) if len(sys.argv) > 2 else 60.0)
rank, world = dist.get_rank(), dist.get_world_size()
rng = np.random.default_rng(7)
per_rank = 6
X = rng.standard_normal((per_rank * world, 5)).astype(np.float32)
Y = rng.integers(0, 3, per_rank * world)


def model():
    np.random.seed(100 + rank)  # different on every rank: DDP must broadcast rank 0's
    return gg.nn.Sequential(gg.nn.Linear(5, 16), gg.nn.Tanh(), gg.nn.Linear(16, 3))


def loss_of(m, x, y):
    return gg.nn.functional.cross_entropy(m(gg.tensor(x, device=dist.device())), gg.tensor(y, device=dist.device()))


m = model()
ddp = dist.DistributedDataParallel(m, bucket_cap_mb=0.0005)  # several buckets
ref = model()
ref.load_state_dict(m.state_dict())
mine = slice(rank * per_rank, (rank + 1) * per_rank)

if mode == "syncbn":
    def bn_model():
        gg.manual_seed(5)
        return gg.nn.Sequential(gg.nn.Conv2d(2, 4, 3), gg.nn.BatchNorm2d(4), gg.nn.ReLU(), gg.nn.Flatten(),
                                gg.nn.Linear(4 * 4 * 4, 3))
    imgs = rng.standard_normal((per_rank * world, 2, 6, 6)).astype(np.float32)
    sync_model = dist.convert_sync_batchnorm(bn_model())
    net = dist.DistributedDataParallel(sync_model)
    loss_of(net, imgs[mine], Y[mine]).backward()
    plain = bn_model()
    loss_of(plain, imgs, Y).backward()
    diff = max(float(np.abs(a.grad.numpy() - b.grad.numpy()).max())
               for a, b in zip(sync_model.parameters(), plain.parameters()))
    stats = max(float(np.abs(a - b).max()) for (k, a), (_, b) in zip(sync_model.state_dict().items(),
                                                                     plain.state_dict().items()) if "running" in k)

    def bn3d_model():  # 5-D input, converted through nn.SyncBatchNorm's classmethod
        gg.manual_seed(6)
        return gg.nn.Sequential(gg.nn.Conv3d(2, 3, 2), gg.nn.BatchNorm3d(3), gg.nn.Flatten(),
                                gg.nn.Linear(3 * 2 * 2 * 2, 3))
    vols = rng.standard_normal((per_rank * world, 2, 3, 3, 3)).astype(np.float32)
    sync3d = gg.nn.SyncBatchNorm.convert_sync_batchnorm(bn3d_model())
    loss_of(dist.DistributedDataParallel(sync3d), vols[mine], Y[mine]).backward()
    plain3d = bn3d_model()
    loss_of(plain3d, vols, Y).backward()
    diff = max([diff] + [float(np.abs(a.grad.numpy() - b.grad.numpy()).max())
                         for a, b in zip(sync3d.parameters(), plain3d.parameters())])
    stats = max([stats] + [float(np.abs(a - b).max()) for (k, a), (_, b) in zip(sync3d.state_dict().items(),
                                                                                plain3d.state_dict().items())
                           if "running" in k])
    if rank == 0:
        print("max_grad_diff", diff)
        print("max_stat_diff", stats)
    sys.exit(0)

if mode in ("raise", "hang"):
    import time
    opt = gg.SGD(m.parameters(), lr=0.1)
    for step in range(5):
        if rank == 1 and step == 2:
            if mode == "hang":
                time.sleep(600)
            raise RuntimeError("rank 1 fails on purpose")
        opt.zero_grad()
        loss_of(ddp, X[mine], Y[mine]).backward()
        opt.step()
    sys.exit(0)

# Gradient of one step, and of two accumulated micro-batches (no_sync on the first).
loss_of(ddp, X[mine], Y[mine]).backward()
got = [p.grad.numpy() for p in m.parameters()]
loss_of(ref, X, Y).backward()
want = [p.grad.numpy() for p in ref.parameters()]
diff = max(float(np.abs(a - b).max()) for a, b in zip(got, want))
for p in list(m.parameters()) + list(ref.parameters()):
    p.grad = None
half = slice(rank * per_rank, rank * per_rank + per_rank // 2)
rest = slice(rank * per_rank + per_rank // 2, (rank + 1) * per_rank)
with ddp.no_sync():
    loss_of(ddp, X[half], Y[half]).backward()
local = [p.grad.numpy().copy() for p in m.parameters()]
loss_of(ddp, X[rest], Y[rest]).backward()
acc = [p.grad.numpy() for p in m.parameters()]
# Each micro-batch loss is a mean over per_rank/2 rows: the sum of the two is twice the
# full-batch mean's gradient, averaged over ranks.
diff = max(diff, max(float(np.abs(a - 2 * b).max()) for a, b in zip(acc, want)))
assert any(float(np.abs(a - b).max()) > 1e-9 for a, b in zip(local, acc)), "no_sync step was already reduced"
for p in list(m.parameters()) + list(ref.parameters()):
    p.grad = None

opt, ref_opt = gg.SGD(m.parameters(), lr=0.5), gg.SGD(ref.parameters(), lr=0.5)
losses, ref_losses = [], []
for step in range(6 if mode == "nccl" else 3):
    opt.zero_grad()
    loss = loss_of(ddp, X[mine], Y[mine])
    loss.backward()
    opt.step()
    mean_loss = loss.detach().clone()
    dist.all_reduce(mean_loss, dist.ReduceOp.AVG)
    losses.append(mean_loss.item())
    ref_opt.zero_grad()
    rl = loss_of(ref, X, Y)
    rl.backward()
    ref_opt.step()
    ref_losses.append(rl.item())
if rank == 0:
    print("max_grad_diff", diff)
    print("max_loss_diff", max(abs(a - b) for a, b in zip(losses, ref_losses)))
    print("losses", losses)
