"""DataLoader with torch.utils.data.DataLoader's signature, defaults and semantics.

    loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=2, pin_memory=True)
    for x, y in loader:                       # glassgrad tensors on the CPU
        x, y = x.to(device), y.to(device)

num_workers=0 loads in the training process. num_workers > 0 starts worker processes (see
_utils/worker.py): batch k goes to worker k mod num_workers (prefetch_factor batches ahead per
worker) and batches come back in order. A worker's exception is raised again here, naming the
worker and the sample index; a worker that dies, or sends nothing for `timeout` seconds, ends the
loop with an error that names it. Workers are started by fork where the system has it (see
docs/data-loading.md for why that is safe after CUDA or OpenMP started), else spawn; pass
multiprocessing_context to choose."""
from __future__ import annotations

import atexit
import itertools
import multiprocessing
import os
import queue
import sys
import threading
import warnings
import weakref
from typing import Callable, Optional, Union

from ... import _C, _device
from . import _rng
from ._utils import channel as _channel
from ._utils import collate as _collate
from ._utils import fetch as _fetch
from ._utils import loading_thread as _loading
from ._utils import transport as _transport
from ._utils import worker as _worker
from ._utils.collate import default_collate, default_convert  # noqa: F401  (torch.utils.data.dataloader's names)
from ._utils.worker import get_worker_info  # noqa: F401
from ._utils.pin_memory import pin_memory as _pin_memory
from ._utils.pin_memory import pinning
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader"]

_STATUS_CHECK_INTERVAL = 1.0  # seconds between the main process's checks on its workers


class _DatasetKind:
    """torch.utils.data's kinds of data set (DataLoader._dataset_kind; libraries built on the
    loader compare it with _DatasetKind.Iterable)."""

    Map = 0
    Iterable = 1

    @staticmethod
    def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
        return _fetch.create_fetcher(kind == _DatasetKind.Iterable, dataset, auto_collation, collate_fn, drop_last)


class _InfiniteConstantSampler(Sampler):
    """An IterableDataset's sampler: None forever (the data set decides when to stop)."""

    def __iter__(self):
        while True:
            yield None


def _default_context():
    """fork where the system has it: a forked worker needs no re-import of the training script,
    so scripts without `if __name__ == "__main__":` work, and the worker's isolation
    (_utils/worker.py) keeps it off CUDA and the thread pool; spawn elsewhere."""
    if "fork" in multiprocessing.get_all_start_methods() and sys.platform != "darwin":
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _positive_int(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"DataLoader: {what} must be an int, got {type(value).__name__}")
    return value


