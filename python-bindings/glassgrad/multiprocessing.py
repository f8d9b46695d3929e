"""glassgrad.multiprocessing: torch.multiprocessing's names. Python's multiprocessing (Process,
Queue, Pool, set_start_method, get_context, ...), PyTorch's sharing-strategy switches, and
spawn(fn, args, nprocs) / start_processes, which run fn(i, *args) in nprocs processes and raise
a child's error in the parent, naming the process.

    import glassgrad.multiprocessing as mp
    mp.spawn(train, args=(world_size,), nprocs=world_size)

glassgrad tensors reach a child as their values (pickled), except CPU tensors moved into shared
memory (Tensor.share_memory_, Module.share_memory), which every process then reads and writes in
place: a model several processes train at once (docs/data-loading.md, "Sharing a model between
processes"). A child never shares a parent's GPU memory. With the "fork" start method, a child must not touch CUDA if the parent has (use
"spawn", spawn()'s default, or "forkserver"); DataLoader workers are kept off CUDA for this
reason (docs/data-loading.md).
"""
from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import signal
import sys
import traceback
import warnings
from multiprocessing import *  # noqa: F403  (torch.multiprocessing re-exports Python's)
from typing import Callable, List, Optional

__all__ = list(multiprocessing.__all__) + [
    "get_sharing_strategy", "set_sharing_strategy", "get_all_sharing_strategies", "spawn", "start_processes",
    "ProcessContext", "ProcessException", "ProcessRaisedException", "ProcessExitedException"]

# ---- sharing strategies: how tensors cross processes in PyTorch (file descriptors or files in
# shared memory). glassgrad pickles a tensor's values, so the setting is kept and reported only.
_STRATEGIES = {"file_descriptor", "file_system"} if sys.platform != "darwin" else {"file_system"}
_strategy = "file_descriptor" if sys.platform != "darwin" else "file_system"


def get_all_sharing_strategies() -> set:
    return set(_STRATEGIES)


def get_sharing_strategy() -> str:
    return _strategy


def set_sharing_strategy(new_strategy: str) -> None:
    global _strategy
    if new_strategy not in _STRATEGIES:
        raise AssertionError(f"set_sharing_strategy: {new_strategy!r} is not one of {sorted(_STRATEGIES)}")
    _strategy = new_strategy


# ---- spawn / start_processes --------------------------------------------------------------
class ProcessException(Exception):
    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg: str, error_index: int, pid: int):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.pid = pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """The function raised in process error_index; the message holds the child's traceback."""


class ProcessExitedException(ProcessException):
    """Process error_index ended without returning (a signal, os._exit, a crash)."""

    __slots__ = ["exit_code"]

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int, signal_name: Optional[str] = None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)


def _wrap(fn: Callable, i: int, args: tuple, error_queue) -> None:
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent is stopping everything
    except Exception:
        error_queue.put(traceback.format_exc())
        sys.exit(1)


class ProcessContext:
    """The processes start_processes started: join() waits for them and raises the first error."""

    def __init__(self, processes: List, error_queues: List):
        self.processes = processes
        self.error_queues = error_queues
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self) -> List[int]:
        return [int(p.pid) for p in self.processes]

    def join(self, timeout: Optional[float] = None, grace_period: Optional[float] = None) -> bool:
        """True once every process has ended well; False if some still run after `timeout`. A
        process that failed: the others are stopped and its error raised here."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(self.sentinels.keys(), timeout=timeout)
        failed = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            p = self.processes[index]
            p.join()
            if p.exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels
        for p in self.processes:  # one failed: stop the others
            if p.is_alive():
                p.terminate()
        for p in self.processes:
            p.join(grace_period if grace_period is not None else 5.0)
            if p.is_alive():
                p.kill()
                p.join()
        self.sentinels.clear()
        p = self.processes[failed]
        if not self.error_queues[failed].empty():
            original = self.error_queues[failed].get()
            raise ProcessRaisedException(f"\n\n-- Process {failed} terminated with the following error:\n{original}",
                                         failed, p.pid)
        if p.exitcode < 0:
            name = signal.Signals(-p.exitcode).name
            raise ProcessExitedException(f"process {failed} terminated with signal {name}", failed, p.pid,
                                         p.exitcode, name)
        raise ProcessExitedException(f"process {failed} terminated with exit code {p.exitcode}", failed, p.pid,
                                     p.exitcode)


def start_processes(fn: Callable, args: tuple = (), nprocs: int = 1, join: bool = True, daemon: bool = False,
                    start_method: str = "spawn"):
    """Runs fn(i, *args) for i in range(nprocs), each in a process started by `start_method`.
    join=True waits and returns None (raising a child's error as ProcessRaisedException or
    ProcessExitedException); join=False returns the ProcessContext."""
    context = multiprocessing.get_context(start_method)
    processes, queues = [], []
    for i in range(nprocs):
        q = context.SimpleQueue()
        p = context.Process(target=_wrap, args=(fn, i, args, q), daemon=daemon)
        p.start()
        processes.append(p)
        queues.append(q)
    ctx = ProcessContext(processes, queues)
    if not join:
        return ctx
    while not ctx.join():
        pass
    return None


def spawn(fn: Callable, args: tuple = (), nprocs: int = 1, join: bool = True, daemon: bool = False,
          start_method: str = "spawn"):
    """start_processes, meant for the "spawn" start method (another one works, with PyTorch's
    FutureWarning that says to call start_processes)."""
    if start_method != "spawn":
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\nTo use a different "
                      f"start_method use:\n\t\t torch.multiprocessing.start_processes(...)", FutureWarning,
                      stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method)
