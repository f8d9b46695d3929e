"""glassgrad.utils.data.DataLoader in the training process (num_workers=0): arguments, batching,
shuffling, collate, len and .dataset, against torch.utils.data.DataLoader."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad.utils.data import BatchSampler, DataLoader, Dataset, SequentialSampler, TensorDataset

from data_fixtures import Count


class Squares(Dataset):
    def __init__(self, n=10):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return np.full((2,), i * i, np.float32), i


def _values(loader):
    return [[t.numpy().tolist() for t in batch] if isinstance(batch, (list, tuple)) else batch.numpy().tolist()
            for batch in loader]


def test_batches_are_glassgrad_tensors_with_torch_values(torch):
    ours = DataLoader(Squares(10), batch_size=4)
    theirs = torch.utils.data.DataLoader(Squares(10), batch_size=4)
    assert len(ours) == len(theirs) == 3 and ours.dataset is not None
    for a, b in zip(ours, theirs):
        assert all(isinstance(t, gg.Tensor) for t in a)
        assert [t.numpy().tolist() for t in a] == [t.numpy().tolist() for t in b]
        assert a[1].dtype == "int64" and a[0].dtype == "float32"
        assert a[0].device == "cpu"


@pytest.mark.parametrize("kwargs", [dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=None),
                                    dict(batch_size=1)])
def test_lengths_and_drop_last_match_torch(torch, kwargs):
    ours = DataLoader(Squares(10), **kwargs)
    theirs = torch.utils.data.DataLoader(Squares(10), **kwargs)
    assert len(ours) == len(theirs) == len(list(ours))


def test_batch_size_none_converts_single_samples():
    batches = list(DataLoader(Squares(3), batch_size=None))
    assert len(batches) == 3 and isinstance(batches[0], list) and isinstance(batches[1][0], gg.Tensor)
    assert batches[2][1] == 2  # a plain int stays an int (default_convert)


def test_shuffle_covers_everything_and_follows_manual_seed():
    ds = TensorDataset(np.arange(50))
    gg.manual_seed(1)
    first = np.concatenate([b[0].numpy() for b in DataLoader(ds, batch_size=8, shuffle=True)])
    gg.manual_seed(1)
    again = np.concatenate([b[0].numpy() for b in DataLoader(ds, batch_size=8, shuffle=True)])
    assert sorted(first.tolist()) == list(range(50)) and first.tolist() != list(range(50))
    np.testing.assert_array_equal(first, again)
    rng_order = np.concatenate([b[0].numpy() for b in DataLoader(ds, batch_size=8, shuffle=True,
                                                                generator=np.random.default_rng(0))])
    assert sorted(rng_order.tolist()) == list(range(50))


def test_tensor_dataset_of_glassgrad_tensors_batches_like_per_sample_collation():
    x = gg.tensor(np.arange(30, dtype=np.float32).reshape(10, 3), device="cpu")
    y = gg.tensor(np.arange(10), device="cpu")
    ds = TensorDataset(x, y)
    fast = list(DataLoader(ds, batch_size=4, shuffle=True, generator=np.random.default_rng(2)))
    slow = list(DataLoader(ds, batch_size=4, shuffle=True, generator=np.random.default_rng(2),
                           collate_fn=lambda b: gg.utils.data.default_collate(b)))
    for (fx, fy), (sx, sy) in zip(fast, slow):
        np.testing.assert_array_equal(fx.numpy(), sx.numpy())
        np.testing.assert_array_equal(fy.numpy(), sy.numpy())
        assert fx.dtype == "float32" and fy.dtype == "int64"


def test_custom_sampler_batch_sampler_and_collate_fn():
    ds = Squares(6)
    order = list(DataLoader(ds, sampler=[5, 0, 3], batch_size=2))
    assert [b[1].numpy().tolist() for b in order] == [[5, 0], [3]]
    bs = list(DataLoader(ds, batch_sampler=BatchSampler(SequentialSampler(ds), 4, False)))
    assert [b[1].numpy().tolist() for b in bs] == [[0, 1, 2, 3], [4, 5]]
    raw = list(DataLoader(ds, batch_size=3, collate_fn=lambda batch: [i for _, i in batch]))
    assert raw == [[0, 1, 2], [3, 4, 5]]


def test_iterable_dataset_batches_and_len():
    loader = DataLoader(Count(7), batch_size=3)
    assert len(loader) == 3 and [b.numpy().tolist() for b in loader] == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(DataLoader(Count(7), batch_size=3, drop_last=True)) == 2
    assert [b.numpy().tolist() for b in DataLoader(Count(7), batch_size=3, drop_last=True)] == [[0, 1, 2], [3, 4, 5]]


@pytest.mark.parametrize("kwargs, message", [
    (dict(num_workers=-1), "num_workers option should be non-negative"),
    (dict(timeout=-1), "timeout option should be non-negative"),
    (dict(prefetch_factor=2), "prefetch_factor option could only be specified in multiprocessing"),
    (dict(persistent_workers=True), "persistent_workers option needs num_workers > 0"),
    (dict(sampler=[0, 1], shuffle=True), "sampler option is mutually exclusive with shuffle"),
    (dict(batch_sampler=[[0]], batch_size=2), "batch_sampler option is mutually exclusive"),
    (dict(batch_size=None, drop_last=True), "batch_size=None option disables auto-batching"),
    (dict(multiprocessing_context="fork"), "multiprocessing_context can only be used with multi-process"),
    (dict(batch_size=0), "batch_size should be a positive integer"),
])
def test_argument_errors_are_torch_s(torch, kwargs, message):
    with pytest.raises(ValueError, match=message):
        DataLoader(Squares(4), **kwargs)
    with pytest.raises(ValueError):
        torch.utils.data.DataLoader(Squares(4), **kwargs)


def test_iterable_dataset_refuses_shuffle_and_samplers():
    with pytest.raises(ValueError, match="expected unspecified shuffle option"):
        DataLoader(Count(3), shuffle=True)
    with pytest.raises(ValueError, match="expected unspecified sampler option"):
        DataLoader(Count(3), sampler=[0])


def test_attributes_are_frozen_after_construction():
    loader = DataLoader(Squares(4), batch_size=2)
    with pytest.raises(ValueError, match="batch_size attribute should not be set"):
        loader.batch_size = 3
    loader.num_workers = 0  # allowed, as in PyTorch


def test_a_dataset_error_names_the_index():
    class Broken(Squares):
        def __getitem__(self, i):
            if i == 5:
                raise KeyError("no such sample")
            return super().__getitem__(i)
    with pytest.raises(KeyError) as e:
        list(DataLoader(Broken(8), batch_size=3))
    if hasattr(e.value, "__notes__"):
        assert "index 5" in e.value.__notes__[0]


def test_mismatched_shapes_name_the_dataset_index():
    class Ragged(Squares):
        def __getitem__(self, i):
            return np.zeros(3 if i != 6 else 4, np.float32)
    with pytest.raises(gg.ShapeError, match=r"entry 0 and \[4\] at entry 2") as e:
        list(DataLoader(Ragged(8), batch_size=4))
    if hasattr(e.value, "__notes__"):
        assert "index 6 (entry 2 of the batch [4, 5, 6, 7])" in e.value.__notes__[0]


def test_pin_memory_without_gpu_warns_and_keeps_ordinary_memory():
    if gg.cuda.is_available():
        pytest.skip("checks the machine without a GPU")
    with pytest.warns(UserWarning, match="no accelerator is found"):
        batches = list(DataLoader(Squares(4), batch_size=2, pin_memory=True))
    assert len(batches) == 2 and not gg.utils.data._utils.pin_memory.is_pinned(batches[0][0])


def test_a_training_loop_moves_batches_to_the_device():
    gg.manual_seed(0)
    ds = TensorDataset(np.random.default_rng(0).random((32, 4)).astype(np.float32), np.arange(32) % 3)
    model = gg.nn.Linear(4, 3).to("cpu")
    opt = gg.optim.SGD(model.parameters(), lr=0.1)
    device = gg.device("cpu")
    for data, target in DataLoader(ds, batch_size=8, shuffle=True):
        data, target = data.to(device), target.to(device)
        opt.zero_grad()
        loss = gg.cross_entropy(model(data), target)
        loss.backward()
        opt.step()
    assert np.isfinite(loss.item())


def test_to_one_device_argument_answers_as_the_general_path(monkeypatch):
    """x.to(device) remembers what a device string means (a training loop calls it for every
    tensor of every batch); dtype names, tensors that require grad and a DataLoader worker's
    refusal of CUDA still take the general path."""
    x = gg.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    for _ in range(2):  # the second time from what the first remembered
        assert x.to("cpu") is x and x.to(gg.device("cpu"), non_blocking=True) is x and x.to("CPU") is x
    assert x.to("float64").dtype == "float64" and x.to("float64", copy=True) is not x
    w = gg.tensor([1.0, 2.0], requires_grad=True)
    assert w.to("cpu") is w
    monkeypatch.setitem(gg._tensor._TO_DEVICE, "cuda:0", "cuda:0")
    monkeypatch.setattr(gg._device, "_cuda_forbidden", "a DataLoader worker may not use CUDA")
    with pytest.raises(gg.DeviceError, match="may not use CUDA"):
        x.to("cuda:0")


def test_glassgrad_data_loaders_are_datasets_of_the_new_api_and_the_array_loader_stays(tmp_path):
    from glassgrad.data import DataLoader as ArrayLoader, load_mnist
    from data_fixtures import write_mnist
    write_mnist(str(tmp_path), n_train=10, n_test=4)
    splits = load_mnist(str(tmp_path / "MNIST" / "raw"))
    x, y = splits.train_set[3]
    assert x.shape == (1, 28, 28) and int(y) == int(splits.y_train[3]) and len(splits.test_set) == 4
    loader = ArrayLoader(splits.train_set, batch_size=4, shuffle=True)  # a data set: PyTorch's DataLoader
    assert isinstance(loader, DataLoader) and loader.dataset is not None and len(loader) == 3
    xb, yb = next(iter(loader))
    assert isinstance(xb, gg.Tensor) and xb.shape == (4, 1, 28, 28) and yb.dtype == "int64"
    arrays = ArrayLoader(splits.x_train, splits.y_train, batch_size=4)  # arrays: the NumPy convenience
    assert not isinstance(arrays, DataLoader) and isinstance(next(iter(arrays))[0], np.ndarray)


def test_the_dataloader_module_has_torchs_names():
    # older scripts: `from torch.utils.data.dataloader import default_collate`
    from glassgrad.utils.data import dataloader
    from glassgrad.utils.data import default_collate, default_convert, get_worker_info
    assert dataloader.default_collate is default_collate and dataloader.default_convert is default_convert
    assert dataloader.get_worker_info is get_worker_info and dataloader.DataLoader is gg.utils.data.DataLoader
