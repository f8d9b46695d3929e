"""Batched fetches. A TensorDataset's batches fetched by one gather per tensor (default_collate):
the same batches, dtypes included, as collating the samples one by one, in the training process
and in workers, where the gather writes straight into the shared-memory slot the batch travels in
(no copy when it is sent); negative and out-of-range indices behave as dataset[i] does. A data
set's own __getitems__ (PyTorch's contract: the list of a batch's samples) is asked for each whole
batch, and its errors name the batch."""
import multiprocessing

import numpy as np
import pytest

import glassgrad as gg
import test_data_loader_workers as W
from glassgrad.utils.data import DataLoader, Dataset, Subset, TensorDataset, default_collate
from glassgrad.utils.data._utils import collate, fetch, transport

no_leftovers = W.no_leftovers
pytestmark = pytest.mark.usefixtures("on_the_cpu")


class _Queue:
    def __init__(self):
        self.items = []

    def put(self, item):
        self.items.append(item)


def _arrays(n=64):
    rng = np.random.default_rng(5)
    return (rng.random((n, 3, 16, 16), dtype=np.float32), rng.integers(0, 10, n).astype(np.int64),
            rng.random((n, 2)).astype(np.float16), (rng.random(n) > 0.5))


def _per_sample(ds, indices):
    return default_collate([ds[i] for i in indices])


