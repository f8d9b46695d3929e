"""ArrayTensor (glassgrad/utils/data/_utils/array_tensor.py): a CPU tensor holding its array that
makes its runtime value on first use; default_collate stacks untouched ones without copies, and
every other use sees an ordinary tensor."""
import pickle

import numpy as np

import glassgrad as gg
from glassgrad.utils.data import default_collate
from glassgrad.utils.data._utils.array_tensor import ArrayTensor, host_array
from glassgrad.vision import transforms as T


def test_metadata_needs_no_runtime_value():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = ArrayTensor(a)
    assert t.shape == (2, 3) and t.dtype == "float32" and t.device == "cpu"
    assert t.untouched_array() is a and host_array(t) is a


def test_dtype_from_the_array_is_the_tensors_dtype():
    # The dtype is read from the array (through a per-NumPy-dtype table) until the tensor is used:
    # each array dtype, byte orders included, gives the dtype the made tensor then reports, and
    # the samples' dtypes default_collate compares are told apart.
    for np_dtype in (np.float32, np.float64, np.int64, np.int32, np.uint8, np.bool_, np.dtype(">f4"), np.dtype("<f8")):
        a = (np.arange(4) % 2).astype(np_dtype)
        t = ArrayTensor(a.copy())
        made = ArrayTensor(a.copy())
        _ = made._h  # makes the runtime value: dtype is the tensor's from here on
        assert made.untouched_array() is None
        assert t.dtype == made.dtype == gg.tensor(a).dtype, np_dtype
    mixed = [ArrayTensor(np.zeros(2, np.float32)), ArrayTensor(np.zeros(2, np.float64))]
    try:
        default_collate(mixed)
    except gg.DTypeError as e:
        assert "different dtypes" in str(e)
    else:
        raise AssertionError("default_collate stacked samples of two dtypes")


def test_any_tensor_use_makes_an_ordinary_tensor():
    t = ArrayTensor(np.arange(3, dtype=np.float32))
    assert isinstance(t, gg.Tensor)
    np.testing.assert_array_equal((t * 2 + 1).numpy(), [1, 3, 5])
    assert t.untouched_array() is None  # the array is no longer read
    np.testing.assert_array_equal(host_array(t), [0, 1, 2])
    assert t.shape == (3,) and t.dtype == "float32"


def test_rebinding_the_handle_drops_the_array():
    t = ArrayTensor(np.zeros(2, np.float32))
    other = gg.tensor(np.ones(2, np.float32), device="cpu")
    t._h = other._h
    assert t.untouched_array() is None and t.numpy().tolist() == [1.0, 1.0]


def test_pickles_as_its_values():
    t = pickle.loads(pickle.dumps(ArrayTensor(np.full(2, 7, np.int64))))
    assert isinstance(t, gg.Tensor) and t.numpy().tolist() == [7, 7]


def test_transforms_hand_collate_their_arrays():
    samples = [T.ToTensor()(np.full((4, 4, 3), i, np.uint8)) for i in range(3)]
    assert all(isinstance(s, ArrayTensor) and s.untouched_array() is not None for s in samples)
    batch = default_collate(samples)
    assert batch.shape == (3, 3, 4, 4)
    np.testing.assert_allclose(batch.numpy()[:, 0, 0, 0], np.arange(3) / 255, rtol=1e-6)
    assert all(s.untouched_array() is not None for s in samples)  # stacking did not make handles
