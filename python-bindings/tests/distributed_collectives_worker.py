"""One rank of test_distributed_collectives.py (started under the MPI launcher with 2 or 3 ranks):
every collective of torch.distributed with its documented result on this rank, checked here.
Prints "collectives ok on rank <r> of <world>" when every check held."""
import numpy as np

import glassgrad as gg
import glassgrad.distributed as dist

dist.init_process_group("mpi", timeout=60.0)
rank, world = dist.get_rank(), dist.get_world_size()
ranks = np.arange(world)


def same(t, expected):
    got = t.numpy() if isinstance(t, gg.Tensor) else t
    np.testing.assert_array_equal(got, np.asarray(expected))


# all_reduce, in place, every op; integers and bools exact; a view writes through to its base
for op, fn in ((dist.ReduceOp.SUM, np.sum), (dist.ReduceOp.PRODUCT, np.prod), (dist.ReduceOp.MIN, np.min),
               (dist.ReduceOp.MAX, np.max)):
    t = gg.tensor([rank + 1.5, -(rank + 2.0)])
    assert dist.all_reduce(t, op=op) is None
    same(t, [fn(ranks + 1.5), fn(-(ranks + 2.0))])
t = gg.tensor([2.0 * rank, 1.0])
dist.all_reduce(t, dist.ReduceOp.AVG)
same(t, [np.mean(2.0 * ranks), 1.0])
i = gg.tensor([rank + 5, 2 ** 40 + rank])
dist.all_reduce(i)
same(i, [np.sum(ranks + 5), world * 2 ** 40 + ranks.sum()])
assert i.dtype == gg.int64
for op, fn in ((dist.ReduceOp.BAND, np.bitwise_and), (dist.ReduceOp.BOR, np.bitwise_or),
               (dist.ReduceOp.BXOR, np.bitwise_xor)):
    b = gg.tensor([rank + 3, 12])
    dist.all_reduce(b, op)
    same(b, [fn.reduce(ranks + 3), fn.reduce(np.full(world, 12))])
base = gg.zeros(2, 3)
view = base[1]
view.fill_(rank + 1.0)
dist.all_reduce(view)
same(base, [[0, 0, 0], [ranks.sum() + world] * 3])
work = dist.all_reduce(gg.ones(1), async_op=True)
assert work.wait() and work.is_completed()

# reduce: only dst holds the result
t = gg.tensor([float(rank)])
dist.reduce(t, dst=world - 1, op=dist.ReduceOp.SUM)
same(t, [ranks.sum()] if rank == world - 1 else [rank])

# broadcast from the last rank, every dtype bit for bit
for value in (np.array([[rank + 0.1, -rank]], np.float32), np.array([rank, 7], np.int64),
              np.array([rank % 2 == 0, True]), np.array([np.pi * (rank + 1)], np.float64)):
    t = gg.tensor(value)
    dist.broadcast(t, src=world - 1)
    want = value if rank == world - 1 else {np.dtype(np.float32): np.array([[world - 1 + 0.1, -(world - 1)]], np.float32),
                                            np.dtype(np.int64): np.array([world - 1, 7]),
                                            np.dtype(bool): np.array([(world - 1) % 2 == 0, True]),
                                            np.dtype(np.float64): np.array([np.pi * world])}[value.dtype]
    same(t, want)

# all_gather into a list (also views of one tensor), all_gather_into_tensor in both layouts
mine = gg.tensor([[rank, rank * 10.0]])
out = [gg.zeros(1, 2) for _ in ranks]
dist.all_gather(out, mine)
for r in ranks:
    same(out[r], [[r, r * 10.0]])
whole = gg.zeros(world, 1, 2)
dist.all_gather(list(whole.unbind(0)), mine)
same(whole, [[[r, r * 10.0]] for r in ranks])
flat = gg.zeros(world, 2)
dist.all_gather_into_tensor(flat, mine)
same(flat, [[r, r * 10.0] for r in ranks])
stacked = gg.zeros(world, 1, 2)
dist.all_gather_into_tensor(stacked, mine)
same(stacked, [[[r, r * 10.0]] for r in ranks])

