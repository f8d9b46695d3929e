"""torch.distributed's small types: ReduceOp, Backend, the process-group handle (group.WORLD,
GroupMember), Work (what async_op=True returns) and P2POp. docs/distributed.md, "Collectives"."""
from __future__ import annotations

import enum
from typing import Any, Callable, List, Optional

from .. import _C


class RedOpType(enum.IntEnum):
    """The reduction of a collective, numbered as PyTorch's ReduceOp.RedOpType."""
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8

    def __repr__(self) -> str:
        return f"<RedOpType.{self.name}: {self.value}>"


class ReduceOp:
    """torch.distributed.ReduceOp: ReduceOp.SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR, BXOR (members
    of ReduceOp.RedOpType). PREMUL_SUM is named but refused by the collectives, as by PyTorch's
    ProcessGroups other than NCCL's."""
    RedOpType = RedOpType
    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR
    PREMUL_SUM = RedOpType.PREMUL_SUM


class reduce_op:
    """torch.distributed.reduce_op, PyTorch's deprecated spelling of ReduceOp (no AVG)."""
    SUM = RedOpType.SUM
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX


def as_red_op(op: Any, where: str) -> RedOpType:
    """A ReduceOp member (or glassgrad's earlier "sum" / "average" strings) as a RedOpType."""
    if isinstance(op, str) and op.lower() in ("sum", "average", "avg"):
        return RedOpType.SUM if op.lower() == "sum" else RedOpType.AVG
    try:
        red = RedOpType(op)
    except ValueError:
        red = None
    if red is None or isinstance(op, bool) or not isinstance(op, (int, RedOpType)):
        raise _C.InvalidArgumentError(f"glassgrad.distributed.{where}: op must be a ReduceOp (ReduceOp.SUM, AVG, "
                                      f"PRODUCT, MIN, MAX, BAND, BOR or BXOR), got {op!r}\n"
                                      f"  fix: {where}(tensor, op=dist.ReduceOp.SUM)")
    if red == RedOpType.PREMUL_SUM:
        raise _C.UnsupportedError(f"glassgrad.distributed.{where}: ReduceOp.PREMUL_SUM is not supported (PyTorch "
                                  f"has it on NCCL only)\n  fix: multiply the tensor first, then use ReduceOp.SUM")
    return red


class Backend(str):
    """torch.distributed.Backend: a backend name in lower case (Backend("GLOO") == "gloo"), with
    the constants NCCL, GLOO, MPI, UCC, XCCL and UNDEFINED."""
    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    XCCL = "xccl"
    backend_list = [UNDEFINED, GLOO, NCCL, UCC, MPI, XCCL]

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError(f"Backend name must be a string, but got: {name}")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        return str.__new__(cls, value if value != Backend.UNDEFINED else name.lower())


class ProcessGroup:
    """The handle of a process group: `group.WORLD` once init_process_group() has run (glassgrad
    has one group, every rank; new_group() of all ranks returns it)."""

    def __init__(self, ranks: List[int], backend: str):
        self._ranks, self._backend = list(ranks), backend

    def rank(self) -> int:
        from . import _group
        return _group.get_rank()

    def size(self) -> int:
        return len(self._ranks)

    def name(self) -> str:
        return "0"

    @property
    def group_name(self) -> str:
        return self.name()

    def __repr__(self) -> str:
        return f"<glassgrad.distributed.ProcessGroup of ranks {self._ranks} ({self._backend})>"


class _World:
    """`group.WORLD` / `GroupMember.WORLD`: the default group, None before init_process_group()."""

    @property
    def WORLD(self) -> Optional[ProcessGroup]:
        from . import _group
        return _group.world_handle()

    NON_GROUP_MEMBER = -100


group = _World()
GroupMember = group


class Work:
    """What a collective called with async_op=True returns. glassgrad's collectives have finished
    (or, for all_reduce, are recorded in the graph that the next read computes) when the call
    returns, so wait() returns True at once and the Work is completed; isend/irecv's Work holds
    the MPI request, and wait() completes it (irecv's tensor is written then)."""

    def __init__(self, result: Optional[List[Any]] = None, source_rank: int = -1,
                 pending: Optional[Callable[[], Any]] = None, test: Optional[Callable[[], bool]] = None):
        self._result = list(result or [])
        self._source = source_rank
        self._pending, self._test = pending, test  # a point-to-point request still in flight

    def wait(self, timeout: Any = None) -> bool:
        if self._pending is not None:
            pending, self._pending = self._pending, None
            source = pending()
            if source is not None:
                self._source = int(source)
        return True

    def is_completed(self) -> bool:
        if self._pending is not None and self._test is not None and self._test():
            self.wait()
        return self._pending is None

    def is_success(self) -> bool:
        return True

    def exception(self) -> None:
        return None

    def result(self) -> List[Any]:
        return self._result

    def source_rank(self) -> int:
        if self._source < 0:
            raise _C.InvalidArgumentError("Work.source_rank(): only a receive from any rank has a source rank")
        return self._source

    def synchronize(self) -> None:
        self.wait()

    def get_future(self):
        from ..futures import Future
        f: Future = Future()
        f.set_result(self._result)
        return f


class P2POp:
    """torch.distributed.P2POp(op, tensor, peer, group=None, tag=0): one send or receive of a
    batch_isend_irecv call; op is isend or irecv (or send / recv)."""

    def __init__(self, op: Callable, tensor: Any, peer: Optional[int] = None, group: Any = None, tag: int = 0,
                 group_peer: Optional[int] = None):
        from . import _collectives as c
        if op not in (c.isend, c.irecv, c.send, c.recv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                             "``torch.distributed.irecv``.")
        self.op, self.tensor, self.group, self.tag = op, tensor, group, tag
        self.peer = peer if peer is not None else group_peer
