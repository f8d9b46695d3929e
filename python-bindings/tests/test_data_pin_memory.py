"""DataLoader(pin_memory=True): batches in page-locked memory and asynchronous copies to the GPU
(core-runtime pinned_memory.h). The GPU tests run on a GPU machine; without one, pinning is
refused with the reason and the DataLoader keeps ordinary memory."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad.utils.data import DataLoader, Dataset, TensorDataset
from glassgrad.utils.data._utils import pin_memory as P


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
        np.testing.assert_array_equal(d.numpy(), a + i)
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
    got_x = np.concatenate([a.numpy() for a, _ in seen])
    got_y = np.concatenate([b.numpy() for _, b in seen])
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
        np.testing.assert_array_equal(on_gpu.numpy()[:, 0, 0, 0], batch["label"].numpy().astype(np.float32))
