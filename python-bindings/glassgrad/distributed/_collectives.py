"""torch.distributed's tensor collectives with PyTorch's signatures and in-place semantics
(docs/distributed.md, "Collectives"): all_reduce, broadcast, reduce, all_gather,
all_gather_into_tensor, gather, scatter, reduce_scatter, reduce_scatter_tensor, all_to_all,
all_to_all_single, send/recv/isend/irecv, batch_isend_irecv, barrier, monitored_barrier.

all_reduce with SUM or AVG of a floating tensor runs the graph's AllReduce node, whose result is
written back into the tensor. Each call computes its result before it returns, on every rank, as
PyTorch's do: a collective left pending in the lazy graph would run only on the ranks that read
its result, and the others' would never meet it. Every other collective
is built from the communicator's broadcast, which moves bytes exactly, whatever the dtype: an
exchange broadcasts each rank's (dtype, shape) header and then its data, so every rank holds
every rank's array, and the reduction is then computed on each rank in NumPy (the same result on
every rank). That costs world_size broadcasts a call: right for metrics, object lists and setup;
the step's gradients go through DistributedDataParallel's AllReduce nodes."""
from __future__ import annotations

import json
from typing import Any, List, Optional, Sequence

import numpy as np

from .. import _C
from .._runtime import no_grad, realize
from .._tensor import Tensor, tensor
from . import _group, _ops
from ._types import RedOpType, Work, as_red_op

_HEADER = 256  # bytes of an exchange's (dtype, shape) header


def _world(group: Any, where: str) -> "_group._Group":
    """The process group a collective runs on: the default one (group None or group.WORLD)."""
    g = _group._require()
    if group is not None and group is not _group.world_handle():
        raise _C.UnsupportedError(f"glassgrad.distributed.{where}: only the default group (group=None or "
                                  f"group.WORLD) is supported, got {group!r}\n  fix: leave out group=")
    return g


def _rank_arg(value: Optional[int], group_value: Optional[int], where: str, name: str, g) -> int:
    """src/dst (or group_src/group_dst: the same ranks in the one group), checked."""
    if value is not None and group_value is not None:
        raise ValueError(f"Can not specify both {name} and group_{name}")
    r = value if value is not None else (group_value if group_value is not None else 0)
    if not 0 <= int(r) < g.world_size:
        raise ValueError(f"glassgrad.distributed.{where}: {name}={r} is not a rank of the group of "
                         f"{g.world_size} (0..{g.world_size - 1})")
    return int(r)


def _array(t: Tensor) -> np.ndarray:
    return np.ascontiguousarray(t.detach().numpy(force=True))


def _write(t: Tensor, value: Any) -> None:
    """value into t in place (a view writes through to its base), outside autograd, as c10d's
    collectives write the tensors they are given."""
    with no_grad():
        t.copy_(value if isinstance(value, Tensor) else tensor(np.asarray(value), dtype=t.dtype, device=t.device))


def _broadcast_array(arr: np.ndarray, src: int, g) -> np.ndarray:
    """Rank src's array (of this rank's shape and dtype) on every rank, bit for bit."""
    flat = np.ascontiguousarray(arr).reshape(-1).view(np.uint8)
    if g.world_size == 1 or flat.size == 0:
        return arr
    raw = _C.Tensor.from_numpy(flat, g.device)
    on_gpu = g.device.startswith("cuda")
    if on_gpu:  # the broadcast is ordered on the legacy default stream (communicator_broadcast)
        from .. import cuda
        cuda.synchronize(g.device)
    _C.communicator_broadcast(g.gid, raw, src)
    if on_gpu:
        cuda.synchronize(g.device)
    return np.asarray(raw.numpy()).view(arr.dtype).reshape(arr.shape)


def exchange(arr: Optional[np.ndarray], g, senders: Optional[Sequence[int]] = None) -> List[Optional[np.ndarray]]:
    """Every sender's array on every rank (arrays of any dtype and shape; senders default to all
    ranks; a rank that is not a sender passes None and gets None in its place)."""
    senders = range(g.world_size) if senders is None else senders
    out: List[Optional[np.ndarray]] = [None] * g.world_size
    for r in senders:
        mine = r == g.rank
        header: np.ndarray = np.zeros(_HEADER, np.uint8)
        if mine:
            assert arr is not None
            text = json.dumps([np.lib.format.dtype_to_descr(arr.dtype), list(arr.shape)]).encode()
            header[:len(text)] = np.frombuffer(text, np.uint8)
        header = _broadcast_array(header, r, g)
        descr, shape = json.loads(bytes(header).rstrip(b"\0").decode())
        dtype = np.lib.format.descr_to_dtype(descr)
        payload = np.ascontiguousarray(arr) if mine else np.empty(shape, dtype)
        out[r] = _broadcast_array(payload, r, g).copy()
    return out


