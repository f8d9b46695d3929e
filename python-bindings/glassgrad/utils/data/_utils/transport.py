"""How a worker's batch reaches the main process: pickled, with the bytes of its tensors beside
the pickle in shared memory, so the main process reads them where the worker wrote them.

The worker pickles the batch (protocol 5) with every glassgrad tensor reduced to its NumPy bytes
as an out-of-band buffer; all other objects, NumPy arrays included, stay inside the pickle. The
buffers go into one of the worker's shared-memory slots (a block per slot, grown when a batch
outgrows it) and only the pickle and the buffers' places travel through the result queue; the
main process unpickles against views of the slot. The batch's tensors are the slot's bytes
themselves (no copy), and the slot is lent to the batch until its last tensor is gone. With
pin_memory the main process page-locks each slot once, in place (register_pinned_range), so those
tensors are pinned too and go to the GPU by asynchronous copies without a pin-memory thread; a
slot goes back to its worker only after the copies that read it have finished. Where locking is
refused, each tensor is a copy in pinned memory and the slot is free again at once. With no free
slot (or a small batch) the buffers travel inside the message.

Slot states live in a small shared array the main process makes for each worker: 0 free, 1 in
use. A slot is reused only when no tensor of the main process refers to its bytes any more (the
lease is dropped with the last one, or everything was copied out)."""
from __future__ import annotations

import io
import math
import mmap
import os
import pickle
import secrets
import sys
import threading
from typing import Any, Dict, List, NamedTuple, Optional, Tuple, Union, cast

import numpy as np

from .... import _C
from ...._tensor import Tensor, _wrap
from . import pin_memory as _pin
from .array_tensor import host_array

_wrap_array, _lazy_leaf = _C.Tensor.wrap_array, _C.lazy_leaf  # per batch tensor (Receiver.load)
_INLINE_LIMIT = 64 << 10   # batches whose tensors hold fewer bytes travel inside the message
_ALIGN = 64
_SHM_DIR = "/dev/shm"


def _aligned(n: int) -> int:
    return (n + _ALIGN - 1) // _ALIGN * _ALIGN


_loading = threading.local()  # .lease: the slot lease of the message being unpickled on this thread


class _SlotLease:
    """A slot lent to the batch unpickled from it: its tensors are the slot's own bytes (no copy),
    and the slot goes back to its worker when the last of them is gone (the runtime drops the
    lease with the tensors' storage, see _C.Tensor.wrap_array). A page-locked slot (address set)
    goes back once the GPU copies that read it have finished: the worker writes it next."""

    __slots__ = ("states", "slot", "address")

    def __init__(self, states, slot: int, address: int = 0):
        self.states, self.slot, self.address = states, slot, address

    def __del__(self):
        try:
            if self.address:
                _C.wait_pinned_reads_at(self.address)
        finally:
            self.states[self.slot] = 0


def _rebuild_tensor(buffer, dtype: str, shape: Tuple[int, ...]) -> Tensor:
    """Unpickling in the main process: a tensor over the slot's bytes while a lease is being
    handed out (pinned when the slot is page-locked), else a tensor holding a copy of the
    worker's bytes (pinned, or inline bytes)."""
    arr = np.frombuffer(buffer, dtype=dtype).reshape(shape)
    lease = getattr(_loading, "lease", None)
    if lease is not None:
        return _pin.new_leaf(_C.Tensor.wrap_array(arr, lease, "batch"))
    return _pin.new_tensor(arr)


def _rebuild(data: Union[bytes, tuple], buffers) -> Any:
    """The batch of a message's pickle (or tensor layout, see Message) and its buffers."""
    if type(data) is tuple:
        return [_rebuild_tensor(b, dtype, shape) for b, (dtype, shape) in zip(buffers, data)]
    return pickle.loads(cast(bytes, data), buffers=buffers)


def _contiguous(a: np.ndarray) -> np.ndarray:
    """`a` itself when C-contiguous, else a contiguous copy; a 0-d array stays 0-d (which
    np.ascontiguousarray would make 1-d)."""
    return a if a.flags.c_contiguous else np.ascontiguousarray(a)


