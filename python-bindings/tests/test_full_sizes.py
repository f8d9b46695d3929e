"""torch.full and Tensor.new_full take the sizes as one sequence: a bare int (a Python or NumPy
int) is PyTorch's TypeError, where zeros(3) and ones(3) take it (docs/porting.md)."""
import numpy as np
import pytest

import glassgrad as gg


@pytest.mark.parametrize("size", [3, np.int64(3)])
def test_full_refuses_a_bare_int(size):
    with pytest.raises(TypeError, match=r"full\(\): argument 'size' \(position 1\) must be tuple of ints"):
        gg.full(size, 1.5)


def test_new_full_refuses_a_bare_int_with_its_name():
    with pytest.raises(TypeError, match=r"^new_full\(\): argument 'size'") as e:
        gg.tensor([1.0]).new_full(3, 1.5)
    assert "new_full((3,), 1.5)" in str(e.value)  # the fix


def test_sequences_and_empty_sizes_still_work():
    assert gg.full((3,), 1.5).tolist() == [1.5, 1.5, 1.5]
    assert gg.full([2, 1], 2).tolist() == [[2], [2]]
    assert gg.full(gg.Size([2]), True).tolist() == [True, True]
    assert gg.full([], 1.5).tolist() == 1.5
    assert gg.tensor([1]).new_full((2,), 7).tolist() == [7, 7]
    assert gg.zeros(3).tolist() == [0.0, 0.0, 0.0]


def test_full_writes_into_out():
    # full(..., out=o) fills o (resized, in o's dtype) and returns o itself, as PyTorch's out= factories do
    out = gg.empty(0)
    result = gg.full((2, 2), 7, out=out)
    assert result is out
    assert out.dtype == gg.float32 and out.shape == (2, 2)
    np.testing.assert_array_equal(out.numpy(), np.full((2, 2), 7.0, np.float32))