def _reduce_arrays(arrays: List[np.ndarray], op: RedOpType, where: str) -> np.ndarray:
    stacked = np.stack(arrays)
    dtype = arrays[0].dtype
    if op in (RedOpType.BAND, RedOpType.BOR, RedOpType.BXOR):
        if dtype.kind not in "biu":
            raise _C.DTypeError(f"glassgrad.distributed.{where}: ReduceOp.{op.name} needs an integer or bool "
                                f"tensor, got {dtype}\n  fix: use SUM/MIN/MAX for floating tensors")
        fn = {RedOpType.BAND: np.bitwise_and, RedOpType.BOR: np.bitwise_or, RedOpType.BXOR: np.bitwise_xor}[op]
        return fn.reduce(stacked, axis=0).astype(dtype)
    if op == RedOpType.SUM:
        return stacked.sum(axis=0, dtype=dtype) if dtype.kind != "b" else stacked.any(axis=0)
    if op == RedOpType.PRODUCT:
        return stacked.prod(axis=0, dtype=dtype) if dtype.kind != "b" else stacked.all(axis=0)
    if op == RedOpType.MIN:
        return stacked.min(axis=0)
    if op == RedOpType.MAX:
        return stacked.max(axis=0)
    # AVG: integers truncate toward zero, as NCCL's average of integer tensors
    total = stacked.sum(axis=0, dtype=np.float64 if dtype.kind == "f" else np.int64)
    if dtype.kind == "f":
        return (total / len(arrays)).astype(dtype)
    return np.trunc(total / len(arrays)).astype(dtype)


def _reduced(t: Tensor, op: RedOpType, g, where: str):
    """The reduction of t over the ranks: a lazy AllReduce for SUM/AVG of floating tensors (the
    graph's node), otherwise a NumPy array from an exchange."""
    if op in (RedOpType.SUM, RedOpType.AVG) and t.is_floating_point() and g.world_size > 1:
        value = _ops.all_reduce(t.detach(), "sum" if op == RedOpType.SUM else "average")
        realize(value)  # now, on every rank (the module's docstring)
        return value
    if g.world_size == 1:
        return None  # one rank: the reduction is the tensor itself
    return _reduce_arrays(exchange(_array(t), g), op, where)  # type: ignore[arg-type]


def _done(async_op: bool, result=None):
    return Work(result) if async_op else None


def all_reduce(tensor: Tensor, op=RedOpType.SUM, group=None, async_op: bool = False):
    """torch.distributed.all_reduce: tensor becomes the reduction (op) of every rank's tensor, in
    place on every rank; returns None (a completed Work with async_op=True)."""
    g = _world(group, "all_reduce")
    value = _reduced(tensor, as_red_op(op, "all_reduce"), g, "all_reduce")
    if value is not None:
        _write(tensor, value)
    return _done(async_op, [tensor])


def reduce(tensor: Tensor, dst: Optional[int] = None, op=RedOpType.SUM, group=None, async_op: bool = False,
           group_dst: Optional[int] = None):
    """torch.distributed.reduce: rank dst's tensor becomes the reduction of every rank's; the other
    ranks' tensors keep their values."""
    g = _world(group, "reduce")
    dst_ = _rank_arg(dst, group_dst, "reduce", "dst", g)
    value = _reduced(tensor, as_red_op(op, "reduce"), g, "reduce")
    if value is not None and g.rank == dst_:
        _write(tensor, value)
    return _done(async_op, [tensor])


def broadcast(tensor: Tensor, src: Optional[int] = None, group=None, async_op: bool = False,
              group_src: Optional[int] = None):
    """torch.distributed.broadcast: every rank's tensor becomes rank src's, in place."""
    g = _world(group, "broadcast")
    src_ = _rank_arg(src, group_src, "broadcast", "src", g)
    got = _broadcast_array(_array(tensor), src_, g)
    if g.rank != src_:
        _write(tensor, got)
    return _done(async_op, [tensor])


def _check_list(tensors: Any, g, where: str, name: str) -> None:
    if not isinstance(tensors, (list, tuple)) or len(tensors) != g.world_size:
        n = len(tensors) if isinstance(tensors, (list, tuple)) else type(tensors).__name__
        raise ValueError(f"glassgrad.distributed.{where}: {name} must be a list of world_size = {g.world_size} "
                         f"tensors, got {n}\n  fix: {name} = [torch.empty_like(t) for _ in range(world_size)]")