class _Pickler(pickle.Pickler):
    """Tensors become out-of-band buffers of their bytes; everything else pickles as usual."""

    def __init__(self, file, buffers: list):
        self._ours: Dict[int, pickle.PickleBuffer] = {}
        self._buffers = buffers
        super().__init__(file, protocol=5, buffer_callback=self._callback)

    def _callback(self, buf: pickle.PickleBuffer):
        if id(buf) in self._ours:
            self._buffers.append(buf)
            return False  # out of band
        return True  # another object's buffer (a NumPy array): inside the pickle

    def reducer_override(self, obj):
        # A subclass with its own __reduce__ (tv_tensors: the type and its metadata around a plain
        # tensor) pickles by it; the plain tensor inside comes back here.
        if isinstance(obj, Tensor) and type(obj).__reduce__ is Tensor.__reduce__:
            arr = _contiguous(host_array(obj))
            buf = pickle.PickleBuffer(arr)
            self._ours[id(buf)] = buf  # kept alive: ids stay unique while pickling
            return _rebuild_tensor, (buf, arr.dtype.str, arr.shape)
        return NotImplemented


class Message(NamedTuple):
    """One batch on its way: the pickle, and the tensors' bytes inline or in a slot. `pickle` is
    the batch's pickle, or for a batch that is a list of tensors (default_collate of tuple
    samples: the common case) a tuple of each tensor's (dtype, shape) in the buffers' order, which
    needs no pickle; `inline` the buffers' bytes when they travel in the message (slot -1), else
    None and the buffers lie in slot `slot` (the block named `name`) at `spans` (offset, length).

    On the result pipe a message is a plain tuple of these fields (message() makes it; readers
    unpack it by position, or Message(*msg) to read it by name): the training process unpickles
    one per batch, and a class would cost it a lookup and a constructor call each time (a plain
    tuple is rebuilt by the unpickler alone, about 0.7 against 3.7 us). Nothing else on the pipe
    is a tuple (errors and end marks are objects of their own classes)."""

    pickle: Union[bytes, tuple]
    inline: Optional[List[bytes]]
    worker_id: int
    slot: int = -1
    name: str = ""
    spans: Tuple[Tuple[int, int], ...] = ()


def message(data: Union[bytes, tuple], inline: Optional[List[bytes]], worker_id: int, slot: int = -1, name: str = "",
            spans: Tuple[Tuple[int, int], ...] = ()) -> tuple:
    """A Message as the plain tuple that travels."""
    return (data, inline, worker_id, slot, name, spans)


def is_message(obj: Any) -> bool:
    """Whether `obj`, taken off the result pipe, is a batch's message."""
    return isinstance(obj, tuple)


def _shm_name(worker_id: int, slot: int) -> str:
    return f"gg_dl_{os.getpid()}_{worker_id}_{slot}_{secrets.token_hex(4)}"


