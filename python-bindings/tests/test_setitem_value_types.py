"""x[key] = value with a value that is no number and no tensor (None, a string, an arbitrary
object) is PyTorch's TypeError "can't assign a NoneType to a torch.FloatTensor"; None was
written as NaN and a string gave a ValueError."""
import numpy as np
import pytest

import glassgrad as gg


@pytest.mark.parametrize("value,name", [(None, "NoneType"), ("a", "str"), (object(), "object")])
def test_refused_with_a_type_error(value, name):
    x = gg.zeros(2, 3)
    with pytest.raises(TypeError, match=f"can't assign a {name} to a FloatTensor"):
        x[0, 0] = value
    with pytest.raises(TypeError, match="to a LongTensor"):
        gg.zeros(2, dtype=gg.int64)[0] = value
    assert x.tolist() == [[0.0] * 3] * 2


def test_numbers_and_tensors_still_write():
    x = gg.zeros(2, 3)
    x[0, 0] = 2
    x[0, 1] = np.float32(1.5)
    x[0, 2] = True
    x[1] = gg.tensor([4.0, 5.0, 6.0])
    assert x.tolist() == [[2.0, 1.5, 1.0], [4.0, 5.0, 6.0]]


@pytest.mark.parametrize("value", [None, "a"])
def test_as_torch(value):
    torch = pytest.importorskip("torch")
    for lib in (gg, torch):
        with pytest.raises(TypeError, match="can't assign a"):
            lib.zeros(2)[0] = value
