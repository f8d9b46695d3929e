"""arange's checks in PyTorch's order with its sentences first (glassgrad/_factories.arange): an
int beyond [-2**63, 2**64) is OverflowError "int too big to convert", one of [2**63, 2**64) for
an integer result "value cannot be converted to type int64_t without overflow", a count beyond
int64 "invalid size, possible overflow?", infinite or NaN bounds "unsupported range: 0 -> inf";
an infinite step gives no values."""
import pytest

import glassgrad as gg


@pytest.mark.parametrize("args, error, first_line", [
    ((0, 2**64), OverflowError, "int too big to convert"),
    ((0, 2**63), RuntimeError, "value cannot be converted to type int64_t without overflow"),
    ((0, 10**19, 10**18), RuntimeError, "value cannot be converted to type int64_t without overflow"),
    ((0, 1e30), RuntimeError, "invalid size, possible overflow?"),
    ((0, 1e19), RuntimeError, "invalid size, possible overflow?"),
    ((float("inf"),), RuntimeError, "unsupported range: 0 -> inf"),
    ((float("nan"),), RuntimeError, "unsupported range: 0 -> nan"),
    ((float("-inf"), 0), RuntimeError, "unsupported range: -inf -> 0"),
    ((0.0, 3.0, 0.0), RuntimeError, "step must be nonzero"),
    ((0, 3, -1), RuntimeError, "upper bound and lower bound inconsistent with step sign"),
])
def test_arange_refuses_with_pytorchs_first_line(args, error, first_line):
    with pytest.raises(error) as caught:
        gg.arange(*args)
    assert str(caught.value).splitlines()[0] == first_line


def test_arange_near_int64s_ends_and_infinite_steps():
    assert gg.arange(2**63 - 5, 2**63 - 1).tolist() == [2**63 - 5, 2**63 - 4, 2**63 - 3, 2**63 - 2]
    assert gg.arange(-2**63, -2**63 + 2).tolist() == [-2**63, -2**63 + 1]
    empty = gg.arange(0, 1, float("inf"))
    assert empty.shape == (0,) and empty.dtype == gg.float32
    assert gg.arange(0, 5, 1.5, dtype=gg.int64).tolist() == [0, 1, 2, 3, 4]  # counted from the truncated bounds
