"""Batches that are a worker's shared-memory slot (no copy, without pin_memory): the slot is lent
to the batch while any of its tensors lives and goes back to the worker after; batches compute and
take in-place writes like any tensor; when the loop holds more batches than there are slots, the
rest travel through the pipe, with the same values."""
import collections
import gc

import numpy as np
import pytest

import glassgrad as gg
import test_data_loader_workers as W
from glassgrad.utils.data import DataLoader, TensorDataset
from glassgrad.utils.data._utils import transport

no_leftovers = W.no_leftovers  # no worker process or shared-memory block outlives a test
pytestmark = pytest.mark.usefixtures("no_leftovers", "on_the_cpu")


@pytest.fixture
def ways(monkeypatch):
    """How each batch arrived: 'slot' or 'inline'."""
    seen = collections.Counter()
    load = transport.Receiver.load

    def counting(self, msg, pin):
        seen["inline" if transport.Message(*msg).inline is not None else "slot"] += 1
        return load(self, msg, pin)
    monkeypatch.setattr(transport.Receiver, "load", counting)
    return seen


def _data(n=96):
    x = np.random.default_rng(3).random((n, 3, 32, 32), dtype=np.float32)  # 12 KiB a sample
    return x, np.arange(n)


def test_a_batch_lends_its_slot_until_its_last_tensor_is_gone(ways):
    x, y = _data()
    loader = DataLoader(TensorDataset(x, y), batch_size=8, num_workers=2, persistent_workers=True)
    it = iter(loader)
    for xb, yb in it:  # the whole epoch; the loop's names keep the last batch
        pass
    gc.collect()

    slot_states = it._slot_states

    def in_use():
        return sum(int(v) for states in slot_states for v in states[:])
    assert in_use() == 1  # nothing in flight any more: only the last batch's slot is lent
    del yb
    gc.collect()
    assert in_use() == 1  # xb still refers to it
    np.testing.assert_array_equal(xb.numpy(), x[-8:])
    del xb
    gc.collect()
    assert in_use() == 0
    assert ways["slot"] == 12 and ways["inline"] == 0
    del it, loader


def test_batches_compute_and_take_in_place_writes_without_touching_later_batches(ways):
    x, y = _data()
    total = 0.0
    for k, (xb, yb) in enumerate(DataLoader(TensorDataset(x, y), batch_size=8, num_workers=2)):
        expected = x[8 * k:8 * k + 8]
        assert float(((xb * 2).sum() - gg.tensor(expected * 2).sum()).abs()) < 1e-2
        xb.mul_(0)  # the batch's own memory: the worker gets the slot back only after it is gone
        assert float(xb.abs().sum()) == 0.0
        total += float(yb.sum())
    assert total == float(y.sum())
    assert ways["inline"] == 0


def test_holding_more_batches_than_slots_sends_the_rest_through_the_pipe(ways):
    x, y = _data(160)
    held = list(DataLoader(TensorDataset(x, y), batch_size=8, num_workers=2))
    assert ways["slot"] + ways["inline"] == 20 and ways["inline"] > 0
    for k, (xb, yb) in enumerate(held):
        np.testing.assert_array_equal(xb.numpy(), x[8 * k:8 * k + 8])
        np.testing.assert_array_equal(yb.numpy(), y[8 * k:8 * k + 8])


class _Queue:
    def __init__(self):
        self.items = []

    def put(self, item):
        self.items.append(item)


@pytest.mark.parametrize("rows", [2, 400])  # inline bytes, a slot
def test_a_list_of_tensors_travels_without_a_pickle_and_other_batches_with_one(rows):
    import multiprocessing
    slots = multiprocessing.get_context("fork").RawArray("b", 2)
    sender, receiver = transport.Sender(_Queue(), slots, 0), transport.Receiver([slots])
    x = np.arange(rows * 60, dtype=np.float32).reshape(rows, 3, 20)
    y = np.arange(rows, dtype=np.int16)
    try:
        sender.send(0, [gg.tensor(x), gg.tensor(y), gg.tensor(np.float64(2.5))])
        sender.send(1, {"x": gg.tensor(x), "name": "b"})
        (_, listed), (_, mapped) = sender.queue.items
        listed, mapped = transport.Message(*listed), transport.Message(*mapped)
        assert listed.pickle == (("<f4", x.shape), ("<i2", y.shape), ("<f8", ()))
        assert isinstance(mapped.pickle, bytes)
        assert (listed.inline is None) == (rows == 400)
        a, b, c = receiver.load(listed, False)
        np.testing.assert_array_equal(a.numpy(), x)
        np.testing.assert_array_equal(b.numpy(), y)
        assert b.dtype == "int16" and c.dtype == "float64" and float(c) == 2.5 and tuple(c.shape) == ()
        d = receiver.load(mapped, False)
        assert d["name"] == "b"
        np.testing.assert_array_equal(d["x"].numpy(), x)
        del a, b, c, d
    finally:
        receiver.close()
        sender.close(unlink_blocks=True)


class _Scalars:
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return gg.tensor(np.float32(i)), np.int64(i)


def test_zero_dimensional_tensors_keep_their_shape_through_workers():
    for x, y in DataLoader(_Scalars(), batch_size=None, num_workers=1):
        assert tuple(x.shape) == () and tuple(y.shape) == ()

