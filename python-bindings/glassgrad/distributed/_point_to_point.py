"""torch.distributed's point-to-point calls: send, recv, isend, irecv, batch_isend_irecv.

They need a backend that can address one peer: MPI (CPU processes), through mpi4py's
Send/Recv on the tensor's bytes (the receiver's tensor gives the size, as PyTorch's recv). NCCL
communicators of the runtime carry collectives only; there they are refused with the fix."""
from __future__ import annotations

from typing import List, Optional

import numpy as np

from .. import _C
from .._tensor import Tensor
from ._types import P2POp, Work


def _peer(peer: Optional[int], group_peer: Optional[int], g, where: str, name: str) -> Optional[int]:
    if peer is not None and group_peer is not None:
        raise ValueError(f"Can not specify both {name} and group_{name}")
    r = peer if peer is not None else group_peer
    if r is None:
        return None
    if not 0 <= int(r) < g.world_size:
        raise ValueError(f"glassgrad.distributed.{where}: {name}={r} is not a rank of the group of {g.world_size}")
    if int(r) == g.rank:
        raise ValueError(f"Invalid {'destination' if name == 'dst' else 'source'} rank: should not be the same as "
                         f"the rank of the current process.")
    return int(r)


def _mpi(group, where: str):
    from ._collectives import _world
    g = _world(group, where)
    comm = getattr(g.comm, "comm", None)
    if g.backend not in ("mpi", "gloo") or comm is None:
        raise _C.UnsupportedError(f"glassgrad.distributed.{where}: point-to-point messages need the MPI backend; this "
                                  f"process group uses {g.backend!r}, whose communicator carries collectives only\n"
                                  f"  fix: exchange tensors with a collective (broadcast, all_gather, scatter), or run "
                                  f"CPU ranks with backend='mpi' (python -m glassgrad.distributed.run --backend mpi)")
    return g, comm


def _buffer(t: Tensor) -> np.ndarray:
    return np.ascontiguousarray(t.detach().numpy(force=True))


def isend(tensor: Tensor, dst: Optional[int] = None, group=None, tag: int = 0, group_dst: Optional[int] = None) -> Work:
    """torch.distributed.isend: starts sending tensor to rank dst; the Work's wait() completes it."""
    g, comm = _mpi(group, "isend")
    peer = _peer(dst, group_dst, g, "isend", "dst")
    if peer is None:
        raise ValueError("isend: dst (the receiving rank) is required")
    buf = _buffer(tensor)
    request = comm.Isend(buf.reshape(-1).view(np.uint8), dest=peer, tag=int(tag))
    keep = [buf]  # MPI reads buf until the request completes

    def finish():
        request.Wait()
        keep.clear()
    return Work([tensor], pending=finish, test=request.Test)


def irecv(tensor: Tensor, src: Optional[int] = None, group=None, tag: int = 0, group_src: Optional[int] = None) -> Work:
    """torch.distributed.irecv: starts receiving into tensor from rank src (any rank when None);
    the Work's wait() writes the tensor and source_rank() names the sender."""
    from ._collectives import _write
    g, comm = _mpi(group, "irecv")
    peer = _peer(src, group_src, g, "irecv", "src")
    buf = np.empty(tuple(tensor.shape), _buffer(tensor).dtype)
    status = g.comm.MPI.Status()
    source = g.comm.MPI.ANY_SOURCE if peer is None else peer
    request = comm.Irecv(buf.reshape(-1).view(np.uint8), source=source, tag=int(tag))

    def finish():
        request.Wait(status)
        _write(tensor, buf)
        return status.Get_source()
    return Work([tensor], pending=finish, test=request.Test)


def send(tensor: Tensor, dst: Optional[int] = None, group=None, tag: int = 0, group_dst: Optional[int] = None) -> None:
    """torch.distributed.send: sends tensor to rank dst; returns when it is sent."""
    isend(tensor, dst, group, tag, group_dst).wait()


def recv(tensor: Tensor, src: Optional[int] = None, group=None, tag: int = 0, group_src: Optional[int] = None) -> int:
    """torch.distributed.recv: receives into tensor from rank src (any rank when None); returns
    the sender's rank."""
    work = irecv(tensor, src, group, tag, group_src)
    work.wait()
    return work.source_rank()


def batch_isend_irecv(p2p_op_list: List[P2POp]) -> List[Work]:
    """torch.distributed.batch_isend_irecv: starts every P2POp's send or receive; returns their
    Works, in order."""
    if not isinstance(p2p_op_list, (list, tuple)) or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``torch.distributed.P2POp``.")
    works = []
    for p in p2p_op_list:
        start = isend if p.op in (isend, send) else irecv
        works.append(start(p.tensor, p.peer, p.group, p.tag))
    return works