def _check_equal(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and tuple(g.shape) == tuple(w.shape)
        np.testing.assert_array_equal(g.numpy(), w.numpy())


@pytest.mark.parametrize("indices", [[3, 1, 60, 0], [-1, -64, 5], list(range(64))[::-1]])
def test_a_gathered_batch_equals_per_sample_collation(indices):
    ds = TensorDataset(*_arrays())
    fetcher = fetch.create_fetcher(False, ds, True, default_collate, False)
    _check_equal(fetcher.fetch(indices), _per_sample(ds, indices))


def test_gathering_into_a_worker_slot_sends_the_slot_without_copying(monkeypatch):
    ds = Subset(TensorDataset(*_arrays()), list(range(63, -1, -1)))
    slots = multiprocessing.get_context("fork").RawArray("b", 3)
    sender = transport.Sender(_Queue(), slots, 0)
    receiver = transport.Receiver([slots])
    copied = []
    monkeypatch.setattr(transport.Sender, "_send_copied", lambda self, *a: copied.append(a))
    try:
        fetcher = fetch.create_fetcher(False, ds, True, default_collate, True, sender.arrays)
        for k, indices in enumerate(([0, 5, 9] * 11, [-2, 7] * 20)):
            batch = fetcher.fetch(indices)
            assert list(slots[:]).count(1) == 1  # the gather claimed a slot
            sender.send(k, batch)
            del batch
            idx, msg = sender.queue.items.pop()
            msg = transport.Message(*msg)
            assert idx == k and msg.inline is None and not copied
            got = receiver.load(msg, False)
            _check_equal(got, _per_sample(ds, indices))
            del got
            assert list(slots[:]).count(1) == 0  # the batch's tensors are gone: the slot is free
    finally:
        receiver.close()
        sender.close(unlink_blocks=True)


def test_a_claimed_slot_is_given_back_when_its_batch_is_not_sent():
    slots = multiprocessing.get_context("fork").RawArray("b", 2)
    sender = transport.Sender(_Queue(), slots, 0)
    try:
        first = sender.arrays([((300, 100), np.dtype(np.float32))])
        assert first is not None and first[0].shape == (300, 100) and list(slots[:]) == [1, 0]
        del first
        sender.discard()
        assert list(slots[:]) == [0, 0]
        assert sender.arrays([((4,), np.dtype(np.int64))]) is None  # small: travels in the message
        assert list(slots[:]) == [0, 0]
    finally:
        sender.close(unlink_blocks=True)


def test_buffers_beside_the_claimed_arrays_are_copied_into_the_same_slot(monkeypatch):
    slots = multiprocessing.get_context("fork").RawArray("b", 2)
    sender = transport.Sender(_Queue(), slots, 0)
    receiver = transport.Receiver([slots])
    try:
        (claimed,) = sender.arrays([((200, 100), np.dtype(np.float32))])
        claimed[:] = 1.5
        extra = np.arange(10, dtype=np.int64)
        sender.send(0, [collate._pin.new_tensor(claimed, owned=True), gg.tensor(extra)])
        del claimed
        _, msg = sender.queue.items.pop()
        msg = transport.Message(*msg)
        assert msg.inline is None and len({msg.slot}) == 1 and len(msg.spans) == 2
        a, b = receiver.load(msg, False)
        assert float(a.numpy().min()) == 1.5 == float(a.numpy().max())
        np.testing.assert_array_equal(b.numpy(), extra)
        del a, b
    finally:
        receiver.close()
        sender.close(unlink_blocks=True)


def test_workers_deliver_the_same_batches_as_the_training_process(no_leftovers):
    ds = TensorDataset(*_arrays(96))
    kwargs = dict(batch_size=16, shuffle=True, drop_last=True)
    here = list(DataLoader(ds, generator=np.random.default_rng(4), **kwargs))
    there = list(DataLoader(ds, generator=np.random.default_rng(4), num_workers=2, **kwargs))
    assert len(here) == len(there) == 6
    for a, b in zip(here, there):
        _check_equal(b, a)


def test_an_out_of_range_index_raises_as_dataset_indexing_does(no_leftovers):
    ds = TensorDataset(*_arrays(8))
    with pytest.raises(IndexError, match="out of bounds"):
        next(iter(DataLoader(ds, sampler=[0, 8], batch_size=2)))
    with pytest.raises(IndexError, match="(?s)worker process 0.*out of bounds"):
        next(iter(DataLoader(ds, sampler=[0, 1, 2, 3, -9, 2, 3, 4], batch_size=8, num_workers=1)))


class _Batched(Dataset):
    """PyTorch's __getitems__ contract: the list of samples of a batch of indices, asked for once
    a batch; every sample says which way it was made."""

    def __init__(self, n=40):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return np.full((2, 3), i, np.float32), i, "one"

    def __getitems__(self, indices):
        if 13 in indices:
            raise ValueError("sample 13 is damaged")
        return [(np.full((2, 3), i, np.float32), i, f"batch of {len(indices)}") for i in indices]


class _BatchedTensors(TensorDataset):
    def __getitems__(self, indices):
        return [(self.tensors[0][i], -1) for i in indices]


@pytest.mark.parametrize("workers", [0, 2])
def test_a_dataset_s_getitems_is_asked_for_each_whole_batch(workers, no_leftovers):
    ds = _Batched()
    order = np.random.default_rng(1).permutation(40)
    order = order[order != 13].tolist()
    loader = DataLoader(ds, batch_size=6, sampler=order, num_workers=workers)
    seen = []
    for x, y, how in loader:
        assert list(how) == [f"batch of {len(y)}"] * len(y)
        assert x.dtype == "float32" and y.dtype == "int64"
        expected = default_collate([ds[i] for i in y.numpy().tolist()])
        np.testing.assert_array_equal(x.numpy(), expected[0].numpy())
        seen += y.numpy().tolist()
    assert seen == order
    where = r"worker process 0 while fetching the batch of indices \[12, 13\].*" if workers else ""
    with pytest.raises(ValueError, match="(?s)" + where + "sample 13 is damaged"):
        list(DataLoader(ds, sampler=[12, 13], batch_size=2, num_workers=workers))


def test_a_tensor_dataset_with_its_own_getitems_is_not_gathered():
    ds = _BatchedTensors(np.arange(12, dtype=np.float32).reshape(6, 2))
    (x, y), = DataLoader(ds, batch_size=6)
    np.testing.assert_array_equal(x.numpy(), np.arange(12, dtype=np.float32).reshape(6, 2))
    assert y.numpy().tolist() == [-1] * 6


class _Images(Dataset):
    """Per-sample arrays, as a vision data set's transform returns them; sample 5 is float64."""

    def __len__(self):
        return 48

    def __getitem__(self, i):
        image = np.full((3, 32, 32), i, np.float64 if i == 5 else np.float32)
        return image, {"label": i, "weight": np.float32(i / 2)}


@pytest.mark.parametrize("collate_fn", [None, lambda b: default_collate(b)])
def test_per_sample_batches_from_workers_equal_the_training_process_s(collate_fn, no_leftovers):
    kwargs = dict(batch_size=8, shuffle=True, collate_fn=collate_fn)
    here = list(DataLoader(_Images(), generator=np.random.default_rng(3), **kwargs))
    there = list(DataLoader(_Images(), generator=np.random.default_rng(3), num_workers=2, **kwargs))
    for (x, d), (xw, dw) in zip(here, there):
        assert x.dtype == xw.dtype and d["weight"].dtype == dw["weight"].dtype
        np.testing.assert_array_equal(xw.numpy(), x.numpy())
        np.testing.assert_array_equal(dw["label"].numpy(), d["label"].numpy())