class _Segment:
    """A named shared-memory block: created by a worker, opened by the main process."""

    def __init__(self, name: str, size: int, create: bool):
        self.name, self.size = name, size
        if sys.platform.startswith("linux"):
            # /dev/shm directly: no resource tracker involved (the main process unlinks what a
            # dead worker left, see Receiver.close).
            path = os.path.join(_SHM_DIR, name)
            flags = os.O_RDWR | (os.O_CREAT | os.O_EXCL if create else 0)
            fd = os.open(path, flags, 0o600)
            try:
                if create:
                    os.ftruncate(fd, size)
                self.map = mmap.mmap(fd, size)
            finally:
                os.close(fd)
            self._shm = None
        else:  # pragma: no cover - other systems: the standard library's shared memory
            from multiprocessing import shared_memory
            self._shm = shared_memory.SharedMemory(name=name, create=create, size=size if create else 0)
            self.map = self._shm.buf
        self.view = memoryview(self.map)
        self.address = 0  # where the main process page-locked the mapping (Receiver), else 0
        self._bytes: Optional[np.ndarray] = None
        # (spans, layout) -> the arrays of a list-of-tensors batch at those places (Receiver):
        # a worker sends its batches in the same layout every time, so they are made once.
        self._arrays: Dict[tuple, List[np.ndarray]] = {}

    def bytes(self) -> np.ndarray:
        """The mapping as a uint8 array (made once; dropped by close())."""
        if self._bytes is None:
            self._bytes = np.frombuffer(self.map, dtype=np.uint8)
        return self._bytes

    def arrays(self, spans: Tuple[Tuple[int, int], ...], layout: tuple) -> List[np.ndarray]:
        """The arrays of a batch of tensors of `layout` ((dtype, shape) each) at `spans` of the
        mapping, made the first time (the same ndarray objects serve every batch of that
        layout: each batch's tensors hold them with the batch's lease, and the slot is written
        again only after the lease is gone)."""
        key = (spans, layout)
        found = self._arrays.get(key)
        if found is None:
            if len(self._arrays) >= 64:  # layouts that vary (an iterable data set's last batch, ...)
                self._arrays.clear()
            base = self.bytes()
            found = self._arrays[key] = [base[o:o + n].view(dtype).reshape(shape)
                                         for (o, n), (dtype, shape) in zip(spans, layout)]
        return found

    def lock_pages(self) -> bool:
        """Page-locks the mapping for the GPU's copies (the main process's side)."""
        addr = np.frombuffer(self.map, dtype=np.uint8).ctypes.data
        if _C.register_pinned_range(addr, self.size):
            self.address = addr
        return self.address != 0

    def close(self) -> None:
        if self.address:
            _C.unregister_pinned_range(self.address)  # waits for the copies still reading it
            self.address = 0
        self._bytes = None
        self._arrays = {}
        try:
            self.view.release()
            if self._shm is None:
                self.map.close()
            else:  # pragma: no cover
                self._shm.close()
        except (BufferError, ValueError):
            pass  # a view still exported: the mapping goes with the process

    def unlink(self) -> None:
        unlink(self.name)


def can_lock_pages() -> bool:
    """Whether the main process may page-lock its workers' slots in place (a usable GPU whose
    driver locks memory in place). GLASSGRAD_DATALOADER_LOCK_SLOTS=0 turns it off: batches are
    then copied into pinned memory by a pin-memory thread, as PyTorch's DataLoader does."""
    if os.environ.get("GLASSGRAD_DATALOADER_LOCK_SLOTS", "1") == "0":
        return False
    return sys.platform.startswith("linux") and _C.pinned_memory_available()


def unlink(name: str) -> None:
    if sys.platform.startswith("linux"):
        try:
            os.unlink(os.path.join(_SHM_DIR, name))
        except OSError:
            pass
    else:  # pragma: no cover
        from multiprocessing import shared_memory
        try:
            shared_memory.SharedMemory(name=name).unlink()
        except OSError:
            pass