def _fill(target: Tensor, arr: np.ndarray, where: str) -> None:
    if tuple(target.shape) != tuple(arr.shape):
        raise _C.ShapeError(f"glassgrad.distributed.{where}: a tensor of shape {list(target.shape)} cannot hold a "
                            f"rank's tensor of shape {list(arr.shape)}\n  fix: every rank passes tensors of one "
                            f"shape; size the output tensors like the input")
    _write(target, arr)


def all_gather(tensor_list: List[Tensor], tensor: Tensor, group=None, async_op: bool = False):
    """torch.distributed.all_gather: tensor_list[i] becomes rank i's tensor, on every rank."""
    g = _world(group, "all_gather")
    _check_list(tensor_list, g, "all_gather", "tensor_list")
    for target, arr in zip(tensor_list, exchange(_array(tensor), g)):
        _fill(target, arr, "all_gather")  # type: ignore[arg-type]
    return _done(async_op, list(tensor_list))


def all_gather_into_tensor(output_tensor: Tensor, input_tensor: Tensor, group=None, async_op: bool = False):
    """torch.distributed.all_gather_into_tensor: output (world_size * n rows, or [world_size, ...])
    holds every rank's input, rank by rank."""
    g = _world(group, "all_gather_into_tensor")
    if output_tensor.numel() != g.world_size * input_tensor.numel():
        raise ValueError(f"glassgrad.distributed.all_gather_into_tensor: the output must have world_size = "
                         f"{g.world_size} times the input's elements ({list(input_tensor.shape)}), got "
                         f"{list(output_tensor.shape)}\n  fix: torch.empty(world_size * n, ...) or "
                         f"torch.empty(world_size, *input.shape)")
    arrays = exchange(_array(input_tensor), g)
    _write(output_tensor, np.concatenate([a.reshape(-1) for a in arrays]).reshape(tuple(output_tensor.shape)))  # type: ignore[union-attr]
    return _done(async_op, [output_tensor])


def gather(tensor: Tensor, gather_list: Optional[List[Tensor]] = None, dst: Optional[int] = None, group=None,
           async_op: bool = False, group_dst: Optional[int] = None):
    """torch.distributed.gather: on rank dst, gather_list[i] becomes rank i's tensor; the other
    ranks pass no gather_list."""
    g = _world(group, "gather")
    dst_ = _rank_arg(dst, group_dst, "gather", "dst", g)
    if g.rank == dst_:
        _check_list(gather_list, g, "gather", "gather_list")
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    arrays = exchange(_array(tensor), g)
    if g.rank == dst_:
        for target, arr in zip(gather_list, arrays):  # type: ignore[arg-type]
            _fill(target, arr, "gather")  # type: ignore[arg-type]
    return _done(async_op, list(gather_list or []))


def scatter(tensor: Tensor, scatter_list: Optional[List[Tensor]] = None, src: Optional[int] = None, group=None,
            async_op: bool = False, group_src: Optional[int] = None):
    """torch.distributed.scatter: rank i's tensor becomes scatter_list[i] of rank src."""
    g = _world(group, "scatter")
    src_ = _rank_arg(src, group_src, "scatter", "src", g)
    if g.rank == src_:
        _check_list(scatter_list, g, "scatter", "scatter_list")
        parts = [_array(t) for t in scatter_list]  # type: ignore[union-attr]
        for p in parts:
            if p.shape != tuple(tensor.shape):
                raise _C.ShapeError(f"glassgrad.distributed.scatter: scatter_list holds a tensor of shape "
                                    f"{list(p.shape)} for an output of shape {list(tensor.shape)}\n  fix: every "
                                    f"entry of scatter_list has the output tensor's shape")
        stacked = np.stack(parts).astype(_array(tensor).dtype, copy=False)
    else:
        if scatter_list:
            raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
        stacked = np.empty((g.world_size,) + tuple(tensor.shape), _array(tensor).dtype)
    _write(tensor, _broadcast_array(stacked, src_, g)[g.rank])
    return _done(async_op, [tensor])


def reduce_scatter(output: Tensor, input_list: List[Tensor], op=RedOpType.SUM, group=None, async_op: bool = False):
    """torch.distributed.reduce_scatter: rank i's output becomes the reduction over the ranks of
    their input_list[i]."""
    g = _world(group, "reduce_scatter")
    _check_list(input_list, g, "reduce_scatter", "input_list")
    red = as_red_op(op, "reduce_scatter")
    mine = np.stack([_array(t) for t in input_list])
    _fill(output, _reduce_arrays(exchange(mine, g), red, "reduce_scatter")[g.rank], "reduce_scatter")  # type: ignore[arg-type]
    return _done(async_op, [output])


