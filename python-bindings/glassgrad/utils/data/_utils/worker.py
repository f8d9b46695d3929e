"""The DataLoader's worker processes: what each one runs, what it may touch, and how it tells the
main process about a batch or an error.

A worker fetches the batches whose indices arrive on its index queue and puts them, numbered, on
the shared result queue (the main process restores the order). It never touches CUDA or the C++
thread pool: its default device is the CPU, a CUDA device is refused with the fix, and the CPU
kernels run on its own thread (set_num_threads(1)), so a worker forked from a process that had
already started OpenMP threads or a CUDA context never uses them (docs/data-loading.md). Its
random generators are seeded with base_seed + worker_id (Python's `random`, glassgrad's, and
NumPy's global one from a SeedSequence of both), as PyTorch seeds its workers."""
from __future__ import annotations

import ctypes
import os
import pickle
import queue
import random
import signal
import sys
import traceback
from dataclasses import FrozenInstanceError, dataclass
from typing import Any, Optional

import numpy as np

from .... import _C, _device, _random
from . import fetch as _fetch
from . import transport as _transport

__all__ = ["WorkerInfo", "get_worker_info"]

MP_STATUS_CHECK_INTERVAL = 1.0  # seconds between a worker's checks that its main process lives


class _ReadOnly(FrozenInstanceError, RuntimeError):
    """Assigning to a WorkerInfo: PyTorch raised RuntimeError, and since its WorkerInfo became a
    frozen dataclass, dataclasses.FrozenInstanceError (an AttributeError); this is both."""


class WorkerInfo:
    """What get_worker_info() returns in a worker: id, num_workers, seed, dataset (the worker's
    own copy). Read-only."""

    __initialized = False

    def __init__(self, **kwargs: Any) -> None:
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise _ReadOnly(f"Cannot assign attributes to {self.__class__.__name__} objects")
        return super().__setattr__(key, val)

    def __repr__(self) -> str:
        items = ", ".join(f"{k}={getattr(self, k)}" for k in self.__keys)
        return f"{self.__class__.__name__}({items})"


_worker_info: Optional[WorkerInfo] = None


def get_worker_info() -> Optional[WorkerInfo]:
    """In a DataLoader worker: its WorkerInfo (id, num_workers, seed, dataset); in the main
    process: None. An IterableDataset uses it to yield its own share in each worker."""
    return _worker_info


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    """A worker's iterable data set is exhausted."""
    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    """Persistent workers: a new epoch starts (the iterable data set is iterated again)."""
    seed: Optional[int] = None


class KeyErrorMessage(str):
    """A KeyError's message, printed as it is (KeyError's str() would quote it)."""

    def __repr__(self) -> str:
        return self


class WorkerError:
    """An exception a worker caught, sent to the main process, which raises it again there with
    the worker's traceback, the worker and the sample it was fetching."""

    def __init__(self, exc: BaseException, where: str) -> None:
        self.exc_type = type(exc)
        self.exc_name = type(exc).__name__
        self.where = where
        self.text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))

    def message(self) -> str:
        return f"Caught {self.exc_name} {self.where}.\nOriginal {self.text}"

    def reraise(self):
        msg = self.message()
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None) is not None:  # e.g. errors with a required message keyword
            raise self.exc_type(message=msg)
        try:
            exc = self.exc_type(msg)
        except Exception:  # an exception type whose constructor takes other arguments
            raise RuntimeError(msg) from None
        raise exc