class DataLoader:
    """Batches of a data set, as torch.utils.data.DataLoader (every argument and default is
    PyTorch's; generator is a numpy.random.Generator or None)."""

    def __init__(self, dataset, batch_size: Optional[int] = 1, shuffle: Optional[bool] = None, sampler=None,
                 batch_sampler=None, num_workers: int = 0, collate_fn: Optional[Callable] = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Optional[Callable[[int], None]] = None, multiprocessing_context=None,
                 generator=None, *, prefetch_factor: Optional[int] = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True):
        num_workers = _positive_int(num_workers, "num_workers")
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if batch_size is not None and (isinstance(batch_size, bool) or not isinstance(batch_size, int)
                                       or batch_size <= 0):
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        if isinstance(dataset, IterableDataset):
            self._iterable = True
            self._dataset_kind = _DatasetKind.Iterable
            if shuffle not in (False, None):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._iterable = False
            self._dataset_kind = _DatasetKind.Map
            if not hasattr(dataset, "__getitem__"):
                raise TypeError(f"DataLoader: the dataset is a {type(dataset).__name__}, which has no __getitem__\n"
                                f"  fix: pass a Dataset (dataset[i] gives sample i, len(dataset) their number), e.g. "
                                f"TensorDataset(x, y), or an IterableDataset")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None:
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = _collate.default_collate if self._auto_collation else _collate.default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._iterator = None
        self._IterableDataset_len_called = None
        self.__initialized = True
        self.check_worker_number_rationality()

    # ---- PyTorch's attribute rules ----
    _DataLoader__initialized = False
    _frozen = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")

    def __setattr__(self, attr, val):
        if self.__initialized and attr in self._frozen:
            raise ValueError(f"{attr} attribute should not be set after {self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context) -> None:
        if context is not None:
            if self.num_workers == 0:
                raise ValueError(f"multiprocessing_context can only be used with multi-process loading (num_workers "
                                 f"> 0), but got num_workers={self.num_workers}")
            if isinstance(context, str):
                methods = multiprocessing.get_all_start_methods()
                if context not in methods:
                    raise ValueError(f"multiprocessing_context option should specify a valid start method in "
                                     f"{methods!r}, but got multiprocessing_context={context!r}")
                context = multiprocessing.get_context(context)
            if not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError(f"multiprocessing_context option should be a valid context object or a string "
                                f"specifying the start method, but got multiprocessing_context={context}")
        self.__multiprocessing_context = context

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self) -> int:
        if self._iterable:
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else -(-length // self.batch_size)
            return length
        return len(self._index_sampler)

    def __iter__(self):
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._workers_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return _SingleProcessIter(self) if self.num_workers == 0 else self._workers_iterator()

    def _workers_iterator(self) -> "_MultiProcessIter":
        """A new iterator with worker processes, after the worker-count warning, as PyTorch's
        _get_iterator gives it (once at construction, once each time workers start)."""
        self.check_worker_number_rationality()
        return _MultiProcessIter(self)

    def check_worker_number_rationality(self) -> None:
        """Warns when num_workers exceeds the CPUs this process may use (as PyTorch). Invariant: the
        warning is attributed to this module's line that called it (__init__'s or
        _workers_iterator's), as PyTorch's to its own two lines, so that Python's default filter
        shows it once for the construction of all loaders and once for their iterators, as under
        PyTorch (docs/data-loading.md)."""
        if not self.num_workers:
            return
        try:
            cpus = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            cpus = os.cpu_count()
        if cpus is not None and self.num_workers > cpus:
            warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in total. Our suggested "
                          f"max number of worker in current system is {cpus}, which is smaller than what this "
                          f"DataLoader is going to create. Please be aware that excessive worker creation might get "
                          f"DataLoader running slow or even freeze, lower the worker number to avoid potential "
                          f"slowness/freeze if necessary.", stacklevel=2)


class _BaseIter:
    def __init__(self, loader: DataLoader):
        self._dataset = loader.dataset
        self._iterable = loader._iterable
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._pin_memory = bool(loader.pin_memory) and self._can_pin()
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = _rng.draw_seed(loader.generator)
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    @staticmethod
    def _can_pin() -> bool:
        if _device.cuda_available() and _C.pinned_memory_available():
            return True
        warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned memory "
                      "won't be used.", stacklevel=4)
        return False

    def __iter__(self):
        return self

    def _reset(self, loader: DataLoader) -> None:
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        if self._iterable and self._IterableDataset_len_called is not None \
                and self._num_yielded > self._IterableDataset_len_called:
            msg = (f"Length of IterableDataset {self._dataset} was reported to be {self._IterableDataset_len_called} "
                   f"(when accessing len(dataloader)), but {self._num_yielded} samples have been fetched. ")
            if self._num_workers > 0:
                msg += ("For multiprocessing data-loading, this could be caused by not properly configuring the "
                        "IterableDataset replica at each worker (use get_worker_info() to split the work).")
            warnings.warn(msg, stacklevel=2)
        return data

    # PyTorch's loader iterators had `.next()` (its Python 2 spelling of __next__) until 1.13;
    # scripts of that time call `iter(loader).next()` (docs/porting.md).
    next = __next__

    def __len__(self) -> int:
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError(f"{self.__class__.__name__} cannot be pickled")


