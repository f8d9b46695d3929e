"""DataLoader(pin_memory=True): batches in page-locked memory and asynchronous copies to the GPU
(core-runtime pinned_memory.h). The GPU tests run on a GPU machine; without one, pinning is
refused with the reason and the DataLoader keeps ordinary memory."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad.utils.data import DataLoader, Dataset, TensorDataset
from glassgrad.utils.data._utils import pin_memory as P


@pytest.fixture(autouse=True)
def tensors_start_on_the_host():
    """Tensors these tests make without a device start in host memory, as a DataLoader's batches
    do: on a GPU machine the default device is the GPU (glassgrad.default_device)."""
    before = gg.default_device()
    gg.set_default_device("cpu")
    yield
    gg.set_default_device(before)


def test_without_a_gpu_pinned_tensors_are_refused_with_the_reason():
    if gg.cuda.is_available():
        pytest.skip("checks the machine without a GPU")
    assert gg._C.pinned_memory_available() is False
    with pytest.raises(gg.DeviceError, match="page-locked memory needs a usable CUDA GPU"):
        gg._C.Tensor.from_numpy(np.zeros(3, np.float32), "cpu", "x", True)
    assert gg._C.pinned_memory_stats()["blocks"] == 0


def test_pin_memory_walks_containers_like_torch():
    calls = []

    class Custom:
        def pin_memory(self):
            calls.append(1)
            return self
    t = gg.tensor(np.zeros(2, np.float32), device="cpu")
    data = {"a": [t, "s"], "b": (3, Custom())}
    if not gg.cuda.is_available():
        with pytest.raises(gg.DeviceError):
            P.pin_memory(data)
        return
    out = P.pin_memory(data)
    assert P.is_pinned(out["a"][0]) and out["a"][1] == "s" and out["b"][0] == 3 and calls == [1]


def test_tensor_pin_memory_and_is_pinned_as_torch():
    t = gg.tensor(np.arange(6, dtype=np.float32).reshape(2, 3), device="cpu")
    assert t.is_pinned() is False
    with pytest.raises(gg.DeviceError, match=r"requires grad[\s\S]*fix: x.detach\(\).pin_memory\(\)"):
        gg.tensor(np.zeros(2, np.float32), requires_grad=True).pin_memory()
    if not gg.cuda.is_available():
        with pytest.raises(RuntimeError, match="page-locked memory needs a usable CUDA GPU"):
            t.pin_memory()  # PyTorch raises RuntimeError without an accelerator too
        return
    p = t.pin_memory()
    assert p.is_pinned() and p.device == "cpu" and p is not t
    np.testing.assert_array_equal(p.cpu().numpy(), t.cpu().numpy())
    assert p.pin_memory() is p  # pinned already
    assert t.to("cuda").is_pinned() is False
    with pytest.raises(gg.DeviceError, match=r"only CPU tensors can be pinned[\s\S]*fix"):
        t.to("cuda").pin_memory()


def test_to_takes_non_blocking_and_copy_by_position_as_torch():
    torch = pytest.importorskip("torch")
    a = np.arange(4, dtype=np.float32)
    for args in [("cpu",), (gg.float32, False, True), ("cpu", gg.float64, False, True), (gg.float32, True, False),
                 ("cpu", gg.float32, True)]:
        t, tt = gg.tensor(a), torch.from_numpy(a.copy())
        targs = tuple(x if isinstance(x, bool) or x == "cpu" else getattr(torch, str(x).split(".")[-1]) for x in args)
        out, tout = t.to(*args), tt.to(*targs)
        assert (out is t) == (tout is tt), args
        assert str(out.dtype).split(".")[-1] == str(tout.dtype).split(".")[-1], args
        np.testing.assert_array_equal(out.numpy(), tout.numpy())
    t = gg.tensor(a)
    assert t.to("cpu", non_blocking=True, copy=True) is not t
    assert t.to(t, False, True) is not t and t.to(t, True) is t
    with pytest.raises(TypeError, match=r"non_blocking and copy follow a dtype or a tensor"):
        t.to("cpu", True)  # PyTorch refuses a bool right after a device too
    assert t.cpu() is t


def _queue_gpu_work():
    """A few big matmuls queued on the GPU's stream, so copies queued after them wait there."""
    x = gg.tensor(np.random.default_rng(0).random((2048, 2048), dtype=np.float32) * 1e-3, device="cuda")
    for _ in range(8):
        x = x @ x
    x._raw()  # launched, not waited for
    return x