# gather to rank 0, scatter from rank 1
g = [gg.zeros(2) for _ in ranks] if rank == 0 else None
dist.gather(gg.tensor([rank, -rank]), g, dst=0)
if rank == 0:
    for r in ranks:
        same(g[r], [r, -r])
s = gg.zeros(3)
dist.scatter(s, [gg.full((3,), 100.0 + r) for r in ranks] if rank == 1 else None, src=1)
same(s, [100.0 + rank] * 3)

# reduce_scatter and reduce_scatter_tensor: rank i gets the sum of every rank's chunk i
piece = gg.zeros(2)
dist.reduce_scatter(piece, [gg.tensor([rank + j, 1.0]) for j in ranks])
same(piece, [(ranks + rank).sum(), world])
piece = gg.zeros(2)
dist.reduce_scatter_tensor(piece, gg.tensor([[rank * 1.0, j * 1.0] for j in ranks]), op=dist.ReduceOp.MAX)
same(piece, [world - 1, rank])

# all_to_all: rank j's output[i] is rank i's input[j]; all_to_all_single with uneven splits
outs = [gg.zeros(2) for _ in ranks]
dist.all_to_all(outs, [gg.tensor([rank * 10.0 + j, -1.0]) for j in ranks])
for r in ranks:
    same(outs[r], [r * 10.0 + rank, -1.0])
sizes = [r + 1 for r in ranks]  # rank i sends r + 1 rows to rank r
inp = gg.tensor(np.concatenate([np.full((r + 1, 2), rank * 100 + r) for r in ranks]).astype(np.float32))
got = gg.zeros((rank + 1) * world, 2)
dist.all_to_all_single(got, inp, output_split_sizes=[rank + 1] * world, input_split_sizes=sizes)
same(got, np.concatenate([np.full((rank + 1, 2), r * 100 + rank) for r in ranks]))

# point to point: 0 -> 1 blocking; a ring with isend/irecv and with batch_isend_irecv
if rank == 0:
    dist.send(gg.tensor([3.0, 4.0]), dst=1)
elif rank == 1:
    box = gg.zeros(2)
    assert dist.recv(box, src=0) == 0
    same(box, [3.0, 4.0])
right, left = (rank + 1) % world, (rank - 1) % world
box = gg.zeros(1, dtype=gg.int64)
sent = dist.isend(gg.tensor([rank * 7]), dst=right)
got = dist.irecv(box, src=left)
sent.wait()
got.wait()
same(box, [left * 7])
box = gg.zeros(2)
works = dist.batch_isend_irecv([dist.P2POp(dist.isend, gg.tensor([rank, 1.0]), right),
                                dist.P2POp(dist.irecv, box, left)])
for w in works:
    w.wait()
same(box, [left, 1.0])

# objects, pickled: any value, tensors included
objs = [None] * world
dist.all_gather_object(objs, {"rank": rank, "t": gg.tensor([rank * 1.0])})
assert [o["rank"] for o in objs] == list(ranks) and [float(o["t"][0]) for o in objs] == list(ranks)
lst = ["mine", rank] if rank == 0 else [None, None]
dist.broadcast_object_list(lst, src=0)
assert lst == ["mine", 0]
gathered = [None] * world if rank == world - 1 else None
dist.gather_object(("from", rank), gathered, dst=world - 1)
if rank == world - 1:
    assert gathered == [("from", r) for r in ranks]
one = [None]
dist.scatter_object_list(one, [{"for": r} for r in ranks] if rank == 0 else None, src=0)
assert one == [{"for": rank}]

# groups, barriers, errors
assert dist.get_process_group_ranks(dist.group.WORLD) == list(ranks)
assert dist.new_group(list(ranks)) is dist.group.WORLD
dist.barrier()
dist.monitored_barrier()
try:
    dist.all_gather([gg.zeros(2)] * (world + 1), gg.zeros(2))
    raise AssertionError("a list of world_size + 1 tensors was taken")
except ValueError as e:
    assert "world_size" in str(e)
try:
    dist.new_group([0])
    raise AssertionError("a subgroup was made")
except gg.UnsupportedError:
    pass
dist.barrier()
print(f"collectives ok on rank {rank} of {world}", flush=True)
dist.destroy_process_group()
