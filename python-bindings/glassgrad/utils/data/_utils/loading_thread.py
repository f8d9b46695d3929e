"""The pin-memory thread: with DataLoader(pin_memory=True, num_workers > 0) a thread of the
training process takes the workers' messages off the result pipe and copies each batch out of
its shared-memory slot into pinned memory, as PyTorch's pin-memory thread does; the training
loop then only takes finished batches off a queue. The copy itself runs without the GIL
(Tensor.from_numpy gives it up for large arrays), so it overlaps the training step on another
core instead of adding to it (docs/data-loading.md, "How a batch reaches the GPU").

Invariants:
- While the thread runs it is the result pipe's only reader; the main process reads the pipe
  again (to drain it at shutdown) only after stop() has joined the thread.
- Everything that comes off the pipe goes onto the queue in the order it came, a batch loaded
  (its slot already free again), everything else as it is; a broken pipe or a failed copy goes
  onto the queue too, and get() raises it in the training thread."""
from __future__ import annotations

import queue
import threading
from typing import Any

from .... import _C
from . import transport as _transport

_POLL_SECONDS = 0.1  # how often the thread looks whether it should stop
_JOIN_SECONDS = 5.0  # how long stop() waits for it


class _Broken:
    """The result pipe failed (every worker gone): get() raises `error` again."""

    def __init__(self, error: BaseException):
        self.error = error


class LoadFailed:
    """Copying a batch out of its slot failed (e.g. no pinned memory to lock): the training
    thread raises `error` when the batch's turn comes."""

    def __init__(self, error: BaseException):
        self.error = error

    def reraise(self):
        if hasattr(self.error, "add_note"):
            self.error.add_note("(raised in the DataLoader's pin-memory thread while copying a batch into pinned "
                                "memory)")
        raise self.error


class LoadingThread:
    """get(timeout) as the result pipe's, with every batch already loaded by `receiver`."""

    def __init__(self, pipe, receiver: "_transport.Receiver", pin: bool):
        self._pipe, self._receiver, self._pin = pipe, receiver, pin
        self._queue: "queue.Queue[Any]" = queue.Queue()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="glassgrad DataLoader pin_memory", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        if self._pin:
            # The GPU's context made current on this thread first, as PyTorch's pin-memory thread
            # sets its device: the pinned pool queries the events of earlier copies before it hands
            # a block out (core-runtime's pinned_memory.h). Should it fail, the copy's own call
            # reports why.
            try:
                _C.cuda_mem_get_info(0)
            except Exception:
                pass
        while not self._stop.is_set():
            try:
                idx, data = self._pipe.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                continue
            except (EOFError, OSError, ConnectionError) as e:
                self._queue.put(_Broken(e))
                return
            if _transport.is_message(data):
                try:
                    data = self._receiver.load(data, self._pin)
                except Exception as e:  # raised again in the training thread
                    data = LoadFailed(e)
            self._queue.put((idx, data))
            # Holds nothing while waiting: a failed batch's exception, once raised in the training
            # thread, references the iterator, which stops this thread only when it is collected.
            idx = data = None

    def get(self, timeout=None) -> Any:
        item = self._queue.get(timeout=timeout)
        if isinstance(item, _Broken):
            self._queue.put(item)  # every later get fails alike
            raise item.error
        return item

    def stop(self) -> None:
        """Stops the thread and waits for it (one poll interval and one batch's copy; at most
        _JOIN_SECONDS: at interpreter exit a daemon thread may never run again)."""
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=_JOIN_SECONDS)
