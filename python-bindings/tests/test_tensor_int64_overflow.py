"""glassgrad.tensor of Python ints outside int64 raises, as torch.tensor does ("Overflow when
unpacking long long"), instead of wrapping 2 ** 63 to -2 ** 63; in range, and with a float among
them (a float tensor) or an explicit float dtype, the values are kept."""
import numpy as np
import pytest

import glassgrad as gg


@pytest.mark.parametrize("data", [[2 ** 63], [-2 ** 63 - 1], [2 ** 64], 2 ** 63, [[1, 2], [3, 2 ** 70]]], ids=repr)
def test_python_ints_past_int64_raise(data):
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        gg.tensor(data)


def test_ints_at_the_limits_and_as_floats_are_kept():
    t = gg.tensor([2 ** 63 - 1, -2 ** 63])
    assert t.dtype == gg.int64 and t.tolist() == [2 ** 63 - 1, -2 ** 63]
    np.testing.assert_array_equal(gg.tensor([1.5, 2 ** 63]).numpy(), np.array([1.5, 2.0 ** 63], np.float32))
    np.testing.assert_array_equal(gg.tensor([2 ** 63], dtype=gg.float64).numpy(), [2.0 ** 63])