def reduce_scatter_tensor(output: Tensor, input: Tensor, op=RedOpType.SUM, group=None, async_op: bool = False):
    """torch.distributed.reduce_scatter_tensor: input holds world_size chunks of output's size (rows
    or a leading world_size dimension); rank i's output is the reduction of chunk i."""
    g = _world(group, "reduce_scatter_tensor")
    if input.numel() != g.world_size * output.numel():
        raise ValueError(f"glassgrad.distributed.reduce_scatter_tensor: the input must have world_size = "
                         f"{g.world_size} times the output's elements ({list(output.shape)}), got "
                         f"{list(input.shape)}")
    red = as_red_op(op, "reduce_scatter_tensor")
    chunks = _array(input).reshape((g.world_size,) + tuple(output.shape))
    _write(output, _reduce_arrays(exchange(chunks, g), red, "reduce_scatter_tensor")[g.rank])  # type: ignore[arg-type]
    return _done(async_op, [output])


def all_to_all(output_tensor_list: List[Tensor], input_tensor_list: List[Tensor], group=None,
               async_op: bool = False):
    """torch.distributed.all_to_all: rank j's output_tensor_list[i] becomes rank i's
    input_tensor_list[j]."""
    g = _world(group, "all_to_all")
    _check_list(output_tensor_list, g, "all_to_all", "output_tensor_list")
    _check_list(input_tensor_list, g, "all_to_all", "input_tensor_list")
    for j in range(g.world_size):
        arrays = exchange(_array(input_tensor_list[j]), g)
        if j == g.rank:
            for target, arr in zip(output_tensor_list, arrays):
                _fill(target, arr, "all_to_all")  # type: ignore[arg-type]
    return _done(async_op, list(output_tensor_list))


def _splits(sizes: Optional[List[int]], rows: int, g, where: str, name: str) -> List[int]:
    if sizes is None or len(sizes) == 0:
        if rows % g.world_size:
            raise ValueError(f"glassgrad.distributed.{where}: {rows} rows do not split evenly over "
                             f"{g.world_size} ranks\n  fix: pass {name}")
        return [rows // g.world_size] * g.world_size
    if len(sizes) != g.world_size or sum(sizes) != rows:
        raise ValueError(f"glassgrad.distributed.{where}: {name}={list(sizes)} must have world_size = "
                         f"{g.world_size} entries summing to the tensor's {rows} rows")
    return [int(s) for s in sizes]


def all_to_all_single(output: Tensor, input: Tensor, output_split_sizes: Optional[List[int]] = None,
                      input_split_sizes: Optional[List[int]] = None, group=None, async_op: bool = False):
    """torch.distributed.all_to_all_single: input's row blocks (input_split_sizes, default equal)
    go to the ranks in order; output holds the blocks received, rank by rank."""
    g = _world(group, "all_to_all_single")
    src = _array(input)
    rows_in = src.shape[0] if src.ndim else 1
    cuts = np.cumsum([0] + _splits(input_split_sizes, rows_in, g, "all_to_all_single", "input_split_sizes"))
    out_rows = _splits(output_split_sizes, tuple(output.shape)[0] if output.dim() else 1, g,
                       "all_to_all_single", "output_split_sizes")
    received: List[np.ndarray] = []
    for j in range(g.world_size):
        arrays = exchange(src[cuts[j]:cuts[j + 1]], g)
        if j == g.rank:
            received = arrays  # type: ignore[assignment]
    for i, (block, rows) in enumerate(zip(received, out_rows)):
        if block.shape[0] != rows:
            raise ValueError(f"glassgrad.distributed.all_to_all_single: rank {i} sent {block.shape[0]} rows where "
                             f"output_split_sizes expects {rows}")
    _write(output, np.concatenate(received).reshape(tuple(output.shape)))
    return _done(async_op, [output])


def barrier(group=None, async_op: bool = False, device_ids=None, timeout=None):
    """torch.distributed.barrier: returns once every rank has called it."""
    _world(group, "barrier")
    _ops.barrier()
    return _done(async_op)


def monitored_barrier(group=None, timeout=None, wait_all_ranks: bool = False) -> None:
    """torch.distributed.monitored_barrier: a barrier; a rank that does not arrive ends the job at
    the process group's timeout, naming the rank that waited (docs/distributed.md)."""
    barrier(group)


from ._point_to_point import batch_isend_irecv, irecv, isend, recv, send  # noqa: E402,F401