@pytest.mark.cuda
def test_non_blocking_copies_from_pinned_memory_read_blocks_that_are_not_reused_early():
    """to(device, non_blocking=True) returns before the copy ran; the pinned block of a source
    that dies at once is handed out again only after its copy has read it."""
    a = np.arange(1 << 18, dtype=np.float32)
    keep = _queue_gpu_work()
    copies = []
    for i in range(16):
        t = gg.tensor(a + i).pin_memory()
        assert t.is_pinned()
        copies.append(t.to("cuda", non_blocking=True) if i % 2 else t.cuda(non_blocking=True))
        del t
    for i, d in enumerate(copies):
        assert d.device == "cuda:0"
        np.testing.assert_array_equal(d.cpu().numpy(), a + i)
    del keep


@pytest.mark.cuda
def test_a_blocking_copy_from_pinned_memory_lets_the_host_write_the_source_right_after():
    """to(device) without non_blocking: once it returns, writing the pinned source does not
    change the copy, however much work the GPU had queued before it (PyTorch's synchronous copy)."""
    a = np.arange(1 << 18, dtype=np.float32)
    t = gg.tensor(a).pin_memory()
    ptr = t._raw().data_ptr
    keep = _queue_gpu_work()
    d = t.to("cuda")
    t.fill_(-1.0)
    assert t.cpu().numpy()[0] == -1.0 and t._raw().data_ptr == ptr  # the host wrote the same pinned bytes
    np.testing.assert_array_equal(d.cpu().numpy(), a)
    del keep


@pytest.mark.cuda
def test_pinned_tensor_copies_to_the_gpu_and_blocks_are_reused():
    gg._C.empty_pinned_cache()
    a = np.arange(1 << 16, dtype=np.float32)
    raw = gg._C.Tensor.from_numpy(a, "cpu", "x", True)
    assert raw.is_pinned() and raw.device == "cpu"
    stats = gg._C.pinned_memory_stats()
    assert stats["blocks"] >= 1 and stats["bytes_in_use"] >= a.nbytes
    for i in range(20):  # each batch's block is reused once its copy has finished
        with P.pinning(True):
            t = P.new_tensor(a + i)
        assert P.is_pinned(t)
        d = t.to("cuda")
        del t
        np.testing.assert_array_equal(d.cpu().numpy(), a + i)
    assert gg._C.pinned_memory_stats()["allocations"] <= stats["allocations"] + 3
    del raw
    gg._C.empty_pinned_cache()


@pytest.mark.cuda
@pytest.mark.parametrize("workers", [0, 2])
def test_data_loader_pins_batches_and_they_reach_the_gpu_intact(workers):
    x = np.random.default_rng(0).random((64, 3, 8, 8)).astype(np.float32)
    y = np.arange(64)
    loader = DataLoader(TensorDataset(x, y), batch_size=16, num_workers=workers, pin_memory=True)
    seen = []
    for xb, yb in loader:
        assert P.is_pinned(xb) and P.is_pinned(yb)
        xd, yd = xb.to("cuda"), yb.to("cuda")
        seen.append((xd, yd))
    got_x = np.concatenate([a.cpu().numpy() for a, _ in seen])
    got_y = np.concatenate([b.cpu().numpy() for _, b in seen])
    np.testing.assert_array_equal(got_x, x)
    np.testing.assert_array_equal(got_y, y)


@pytest.mark.cuda
def test_pinned_batches_of_a_custom_dataset_through_workers():
    class Images(Dataset):
        def __len__(self):
            return 40

        def __getitem__(self, i):
            return {"img": np.full((3, 32, 32), i, np.float32), "label": i}
    for batch in DataLoader(Images(), batch_size=8, num_workers=2, pin_memory=True):
        assert P.is_pinned(batch["img"]) and P.is_pinned(batch["label"])
        on_gpu = batch["img"].to("cuda")
        np.testing.assert_array_equal(on_gpu.cpu().numpy()[:, 0, 0, 0], batch["label"].cpu().numpy().astype(np.float32))


