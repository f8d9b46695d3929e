"""torch.cuda.Event, Stream, stream, current_stream and default_stream (docs/cuda.md, "Events and
streams").

glassgrad queues every kernel and copy of a device on one stream, so a Stream object is a name
for that stream: work a script puts "on another stream" runs in the same order it was issued,
which is one of the orders PyTorch allows, and wait_stream / wait_event have nothing to wait
for. Events are real driver events on that stream. Because glassgrad records ops lazily,
Event.record() first computes everything pending (as glassgrad.realize() does), so the event
follows the kernels of the ops written before it: `start.record(); y = model(x); end.record();
end.synchronize(); start.elapsed_time(end)` times the model, as in PyTorch."""
from __future__ import annotations

import threading
from typing import Optional

from . import _C
from . import cuda as _cuda


def _device_index(device) -> int:
    if device is None:
        return _cuda.current_device()
    if isinstance(device, Stream):
        return device.device_index
    return _cuda._index(device)


class Stream:
    """A device's stream (torch.cuda.Stream): glassgrad's one stream for that device. priority is
    accepted and changes nothing. A DeviceError when the device cannot be used."""

    def __init__(self, device=None, priority: int = 0, **kwargs):
        self.device_index = _device_index(device)
        _cuda.device_info(self.device_index)  # the reason, now, when the GPU cannot be used
        self.priority = int(priority)

    @property
    def device(self):
        from ._device import device as make_device
        return make_device("cuda", self.device_index)

    def query(self) -> bool:
        """Whether everything queued on the device so far has finished."""
        e = Event()
        e.record(self)
        return e.query()

    def synchronize(self) -> None:
        """Waits until everything queued on the device has finished."""
        from ._runtime import realize
        realize()
        _cuda.synchronize(self.device_index)

    def wait_event(self, event: "Event") -> None:
        """Nothing to wait for: work issued after this call already follows the event's."""

    def wait_stream(self, stream: "Stream") -> None:
        """Nothing to wait for: both name the device's one stream."""

    def record_event(self, event: Optional["Event"] = None) -> "Event":
        event = Event() if event is None else event
        event.record(self)
        return event

    def __eq__(self, other) -> bool:
        return isinstance(other, Stream) and other.device_index == self.device_index

    def __hash__(self) -> int:
        return hash(("cuda stream", self.device_index))

    def __repr__(self) -> str:
        return f"<glassgrad.cuda.Stream device=cuda:{self.device_index} (the device's one stream)>"


class Event:
    """torch.cuda.Event(enable_timing=False, blocking=False, interprocess=False): a marker in a
    device's stream. The driver event is made at the first record(), on that stream's device.
    blocking and interprocess are accepted; interprocess sharing is not offered (ipc_handle
    raises)."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False):
        self.enable_timing = bool(enable_timing)
        self.blocking = bool(blocking)
        self.interprocess = bool(interprocess)
        self._handle: Optional[int] = None
        self._index: Optional[int] = None

    def record(self, stream: Optional[Stream] = None) -> None:
        """Marks the stream after every op written so far (pending ops are computed first)."""
        from ._runtime import realize
        index = _device_index(stream)
        if self._handle is None:
            self._handle = _C.cuda_event_create(index, self.enable_timing)
            self._index = index
        elif index != self._index:
            raise _C.DeviceError(f"Event.record: this event was made on cuda:{self._index}, not cuda:{index}\n"
                                 "  fix: one Event per device")
        realize()
        _C.cuda_event_record(self._handle, index)

    def wait(self, stream: Optional[Stream] = None) -> None:
        """Nothing to wait for: work issued after this call already follows the event's."""

    def query(self) -> bool:
        """Whether the work before the event has finished (True for an event never recorded)."""
        return True if self._handle is None else bool(_C.cuda_event_query(self._handle))

    def synchronize(self) -> None:
        """Waits until the work before the event has finished."""
        if self._handle is not None:
            _C.cuda_event_synchronize(self._handle)

    def elapsed_time(self, end_event: "Event") -> float:
        """Milliseconds from this event to end_event (both recorded with enable_timing=True)."""
        if not (self.enable_timing and end_event.enable_timing):
            raise _C.TensorStateError("Both events must be created with argument 'enable_timing=True'.\n"
                                      "  fix: glassgrad.cuda.Event(enable_timing=True)")
        if self._handle is None or end_event._handle is None:
            raise _C.TensorStateError("Both events must be recorded before calculating elapsed time.\n"
                                      "  fix: start.record(); ...; end.record(); end.synchronize()")
        return float(_C.cuda_event_elapsed_ms(self._handle, end_event._handle))

    def ipc_handle(self):
        raise _C.UnsupportedError("Event.ipc_handle: glassgrad does not share CUDA events between processes\n"
                                  "  fix: synchronize in the process that recorded the event")

    def __del__(self) -> None:
        if getattr(self, "_handle", None) is not None:
            try:
                _C.cuda_event_destroy(self._handle)
            except Exception:  # interpreter shutdown: the driver may be gone
                pass

    def __repr__(self) -> str:
        return "<glassgrad.cuda.Event uninitialized>" if self._handle is None else \
            f"<glassgrad.cuda.Event {hex(self._handle)} on cuda:{self._index}>"


_current = threading.local()
_defaults: dict = {}


def default_stream(device=None) -> Stream:
    """The device's stream (glassgrad has one per device)."""
    index = _device_index(device)
    if index not in _defaults:
        _defaults[index] = Stream(index)
    return _defaults[index]


def current_stream(device=None) -> Stream:
    """The stream `with glassgrad.cuda.stream(s)` selected on this thread, else the default."""
    chosen = getattr(_current, "stream", None)
    if chosen is not None and (device is None or chosen.device_index == _device_index(device)):
        return chosen
    return default_stream(device)


def set_stream(stream: Stream) -> None:
    _current.stream = stream


class StreamContext:
    """torch.cuda.StreamContext(stream): current_stream() is stream inside the block, the one before
    after it; None changes nothing (GPU or not, as PyTorch's)."""

    def __init__(self, stream: Optional[Stream]):
        self.stream = stream
        self._before: Optional[Stream] = None

    def __enter__(self) -> None:
        if self.stream is not None:
            self._before = getattr(_current, "stream", None)
            _current.stream = self.stream

    def __exit__(self, *exc) -> None:
        if self.stream is not None:
            _current.stream = self._before


def stream(s: Optional[Stream]) -> StreamContext:
    """torch.cuda.stream(s): a StreamContext (current_stream() is s inside the block; None: unchanged)."""
    return StreamContext(s)
