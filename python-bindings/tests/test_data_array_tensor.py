"""Data pipeline tensors that hold their array until first used (glassgrad/utils/data/_utils/
array_tensor.py): plain Tensors (type(ToTensor()(img)) is Tensor, as in PyTorch) whose runtime
value is made on first use; default_collate stacks untouched ones without copies, and every
other use sees an ordinary tensor."""
import pickle

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.utils.data import DataLoader, default_collate
from glassgrad.utils.data._utils import array_tensor
from glassgrad.utils.data._utils.array_tensor import host_array, host_tensor, sample_device_and_dtype, untouched_array
from glassgrad.vision import transforms as T


def test_collate_reads_the_array_without_making_a_runtime_value():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = host_tensor(a)
    assert type(t) is gg.Tensor and untouched_array(t) is a and host_array(t) is a
    batch = default_collate([t, host_tensor(a.copy())])
    assert untouched_array(t) is a and tuple(batch.shape) == (2, 2, 3)


def test_dtype_from_the_array_is_the_tensors_dtype():
    # The dtype is read from the array (through a per-NumPy-dtype table) until the tensor is used:
    # each array dtype, byte orders included, gives the dtype the made tensor then reports, and
    # the samples' dtypes default_collate compares are told apart.
    for np_dtype in (np.float32, np.float64, np.int64, np.int32, np.uint8, np.bool_, np.dtype(">f4"), np.dtype("<f8")):
        a = (np.arange(4) % 2).astype(np_dtype)
        t = host_tensor(a.copy())
        made = host_tensor(a.copy())
        _ = made._h  # makes the runtime value: dtype is the tensor's from here on
        assert untouched_array(made) is None
        native = a.astype(a.dtype.newbyteorder("="))  # gg.tensor refuses another byte order, as PyTorch
        assert sample_device_and_dtype(t) == ("cpu", made.dtype) and made.dtype == gg.tensor(native).dtype, np_dtype
        assert untouched_array(t) is not None  # reading the dtype for collate made no handle
    mixed = [host_tensor(np.zeros(2, np.float32)), host_tensor(np.ones(2, np.float64))]
    stacked = default_collate(mixed)  # two dtypes told apart: promoted as torch.stack promotes
    assert stacked.dtype == gg.float64 and stacked.tolist() == [[0.0, 0.0], [1.0, 1.0]]


def test_any_tensor_use_makes_an_ordinary_tensor():
    t = host_tensor(np.arange(3, dtype=np.float32))
    assert t.shape == (3,) and t.dtype == "float32" and str(t.device) == "cpu"
    assert untouched_array(t) is None  # metadata is a use: the array is no longer read
    np.testing.assert_array_equal((t * 2 + 1).numpy(), [1, 3, 5])
    np.testing.assert_array_equal(host_array(t), [0, 1, 2])


def test_rebinding_the_handle_drops_the_array():
    t = host_tensor(np.zeros(2, np.float32))
    other = gg.tensor(np.ones(2, np.float32), device="cpu")
    t._h = other._h
    assert untouched_array(t) is None and t.numpy().tolist() == [1.0, 1.0]


def test_pickles_as_its_values_and_missing_attributes_raise_as_usual():
    t = pickle.loads(pickle.dumps(host_tensor(np.full(2, 7, np.int64))))
    assert type(t) is gg.Tensor and t.numpy().tolist() == [7, 7]
    with pytest.raises(AttributeError, match="'Tensor' object has no attribute 'no_such_name'"):
        gg.ones(1).no_such_name
    with pytest.raises(AttributeError, match="has no attribute '_h'"):
        gg.Tensor.__new__(gg.Tensor)._h


def test_transforms_hand_collate_their_arrays_and_give_plain_tensors(torch):
    samples = [T.ToTensor()(np.full((4, 4, 3), i, np.uint8)) for i in range(3)]
    assert all(type(s) is gg.Tensor and untouched_array(s) is not None for s in samples)
    assert type(torch.from_numpy(np.zeros((4, 4, 3), np.uint8))) is torch.Tensor  # what PyTorch's ToTensor gives
    batch = default_collate(samples)
    assert type(batch) is gg.Tensor and batch.shape == (3, 3, 4, 4)
    np.testing.assert_allclose(batch.numpy()[:, 0, 0, 0], np.arange(3) / 255, rtol=1e-6)
    assert all(untouched_array(s) is not None for s in samples)  # stacking did not make handles
    images = [np.full((2, 2, 3), i, np.uint8) for i in range(4)]
    loader = DataLoader([(T.ToTensor()(im), i) for i, im in enumerate(images)], batch_size=2)
    x, y = next(iter(loader))
    assert type(x) is gg.Tensor and type(y) is gg.Tensor and x.shape == (2, 3, 2, 2) and y.tolist() == [0, 1]


# ---- Tensor.__getattr__ only while some tensor holds its array (array_tensor._HELD) ----
def _has_hook() -> bool:
    return "__getattr__" in gg.Tensor.__dict__


def _nothing_held():
    import gc
    gc.collect()
    assert not array_tensor._HELD and not _has_hook()  # as in a loop over ordinary tensors


def test_the_class_has_no_attribute_hook_while_no_tensor_holds_an_array():
    _nothing_held()
    gg.ones(2).sum().item()  # ordinary tensors never install it
    assert not _has_hook()
    a, b = host_tensor(np.arange(3, dtype=np.float32)), host_tensor(np.ones(2, np.float32))
    assert _has_hook()
    np.testing.assert_array_equal((a + 1).numpy(), [1, 2, 3])  # a's handle made: b still holds its array
    assert _has_hook() and untouched_array(b) is not None
    assert b.sum().item() == 2.0  # the last one used: gone
    _nothing_held()


def test_a_tensor_collected_untouched_removes_the_hook():
    _nothing_held()
    batch = default_collate([host_tensor(np.full(2, i, np.float32)) for i in range(3)])  # samples dropped
    assert _has_hook()  # the collated batch holds its stacked array until used
    assert batch.tolist() == [[0, 0], [1, 1], [2, 2]]
    _nothing_held()
    t = host_tensor(np.zeros(4, np.float32))
    del t
    assert not _has_hook()


def test_missing_names_raise_the_same_with_and_without_the_hook():
    _nothing_held()
    for holding in (False, True):
        held = host_tensor(np.zeros(1, np.float32)) if holding else None
        assert _has_hook() == holding
        with pytest.raises(AttributeError, match="'Tensor' object has no attribute 'no_such_name'") as e:
            gg.ones(1).no_such_name
        assert e.value.name == "no_such_name"
        with pytest.raises(AttributeError, match="'Tensor' object has no attribute '_h'"):
            gg.Tensor.__new__(gg.Tensor)._h
        del held
    _nothing_held()


def test_threads_making_and_using_host_tensors_leave_no_hook():
    import threading
    _nothing_held()
    sums, errors = [], []

    def work(k):
        try:
            for i in range(200):
                t = host_tensor(np.full(3, k * 1000 + i, np.float32))
                if i % 2:  # half used as tensors, half collected untouched
                    sums.append(t.sum().item() == 3 * (k * 1000 + i))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors and len(sums) == 400 and all(sums)
    _nothing_held()
