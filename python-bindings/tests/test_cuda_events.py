"""glassgrad.cuda.Event, Stream, stream, current_stream, default_stream (_cuda_streams.py,
docs/cuda.md "Events and streams"): without a GPU, PyTorch's answers and errors; with one (marked
cuda: the GPU run), events time the ops written before them."""
import math

import numpy as np
import pytest

import glassgrad as gg

NO_GPU = not gg.cuda.is_available()
needs_gpu = pytest.mark.skipif(NO_GPU, reason="needs a usable GPU")
without_gpu = pytest.mark.skipif(not NO_GPU, reason="checks the answers without a GPU")


def test_an_event_never_recorded_is_complete_and_cannot_be_timed():
    start, end = gg.cuda.Event(enable_timing=True), gg.cuda.Event(enable_timing=True)
    assert start.query() is True
    start.synchronize()  # nothing to wait for
    assert "uninitialized" in repr(start)
    with pytest.raises(RuntimeError, match="Both events must be recorded"):
        start.elapsed_time(end)
    with pytest.raises(RuntimeError, match="enable_timing=True"):
        gg.cuda.Event().elapsed_time(end)


@without_gpu
def test_without_a_gpu_recording_and_streams_raise_device_errors():
    with pytest.raises(gg.DeviceError, match="cannot be used"):
        gg.cuda.Event().record()
    with pytest.raises(gg.DeviceError, match="cannot be used"):
        gg.cuda.Stream()
    with pytest.raises(gg.DeviceError):
        gg.cuda.current_stream()


@pytest.mark.cuda
@needs_gpu
def test_events_time_the_ops_written_between_them():
    a = gg.randn(1024, 1024, device="cuda")
    gg.realize(a)
    start, end = gg.cuda.Event(enable_timing=True), gg.cuda.Event(enable_timing=True)
    start.record()
    y = (a @ a).relu().sum()  # recorded lazily: end.record() computes it first
    end.record()
    end.synchronize()
    assert end.query() and start.query()
    elapsed = start.elapsed_time(end)
    assert isinstance(elapsed, float) and math.isfinite(elapsed)  # a measured interval, not a speed bound
    np.testing.assert_allclose(float(y), float(np.maximum(a.cpu().numpy() @ a.cpu().numpy(), 0).sum()), rtol=1e-3)
    assert "on cuda:0" in repr(end)


@pytest.mark.cuda
@needs_gpu
def test_streams_name_the_devices_one_stream():
    s = gg.cuda.Stream()
    assert s == gg.cuda.default_stream() == gg.cuda.current_stream()
    with gg.cuda.stream(s):
        assert gg.cuda.current_stream() is s
        x = gg.ones(1000, device="cuda") * 3
        e = s.record_event()
    s.wait_stream(gg.cuda.default_stream())
    s.synchronize()
    e.synchronize()
    assert e.query() and s.query()
    assert float(x.sum()) == 3000.0
    timing_off = gg.cuda.Event()
    timing_off.record()
    with pytest.raises(RuntimeError, match="enable_timing=True"):
        timing_off.elapsed_time(e)