class Sender:
    """A worker's side: pickles each batch and puts it on the result queue.

    A fetcher that knows the batch's arrays before filling them (a TensorDataset's gather) asks
    for them with arrays(): they are laid out in a free slot, the batch is written there once,
    and send() leaves the bytes where they are. Invariant: at most one slot is claimed that way,
    from arrays() until the next send() or discard(), and its arrays are dropped before the
    worker fetches again (the main process may hand the slot back only after send())."""

    def __init__(self, data_queue, slots, worker_id: int):
        self.queue, self.states, self.worker_id = data_queue, slots, worker_id
        self.segments: List[Optional[_Segment]] = [None] * (len(slots) if slots is not None else 0)
        # The claimed slot: its index, segment, bytes used, and id(array) -> offset of its arrays
        # (alive as long as the claim, so their ids are theirs).
        self._claim: Optional[Tuple[int, _Segment, int, Dict[int, int], List[np.ndarray]]] = None

    def arrays(self, specs: List[Tuple[Tuple[int, ...], np.dtype]]) -> Optional[List[np.ndarray]]:
        """Uninitialised C-contiguous arrays of the given shapes and dtypes in one free slot, for
        the next batch sent; None when the batch is small enough to travel in the message or no
        slot is free (the caller then makes ordinary arrays)."""
        self.discard()
        sizes = [math.prod(shape) * np.dtype(dtype).itemsize for shape, dtype in specs]
        slot = self._slot_for(sum(_aligned(n) for n in sizes))
        if slot is None:
            return None
        i, seg = slot
        base = seg.bytes()
        out, offsets, offset = [], {}, 0
        for (shape, dtype), n in zip(specs, sizes):
            a = base[offset:offset + n].view(dtype).reshape(shape)
            out.append(a)
            offsets[id(a)] = offset
            offset += _aligned(n)
        self._claim = (i, seg, offset, offsets, out)
        return out

    def discard(self) -> None:
        """Gives back the slot arrays() claimed when its batch will not be sent (the fetch failed)."""
        if self._claim is not None:
            self.states[self._claim[0]] = 0
            self._claim = None

    def _send_claimed(self, idx: int, pickled: Union[bytes, tuple], raws: List[memoryview]) -> bool:
        """Sends a batch whose buffers lie in the claimed slot, or fit after what is there: the
        ones outside are copied in. False (nothing sent) when they do not fit."""
        i, seg, used, offsets, _ = self._claim  # type: ignore[misc]
        spans = []
        for r in raws:
            start = offsets.get(id(r.obj))  # the buffer of a whole claimed array (see _Pickler)
            if start is not None and r.nbytes == cast(Any, r.obj).nbytes:
                spans.append((start, r.nbytes))
                continue
            if used + r.nbytes > seg.size:
                return False
            seg.view[used:used + r.nbytes] = r
            spans.append((used, r.nbytes))
            used += _aligned(r.nbytes)
        self._claim = None
        self.queue.put((idx, message(pickled, None, self.worker_id, i, seg.name, tuple(spans))))
        return True

    def _slot_for(self, nbytes: int) -> Optional[Tuple[int, _Segment]]:
        if nbytes < _INLINE_LIMIT or not self.segments:
            return None
        for i in range(len(self.segments)):
            if self.states[i] != 0:
                continue
            seg = self.segments[i]
            if seg is None or seg.size < nbytes:
                if seg is not None:  # the main process copied everything out of it: retire it
                    seg.close()
                    seg.unlink()
                try:
                    seg = _Segment(_shm_name(self.worker_id, i), _aligned(nbytes + nbytes // 4), create=True)
                except OSError:
                    self.segments[i] = None
                    return None  # no shared memory to spare: the bytes travel in the message
                self.segments[i] = seg
            self.states[i] = 1
            return i, seg
        return None

    def send(self, idx: int, data: Any) -> None:
        buffers: List[pickle.PickleBuffer] = []
        described: Union[bytes, tuple]
        if type(data) is list and data and all(type(t) is Tensor for t in data):
            arrays = [_contiguous(host_array(t)) for t in data]
            buffers = [pickle.PickleBuffer(cast(Any, a)) for a in arrays]  # (an ndarray is a buffer)
            described = tuple((a.dtype.str, a.shape) for a in arrays)
        else:
            f = io.BytesIO()
            _Pickler(f, buffers).dump(data)
            described = f.getvalue()
        raws = [b.raw() for b in buffers]
        try:
            if self._claim is not None and self._send_claimed(idx, described, raws):
                return
            # No claim, or buffers that do not fit beside the claimed ones: the claimed slot stays
            # taken until they are copied elsewhere (its arrays may be among them).
            self._send_copied(idx, described, raws)
        finally:
            self.discard()
            for r in raws:
                r.release()

    def _send_copied(self, idx: int, pickled: Union[bytes, tuple], raws: List[memoryview]) -> None:
        total = sum(_aligned(r.nbytes) for r in raws)
        slot = self._slot_for(total)
        if slot is None:
            msg = message(pickled, [bytes(r) for r in raws], self.worker_id)
        else:
            i, seg = slot
            spans, offset = [], 0
            for r in raws:
                seg.view[offset:offset + r.nbytes] = r
                spans.append((offset, r.nbytes))
                offset += _aligned(r.nbytes)
            msg = message(pickled, None, self.worker_id, i, seg.name, tuple(spans))
        self.queue.put((idx, msg))

    def close(self, unlink_blocks: bool) -> None:
        """Unmaps the slots; removes their names too when the main process is gone (it removes
        each name as soon as it opened the block, and what is left when the workers stop)."""
        for seg in self.segments:
            if seg is not None:
                seg.close()
                if unlink_blocks:
                    seg.unlink()
        self.segments = []


class Receiver:
    """The main process's side: unpickles messages against the workers' slots. It removes a
    block's name as soon as it has mapped the block, so nothing is left in the shared-memory
    file system whatever happens to the processes later."""

    def __init__(self, slot_states: List[Any], lock_pages: bool = False):
        self.states = slot_states  # per worker: its shared array of slot states
        self.open: Dict[Tuple[int, int], _Segment] = {}
        self.lock_pages = lock_pages  # page-lock each slot when it is first mapped (pin_memory)

    def release(self, msg: tuple) -> None:
        """A message that will not be loaded (a batch of an abandoned epoch): frees its slot."""
        if is_message(msg) and msg[1] is None:
            self.states[msg[2]][msg[3]] = 0

    def load(self, msg: tuple, pin: bool) -> Any:
        data, inline, worker_id, slot, name, spans = msg
        if inline is not None:
            with _pin.pinning(pin):
                return _rebuild(data, inline)
        seg = self.open.get((worker_id, slot))
        if seg is None or seg.name != name:
            seg = self._segment(worker_id, slot, name, pin)
        if not pin or seg.address:  # the batch's tensors are the slot's bytes; the lease frees the slot
            lease = _SlotLease(self.states[worker_id], slot, seg.address)
            if type(data) is tuple:  # a list of tensors (see Message)
                return [_wrap(_lazy_leaf(_wrap_array(a, lease, "batch"), "input", False, ""))
                        for a in seg.arrays(spans, data)]
            _loading.lease = lease
            try:
                with _pin.pinning(pin):
                    return _rebuild(data, [seg.view[o:o + n] for o, n in spans])
            finally:
                _loading.lease = None
        views = [seg.view[o:o + n] for o, n in spans]
        try:
            try:
                with _pin.pinning(pin):
                    return _rebuild(data, views)
            finally:
                for v in views:
                    v.release()
        finally:
            self.states[worker_id][slot] = 0  # everything is copied out: the worker may reuse it

    def _segment(self, worker_id: int, slot: int, name: str, pin: bool) -> _Segment:
        """The main process's mapping of the block `name` that is now slot `slot` of the worker
        (mapped, and its name removed, when the worker made a new block for the slot)."""
        key = (worker_id, slot)
        seg = self.open.get(key)
        if seg is not None:
            seg.close()
        size = os.stat(os.path.join(_SHM_DIR, name)).st_size if sys.platform.startswith("linux") else 0
        seg = self.open[key] = _Segment(name, size, create=False)
        if sys.platform.startswith("linux"):
            unlink(name)
        if pin and self.lock_pages:
            seg.lock_pages()
        return seg

    def close(self) -> None:
        """Unmaps every slot."""
        for seg in self.open.values():
            seg.close()
        self.open.clear()


def unlink_worker_blocks(pid: int) -> None:
    """Removes every shared-memory block worker `pid` made and left (it was killed)."""
    if not sys.platform.startswith("linux"):
        return
    prefix = f"gg_dl_{pid}_"
    try:
        names = os.listdir(_SHM_DIR)
    except OSError:
        return
    for name in names:
        if name.startswith(prefix):
            unlink(name)