def _die_with_parent() -> None:
    """Linux: the kernel kills this worker when the thread that forked it ends (the main
    process dies, even by SIGKILL), so no worker outlives it."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - no prctl: the periodic check still ends it
        pass


def _isolate(worker_id: int) -> None:
    """What makes a worker safe to fork after OpenMP or CUDA started: no CUDA, no thread pool."""
    _device._cuda_forbidden = (f"DataLoader worker {worker_id} may not use CUDA (a worker runs beside the training "
                               f"process and must not touch its GPU)\n  fix: return CPU tensors or NumPy arrays from "
                               f"the data set and move each batch in the training loop: x = x.to(device) "
                               f"(DataLoader(pin_memory=True) makes that copy asynchronous)")
    _device._default = "cpu"
    _C.set_num_threads(1)


def _seed(seed: int, worker_id: int, base_seed: int) -> None:
    random.seed(seed)
    _random.manual_seed(seed)
    state = np.random.SeedSequence([worker_id, base_seed % (2 ** 63)]).generate_state(4)
    np.random.seed(state)


def worker_loop(iterable: bool, dataset, index_queue, data_queue, done_event, auto_collation: bool, collate_fn,
                drop_last: bool, base_seed: int, init_fn, worker_id: int, num_workers: int, persistent: bool,
                parent_pid: int, die_with_parent: bool, slots) -> None:
    """The body of worker `worker_id` (started by the DataLoader's iterator)."""
    global _worker_info
    if die_with_parent:
        _die_with_parent()
    sender = None
    orphaned = False
    try:
        _isolate(worker_id)
        seed = base_seed + worker_id
        _seed(seed, worker_id, base_seed)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        sender = _transport.Sender(data_queue, slots, worker_id)
        init_error = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _fetch.create_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last,
                                             sender.arrays)
        except Exception as e:  # reported with the first batch asked for
            init_error = WorkerError(e, f"in DataLoader worker process {worker_id} while starting it "
                                        f"(worker_init_fn or the data set's __iter__)")
            fetcher = None
        exhausted = False  # an iterable data set has ended (sent once)
        watchdog_pid = parent_pid
        while True:
            try:
                r = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                if os.getppid() != watchdog_pid:
                    orphaned = True
                    return  # the main process is gone
                continue
            except (EOFError, OSError):
                orphaned = True
                return  # the main process closed its end: it is gone
            if r is None:  # shut down
                return
            if isinstance(r, _ResumeIteration):
                data_queue.put((r, None))
                exhausted = False
                if init_error is None:
                    try:
                        fetcher = _fetch.create_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last,
                                                         sender.arrays)
                    except Exception as e:
                        init_error = WorkerError(e, f"in DataLoader worker process {worker_id} while starting an "
                                                    f"epoch (the data set's __iter__)")
                continue
            if done_event.is_set() or exhausted:
                continue  # finishing: drain the queue without work
            idx, index = r
            if init_error is not None:
                data = init_error  # every batch asked for says so; the main process stops at the first
            else:
                try:
                    data = fetcher.fetch(index)
                except StopIteration:
                    if iterable:
                        data = _IterableDatasetStopIteration(worker_id)
                        exhausted = True
                    else:
                        data = WorkerError(RuntimeError("the sampler's batch raised StopIteration"),
                                           f"in DataLoader worker process {worker_id}")
                except Exception as e:
                    which = _fetch.describe_index(fetcher, e)
                    data = WorkerError(e, f"in DataLoader worker process {worker_id}" +
                                       (f" while fetching {which}" if which else ""))
            if isinstance(data, WorkerError):
                sender.discard()  # a slot the failed fetch had claimed
                _put_error(data_queue, idx, data)
            elif isinstance(data, _IterableDatasetStopIteration):
                data_queue.put((idx, data))
            else:
                sender.send(idx, data)
            del data
    except KeyboardInterrupt:
        pass  # Ctrl-C reaches the whole process group: the main process handles it
    except (BrokenPipeError, ConnectionError):
        orphaned = True  # the main process is gone: nobody reads the results
    finally:
        if sender is not None:
            sender.close(unlink_blocks=orphaned)


def _put_error(data_queue, idx: int, error: WorkerError) -> None:
    """Sends a worker's error; one whose exception type cannot be pickled (a class defined in a
    function) travels as a RuntimeError with the same message."""
    try:
        data_queue.put((idx, error))
    except (pickle.PicklingError, AttributeError, TypeError):
        error.exc_type = RuntimeError
        data_queue.put((idx, error))