class _SingleProcessIter(_BaseIter):
    def __init__(self, loader: DataLoader):
        super().__init__(loader)
        self._fetcher = _fetch.create_fetcher(self._iterable, self._dataset, self._auto_collation, self._collate_fn,
                                              self._drop_last)

    def _next_data(self):
        index = self._next_index()
        with pinning(self._pin_memory):
            try:
                data = self._fetcher.fetch(index)
            except StopIteration:
                raise
            except Exception as e:
                which = _fetch.describe_index(self._fetcher, e)
                if which and hasattr(e, "add_note"):
                    e.add_note(f"(raised while the DataLoader was fetching {which})")
                raise
        return _pin_memory(data) if self._pin_memory else data


# The worker iterators alive now. A loader a script still holds when it ends (persistent workers
# in a global) is shut down by the atexit hook below, while Python's modules are whole: left to
# __del__, it may run after the interpreter has emptied this module and multiprocessing.
_LIVE_ITERATORS: "weakref.WeakSet[_MultiProcessIter]" = weakref.WeakSet()


def _shutdown_live_iterators() -> None:
    for it in list(_LIVE_ITERATORS):
        it._shutdown_workers()


atexit.register(_shutdown_live_iterators)


class _MultiProcessIter(_BaseIter):
    """Workers, index queues, one result queue, and the bookkeeping that keeps batches in order
    (as PyTorch's _MultiProcessingDataLoaderIter: _send_idx numbers the batches asked for,
    _rcvd_idx the next one to return, _task_info holds what is in flight or arrived early)."""

    def __init__(self, loader: DataLoader):
        super().__init__(loader)
        if not loader.prefetch_factor:
            # PyTorch's iterator asserts this: with no batch ahead per worker, nothing is ever asked for.
            raise AssertionError(f"prefetch_factor must be greater than 0 for MultiProcessingDataLoaderIter (got "
                                 f"prefetch_factor={loader.prefetch_factor})\n  fix: DataLoader(..., prefetch_factor=2),"
                                 f" PyTorch's default with workers, or leave it out")
        self._prefetch_factor = loader.prefetch_factor
        self._in_order = loader.in_order
        context = loader.multiprocessing_context or _default_context()
        self._worker_init_fn = loader.worker_init_fn
        self._shutdown = False
        _LIVE_ITERATORS.add(self)
        self._worker_result_queue = _channel.ResultPipe(context)
        self._workers_done_event = context.Event()
        self._index_queues, self._workers, self._slot_states = [], [], []
        die_with_parent = threading.current_thread() is threading.main_thread()
        # A worker's batches in flight, plus the ones the loop still holds (their tensors are
        # the slots' bytes without pinning, _utils/transport.py); more fall back to the pipe.
        slots_per_worker = (self._prefetch_factor or 1) + 3
        try:
            for i in range(self._num_workers):
                index_queue = _channel.IndexPipe(context)
                slots = context.RawArray("b", slots_per_worker)
                w = context.Process(
                    target=_worker.worker_loop,
                    args=(self._iterable, self._dataset, index_queue, self._worker_result_queue,
                          self._workers_done_event, self._auto_collation, self._collate_fn, self._drop_last,
                          self._base_seed, self._worker_init_fn, i, self._num_workers, self._persistent_workers,
                          os.getpid(), die_with_parent, slots),
                    name=f"glassgrad DataLoader worker {i}", daemon=True)
                self._index_queues.append(index_queue)
                w.start()
                index_queue.started()
                self._workers.append(w)
                self._slot_states.append(slots)
        except BaseException:
            self._shutdown_workers()
            raise
        lock_pages = self._pin_memory and _transport.can_lock_pages()
        self._receiver = _transport.Receiver(self._slot_states, lock_pages)
        # Where batches come from: the result pipe, or with pinning where slots cannot be
        # page-locked, the pin-memory thread that copies them into pinned memory beside the
        # training loop (_utils/loading_thread.py).
        self._loading_thread: Optional[_loading.LoadingThread] = None
        self._results: Union[_channel.ResultPipe, _loading.LoadingThread] = self._worker_result_queue
        if _loads_in_thread(self._pin_memory, lock_pages):
            self._loading_thread = _loading.LoadingThread(self._worker_result_queue, self._receiver,
                                                          self._pin_memory)
            self._results = self._loading_thread
        self._task_info = {}
        self._reset(loader, first_iter=True)

    def _reset(self, loader: DataLoader, first_iter: bool = False) -> None:
        super()._reset(loader)
        for info in self._task_info.values():  # batches of an abandoned epoch that arrived early
            if len(info) == 3:
                self._release(info[2])
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_info = {}  # idx -> (worker_id, index) in flight, or (worker_id, index, data) arrived early
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            for i in range(self._num_workers):
                self._put(i, _worker._ResumeIteration())
            resumed = self._num_workers
            while resumed > 0:  # batches of the abandoned epoch still on their way are dropped
                ok, (tag, data) = self._get_data()
                if isinstance(tag, _worker._ResumeIteration):
                    resumed -= 1
                else:
                    self._release(data)
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self) -> None:
        if self._tasks_outstanding >= self._prefetch_factor * self._num_workers:
            return
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):
            worker_id = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_id]:
                break
        else:
            return  # every worker has finished (iterable data sets)
        self._put(worker_id, (self._send_idx, index))
        self._task_info[self._send_idx] = (worker_id, index)
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _put(self, worker_id: int, message) -> None:
        """Sends a message to worker `worker_id`; a worker that is gone ends the loop with the
        error that names it."""
        try:
            self._index_queues[worker_id].put(message)
        except (OSError, ValueError):
            dead = self._dead_workers() or [(worker_id, self._workers[worker_id])]
            message = self._dead_message(dead)
            self._shutdown_workers()
            raise RuntimeError(message) from None

    # ---- receiving ----
    def _dead_workers(self):
        return [(i, w) for i, w in enumerate(self._workers) if self._workers_status[i] and not w.is_alive()]

    def _try_get_data(self, timeout: float):
        try:
            return True, self._results.get(timeout=timeout)
        except queue.Empty:
            dead = self._dead_workers()
            if dead:
                self._shutdown_workers()
                raise RuntimeError(self._dead_message(dead)) from None
            return False, None
        except (EOFError, OSError, ConnectionError) as e:
            dead = self._dead_workers()
            self._shutdown_workers()
            raise RuntimeError(self._dead_message(dead) if dead else
                               f"DataLoader: the queue from the workers broke ({type(e).__name__}: {e})") from None

    def _dead_message(self, dead) -> str:
        parts = []
        for i, w in dead:
            code = w.exitcode
            how = (f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}")
            pending = [str(idx) for idx, info in self._task_info.items() if len(info) == 2 and info[0] == i]
            held = f", holding batch{'es' if len(pending) > 1 else ''} {', '.join(pending)}" if pending else ""
            parts.append(f"worker {i} (pid {w.pid}, {how}){held}")
        cause = ("killed by the system (out of memory? a -9 is SIGKILL, check `dmesg`)" if any(
            w.exitcode is not None and w.exitcode < 0 for _, w in dead) else "ended abruptly (a crash in a "
                                                                            "library, or os._exit in the data set)")
        return (f"DataLoader worker (pid(s) {', '.join(str(w.pid) for _, w in dead)}) exited unexpectedly: "
                f"{'; '.join(parts)}\n  cause: the worker was {cause}\n"
                f"  fix: run with num_workers=0 to see the error in this process, or lower batch_size / num_workers "
                f"when memory runs out")

    def _get_data(self):
        if self._timeout > 0:
            deadline_left = self._timeout
            while True:
                step = min(_STATUS_CHECK_INTERVAL, deadline_left)
                ok, data = self._try_get_data(step)
                if ok:
                    return ok, data
                deadline_left -= step
                if deadline_left <= 0:
                    waiting = self._task_info.get(self._rcvd_idx)
                    who = ""
                    if waiting is not None and len(waiting) == 2:
                        w = self._workers[waiting[0]]
                        who = (f" waiting for batch {self._rcvd_idx} from worker {waiting[0]} (pid {w.pid}), which is "
                               f"still running but sent nothing: its data set may be stuck fetching "
                               f"{_describe(waiting[1])}")
                    self._shutdown_workers()
                    raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds{who}\n"
                                       f"  fix: check the data set for a blocking call (a network or file read, a lock), "
                                       f"or raise timeout=")
        while True:
            ok, data = self._try_get_data(_STATUS_CHECK_INTERVAL)
            if ok:
                return ok, data

    def _next_data(self):
        while True:
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info is None:
                    self._rcvd_idx += 1
                    continue
                worker_id = info[0]
                if len(info) == 3 or self._workers_status[worker_id]:
                    break
                del self._task_info[self._rcvd_idx]  # its worker finished (iterable data set)
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 3:
                worker_id, _, data = self._task_info.pop(self._rcvd_idx)
                self._rcvd_idx += 1
                return self._process_data(worker_id, data)
            ok, (idx, data) = self._get_data()
            if isinstance(idx, _worker._ResumeIteration):
                continue
            self._tasks_outstanding -= 1
            if isinstance(data, _worker._IterableDatasetStopIteration):
                if self._persistent_workers:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
                continue
            worker_id, index = self._task_info[idx][:2]
            if idx != self._rcvd_idx and self._in_order:
                self._task_info[idx] = (worker_id, index, data)  # arrived early: kept until its turn
                continue
            del self._task_info[idx]
            if idx == self._rcvd_idx:
                self._rcvd_idx += 1
            return self._process_data(worker_id, data)

    def _process_data(self, worker_id: int, data):
        self._try_put_index()
        if self._loading_thread is None and _transport.is_message(data):
            return self._receiver.load(data, self._pin_memory)
        if isinstance(data, (_worker.WorkerError, _loading.LoadFailed)):
            data.reraise()
        return data  # loaded by the pin-memory thread

    def _release(self, data) -> None:
        """Frees the slot of a batch that will not be returned (the pin-memory thread frees its
        batches' slots itself: what it hands over is a loaded batch, never a message)."""
        if self._loading_thread is None:
            self._receiver.release(data)

    def _mark_worker_as_unavailable(self, worker_id: int) -> None:
        self._workers_status[worker_id] = False
        try:
            self._index_queues[worker_id].put(None)
        except (OSError, ValueError):
            pass  # it has gone already

    # ---- shutting down ----
    def _shutdown_workers(self) -> None:
        if self._shutdown or not hasattr(self, "_workers"):
            return
        self._shutdown = True
        try:
            self._workers_done_event.set()
            for q in self._index_queues:
                try:
                    q.put(None)
                except (OSError, ValueError):
                    pass
            loading_thread = getattr(self, "_loading_thread", None)
            if loading_thread is not None:
                loading_thread.stop()  # from here on this thread is the pipe's only reader
            # Workers may be blocked writing to a full result pipe: drain it while they stop.
            for _ in range(int(_STATUS_CHECK_INTERVAL / 0.05)):
                self._worker_result_queue.drain()
                alive = [w for w in self._workers if w.is_alive()]
                if not alive:
                    break
                alive[0].join(timeout=0.05)
            for w in self._workers:
                if w.is_alive():
                    w.terminate()
                    w.join(timeout=_STATUS_CHECK_INTERVAL)
                if w.is_alive():
                    w.kill()
                    w.join()
            for q in self._index_queues:
                q.close()
            self._worker_result_queue.close()
        finally:
            receiver = getattr(self, "_receiver", None)
            if receiver is not None:
                receiver.close()
            for w in self._workers:
                if w.pid is not None:
                    _transport.unlink_worker_blocks(w.pid)

    def __del__(self):
        self._shutdown_workers()


def _loads_in_thread(pin: bool, lock_pages: bool) -> bool:
    """Whether batches are loaded by a pin-memory thread: when they are pinned by copying, as in
    PyTorch. Page-locked slots need no copy, so the training thread takes their batches itself:
    a thread copying beside the training loop competes with it for the GIL (on a GPU machine the
    thread cost a plain loop's SimpleCNN step at batch 32 about 200 us a batch)."""
    return pin and not lock_pages


def _describe(index) -> str:
    if isinstance(index, list):
        shown = index if len(index) <= 8 else index[:3] + ["..."] + index[-2:]
        return "the batch of indices [" + ", ".join(str(i) for i in shown) + "]"
    return "a batch of its iterator" if index is None else f"index {index}"


