"""A read-only NumPy array given to from_numpy, as_tensor or a legacy constructor gets PyTorch's
UserWarning once a program ("The given NumPy array is not writable, ..."), glassgrad.tensor's
copy none; the legacy constructors (torch.Tensor(a), torch.FloatTensor(a)) refuse a negative
stride as from_numpy does (_numpy_arrays.py; docs/porting.md, "Creating tensors from data")."""
import warnings

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _numpy_arrays

SENTENCE = "The given NumPy array is not writable, and PyTorch does not support non-writable tensors."


@pytest.fixture
def fresh_program(monkeypatch):
    monkeypatch.setattr(_numpy_arrays, "_warned_not_writable", False)


def read_only():
    a = np.arange(3.0)
    a.setflags(write=False)
    return a


@pytest.mark.parametrize("convert", [gg.from_numpy, gg.as_tensor, lambda a: gg.as_tensor(a, dtype=gg.float32),
                                     gg.Tensor, gg.FloatTensor],
                         ids=["from_numpy", "as_tensor", "as_tensor dtype", "Tensor", "FloatTensor"])
def test_read_only_arrays_warn_once(fresh_program, convert):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t = convert(read_only())
        convert(read_only())
    assert t.tolist() == [0.0, 1.0, 2.0]
    assert [str(w.message).startswith(SENTENCE) for w in caught] == [True]
    assert caught[0].category is UserWarning and caught[0].filename == __file__


def test_no_warning_for_a_copy_or_a_writable_array(fresh_program):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gg.tensor(read_only()).tolist() == [0.0, 1.0, 2.0]
        assert gg.from_numpy(np.arange(3.0)).tolist() == [0.0, 1.0, 2.0]


@pytest.mark.parametrize("convert", [gg.Tensor, gg.FloatTensor, gg.LongTensor], ids=["Tensor", "FloatTensor",
                                                                                      "LongTensor"])
def test_legacy_constructors_refuse_negative_strides(convert):
    with pytest.raises(ValueError) as caught:
        convert(np.arange(4.0)[::-1])
    assert str(caught.value).startswith("At least one stride in the given numpy array is negative")
    assert convert(np.arange(4.0)[::-1].copy()).tolist() == [3, 2, 1, 0]