@pytest.mark.cuda
def test_numpy_data_for_the_gpu_is_staged_in_pinned_memory_and_blocks_are_reused():
    # A plain loop's batches from NumPy: each is copied into a pinned block and queued, and the
    # blocks come back once their copies finish (docs/cuda.md, "At run time").
    gg._C.empty_pinned_cache()
    rng = np.random.default_rng(0)
    first = None
    for i in range(20):
        a = rng.random((32, 1, 28, 28), dtype=np.float32)
        expected = a.copy()
        t = gg.tensor(a, device="cuda")
        a += 1  # the caller's array is free as soon as tensor() returns
        np.testing.assert_array_equal(t.cpu().numpy(), expected)
        if first is None:
            first = gg._C.pinned_memory_stats()["allocations"]
    assert first >= 1
    assert gg._C.pinned_memory_stats()["allocations"] <= first + 3
    # A whole data set moved once (over 64 MiB) goes from ordinary memory: nothing pinned is kept.
    held = gg._C.pinned_memory_stats()
    big = np.ones((80 << 20) // 4, np.float32)
    np.testing.assert_array_equal(gg.tensor(big, device="cuda")[:3].cpu().numpy(), [1, 1, 1])
    after = gg._C.pinned_memory_stats()
    assert after["allocations"] == held["allocations"]
    assert after["bytes_in_use"] + after["bytes_cached"] == held["bytes_in_use"] + held["bytes_cached"]
    gg._C.empty_pinned_cache()


def test_numpy_data_for_the_cpu_stays_in_ordinary_memory():
    t = gg._C.Tensor.from_numpy(np.arange(4, dtype=np.float32), "cpu", "x")
    assert not t.is_pinned()


@pytest.mark.cuda
@pytest.mark.parametrize("lock_slots", ["1", "0"])
def test_worker_batches_feed_the_gpu_intact_while_copies_queue_behind_gpu_work(monkeypatch, lock_slots):
    """With locked slots the loop takes batches over the workers' page-locked slots (no
    pin-memory thread) and a slot goes back to its worker only after the copy that reads it; with
    GLASSGRAD_DATALOADER_LOCK_SLOTS=0 a pin-memory thread copies them out. Either way every batch
    arrives intact, though each copy waits behind queued GPU work and the CPU batch dies at once."""
    monkeypatch.setenv("GLASSGRAD_DATALOADER_LOCK_SLOTS", lock_slots)
    rng = np.random.default_rng(3)
    x = rng.random((384, 3, 16, 16)).astype(np.float32)
    y = np.arange(384)
    loader = DataLoader(TensorDataset(x, y), batch_size=32, num_workers=2, pin_memory=True, persistent_workers=True)
    for _ in range(2):  # the second epoch reuses every slot
        keep = _queue_gpu_work()
        it = iter(loader)
        assert (it._loading_thread is None) == (lock_slots == "1")
        copies = []
        for xb, yb in it:
            assert P.is_pinned(xb) and P.is_pinned(yb)
            copies.append((xb.to("cuda", non_blocking=True), yb.to("cuda")))
            del xb, yb
        np.testing.assert_array_equal(np.concatenate([a.cpu().numpy() for a, _ in copies]), x)
        np.testing.assert_array_equal(np.concatenate([b.cpu().numpy() for _, b in copies]), y)
        del keep


@pytest.mark.cuda
def test_an_in_place_write_of_a_copied_source_waits_for_the_copy():
    """to(device) returns before its copy from pinned memory ran; an in-place op on the source
    right after (realized at once) must not change what the copy reads."""
    a = np.arange(1 << 18, dtype=np.float32)
    t = gg.tensor(a).pin_memory()
    keep = _queue_gpu_work()
    d = t.cuda(non_blocking=True)
    t.mul_(-2.0)
    gg.realize(t)
    np.testing.assert_array_equal(d.cpu().numpy(), a)
    np.testing.assert_array_equal(t.cpu().numpy(), -2.0 * a)
    del keep
