"""The MPI backend for CPU processes: a glassgrad Communicator over mpi4py (an optional
dependency: pip install 'glassgrad[distributed]'). AllReduce kernels call all_reduce() with the
address of a CPU buffer; it is wrapped as a NumPy array without copying and reduced in place.

A watchdog bounds every collective: when one does not finish within the timeout (a peer rank is
stuck or gone without MPI noticing), this rank prints which collective and rank waited, and
aborts the whole MPI job, so no rank hangs."""
from __future__ import annotations

import ctypes
import sys
import threading
import time

import numpy as np

from .. import _C
from ._env import report_to_launcher

_NUMPY = {"float32": np.float32, "float64": np.float64, "int64": np.int64, "uint8": np.uint8, "bool": np.uint8}


def import_mpi():
    try:
        from mpi4py import MPI  # optional dependency
    except ImportError as e:
        raise _C.UnsupportedError(
            "glassgrad.distributed: the MPI backend needs mpi4py, which is not installed "
            f"({e})\n  fix: pip install 'glassgrad[distributed]' (mpi4py and an MPI library), or launch "
            "GPU ranks with backend='nccl'") from e
    return MPI


def _view(address: int, count: int, dtype: str) -> np.ndarray:
    t = _NUMPY[dtype]
    nbytes = int(count) * np.dtype(t).itemsize
    buf = (ctypes.c_char * nbytes).from_address(address)
    return np.frombuffer(buf, dtype=t, count=int(count))


class _Watchdog:
    """Aborts the MPI job when a collective outlives `timeout` seconds."""

    def __init__(self, comm, rank: int, timeout: float):
        self.comm, self.rank, self.timeout = comm, rank, timeout
        self.what, self.since = None, 0.0
        self.lock = threading.Lock()
        t = threading.Thread(target=self._run, name="glassgrad-mpi-watchdog", daemon=True)
        t.start()

    def begin(self, what: str) -> None:
        with self.lock:
            self.what, self.since = what, time.monotonic()

    def end(self) -> None:
        with self.lock:
            self.what = None

    def _run(self) -> None:
        while True:
            time.sleep(min(1.0, self.timeout / 4))
            with self.lock:
                late = self.what is not None and time.monotonic() - self.since > self.timeout
                what = self.what
            if late:
                why = (f"rank {self.rank}: {what} did not finish within {self.timeout:g} s: another rank is "
                       f"stuck or has died")
                sys.stderr.write(f"glassgrad.distributed: {why}; aborting every rank\n"
                                 f"  fix: check the other ranks' output; raise timeout= in init_process_group "
                                 f"if a step really takes that long\n")
                sys.stderr.flush()
                report_to_launcher(self.rank, why)
                self.comm.Abort(124)


class MpiCommunicator(_C.Communicator):
    def __init__(self, timeout: float):
        super().__init__()
        MPI = import_mpi()
        self.MPI = MPI
        self.comm = MPI.COMM_WORLD
        self._rank, self._size = self.comm.Get_rank(), self.comm.Get_size()
        self.watchdog = _Watchdog(self.comm, self._rank, timeout)

    def rank(self) -> int:
        return self._rank

    def size(self) -> int:
        return self._size

    def backend(self) -> str:
        return "mpi"

    def all_reduce(self, address, count, dtype, op, stream):
        a = _view(address, count, dtype)
        self.watchdog.begin(f"all_reduce of {count} {dtype} values")
        try:
            self.comm.Allreduce(self.MPI.IN_PLACE, a, op=self.MPI.SUM)
        finally:
            self.watchdog.end()
        if op == "average":
            a /= self._size

    def broadcast(self, address, count, dtype, root, stream):
        a = _view(address, count, dtype)
        self.watchdog.begin(f"broadcast of {count} {dtype} values from rank {root}")
        try:
            self.comm.Bcast(a, root=root)
        finally:
            self.watchdog.end()

    def barrier(self) -> None:
        self.watchdog.begin("barrier")
        try:
            self.comm.Barrier()
        finally:
            self.watchdog.end()

    def abort(self, code: int = 1) -> None:
        self.comm.Abort(code)
