"""The pipes between the DataLoader's main process and its workers: one from the main process to
each worker (the batches' indices) and one from all workers to the main process (the batches'
descriptions, errors, end-of-data marks).

They are plain pipes written directly by the sending thread, where multiprocessing.Queue would
hand each message to a feeder thread and take a lock and build a selector on every get: the main
process feeds the GPU between steps, and every microsecond it spends per batch adds to a step
(docs/data-loading.md, "What the training process does per batch"). The bytes of the tensors never
travel here (they are in shared memory, see transport.py); a message is a small pickle. The reader
takes whatever the pipe holds in one read and keeps what it did not use yet, so messages that
arrived while the training step ran cost no system call each.

Invariants:
- Each message is a frame: its length (8 bytes, little-endian), then the pickle; a small frame is
  one write. The result pipe has several writers, so a worker writes a whole frame under the
  channel's lock; the index pipe of a worker has one writer (the main process's iterating thread)
  and one reader.
- The main process closes its copy of a worker's reading end once the worker has started, so a
  write to a worker that died fails (BrokenPipeError) instead of blocking on a full pipe.
- Pipes are enlarged to 1 MiB where the system allows, so a writer blocks only when that much is
  unread; the main process drains the result pipe while it waits for its workers to stop."""
from __future__ import annotations

import os
import pickle
import queue
import select
import struct
import sys
from typing import Any, Optional

_PIPE_BYTES = 1 << 20
_READ_BYTES = 1 << 16  # what one read asks for: many messages, or a part of a large one
_HEADER = struct.Struct("<Q")
_ONE_WRITE = 1 << 16  # frames up to this size are written by one call (header and pickle joined)


def _write_frame(conn, data: bytes) -> None:
    """Writes one frame on the connection's pipe; OSError (BrokenPipeError) when the reading end
    is gone, as the connection's own send_bytes."""
    fd = conn.fileno()
    header = _HEADER.pack(len(data))
    if len(data) <= _ONE_WRITE:
        frame = header + data
        written = os.write(fd, frame)
        if written == len(frame):  # the usual case: the pipe had room for it
            return
        parts = [memoryview(frame)[written:]]
    else:
        parts = [memoryview(header), memoryview(data)]
    for part in parts:
        while part:
            part = part[os.write(fd, part):]


def _enlarge(conn) -> None:
    """Asks for a 1 MiB pipe buffer (Linux F_SETPIPE_SZ); the default 64 KiB stays otherwise."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import fcntl
        fcntl.fcntl(conn.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), _PIPE_BYTES)
    except (OSError, ValueError):
        pass


class _Reader:
    """The receiving end: get(timeout) raises queue.Empty when nothing came in time and EOFError
    when every writer has gone."""

    def __init__(self, conn, nonblocking: bool = False):
        self._conn = conn
        self._poll: Any = None  # a select.poll, made at the first wait
        self._buf = b""  # bytes read but not yet returned: whole frames, then part of one
        self._pos = 0
        # A non-blocking reading end is read first and polled only when it is empty: when a
        # message is already waiting (the workers are ahead of the training loop), one system
        # call instead of two.
        self._nonblocking = nonblocking and hasattr(os, "set_blocking")
        if self._nonblocking:
            os.set_blocking(conn.fileno(), False)

    def _frame(self) -> Optional[bytes]:
        """The next whole frame's pickle from what was read, or None."""
        start = self._pos + _HEADER.size
        if len(self._buf) < start:
            return None
        (n,) = _HEADER.unpack_from(self._buf, self._pos)
        if len(self._buf) < start + n:
            return None
        self._pos = start + n
        return self._buf[start:start + n]

    def _fill(self) -> None:
        """Appends what the pipe holds now (it is readable); EOFError when every writer has gone."""
        data = os.read(self._conn.fileno(), _READ_BYTES)
        if not data:
            raise EOFError
        self._buf = self._buf[self._pos:] + data if self._pos < len(self._buf) else data
        self._pos = 0

    def _ready(self, timeout) -> bool:
        if self._poll is None:
            if not hasattr(select, "poll"):  # pragma: no cover - no poll(): the connection's own wait
                return self._conn.poll(timeout)
            self._poll = select.poll()
            self._poll.register(self._conn.fileno(), select.POLLIN)
        ms = None if timeout is None else max(0, int(timeout * 1000))
        return bool(self._poll.poll(ms))

    def get(self, timeout=None) -> Any:
        frame = self._frame()
        while frame is None:
            # Nothing whole yet. A frame already begun is finished at once by its writer.
            if self._nonblocking:
                try:
                    self._fill()
                    frame = self._frame()
                    continue
                except BlockingIOError:
                    pass  # empty: wait below
            if not self._ready(timeout):
                raise queue.Empty
            self._fill()
            frame = self._frame()
        return pickle.loads(frame)

    def drain(self) -> None:
        """Reads and drops whatever is waiting (writers blocked on a full pipe can go on)."""
        self._buf, self._pos = b"", 0
        try:
            while self._ready(0):
                if not os.read(self._conn.fileno(), _PIPE_BYTES):
                    break
        except (EOFError, OSError):
            pass
        except RuntimeError:
            pass  # a pin-memory thread that could not be stopped (interpreter exit) is still polling

    def close(self) -> None:
        self._poll = None
        self._buf, self._pos = b"", 0
        self._conn.close()


class IndexPipe:
    """Main process -> one worker. The worker calls get(); the main process put()."""

    def __init__(self, context):
        reader, self._writer = context.Pipe(duplex=False)
        _enlarge(self._writer)
        self._reader = _Reader(reader)

    def put(self, obj) -> None:
        _write_frame(self._writer, pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))

    def get(self, timeout=None):
        return self._reader.get(timeout)

    def started(self) -> None:
        """Called in the main process once the worker holds its end: the main process's copy of
        the reading end is closed (see the invariants above)."""
        self._reader.close()

    def close(self) -> None:
        self._writer.close()
        if not self._reader._conn.closed:  # the worker never started
            self._reader.close()

    def __getstate__(self):  # only the reading end travels to a spawned worker
        return {"_reader": self._reader._conn, "_writer": None}

    def __setstate__(self, state):
        self._reader = _Reader(state["_reader"])
        self._writer = None


class ResultPipe:
    """All workers -> the main process. Workers put(); the main process get()s."""

    def __init__(self, context):
        reader, self._writer = context.Pipe(duplex=False)
        _enlarge(self._writer)
        self._lock = context.Lock()
        self._reader = _Reader(reader, nonblocking=True)  # only the main process reads it

    def put(self, obj) -> None:
        data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        with self._lock:
            _write_frame(self._writer, data)

    def get(self, timeout=None):
        return self._reader.get(timeout)

    def drain(self) -> None:
        self._reader.drain()

    def close(self) -> None:
        self._reader.close()
        self._writer.close()

    def __getstate__(self):  # only the writing end and the lock travel to a spawned worker
        return {"_writer": self._writer, "_lock": self._lock}

    def __setstate__(self, state):
        self._writer, self._lock, self._reader = state["_writer"], state["_lock"], None
