"""torch.diff's prepend/append and torch.histc's range, checked as PyTorch checks them: prepend and
append need the input's number of dims and its sizes off dim (a 0-d one is refused, as PyTorch's);
histc refuses a range that is not finite (nan or an infinity in the data when min = max = 0, or
an infinite min or max). Expected values and messages are PyTorch 2's."""
import math

import numpy as np
import pytest

import glassgrad as gg


def test_diff_prepend_and_append_of_matching_shape():
    assert gg.diff(gg.ones(2, 3), prepend=gg.zeros(2, 1)).tolist() == [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
    assert gg.diff(gg.tensor([1.0, 4.0]), append=gg.tensor([9.0, 16.0]), n=2).tolist() == [2.0, 2.0]


@pytest.mark.parametrize("other, message", [
    (gg.tensor(0.0), "diff expects prepend or append to be the same dimension as input"),
    (gg.zeros(1), "diff expects prepend or append to be the same dimension as input"),
    (gg.zeros(1, 1), r"input.size\(0\) = 2, but got tensor.size\(0\) = 1"),
])
def test_diff_refuses_prepend_and_append_of_other_shapes(other, message):
    with pytest.raises(RuntimeError, match=message):
        gg.diff(gg.ones(2, 3), prepend=other)
    with pytest.raises(RuntimeError, match=message):
        gg.diff(gg.ones(2, 3), append=other)


@pytest.mark.parametrize("values, kwargs, shown", [
    ([1.0, math.nan], {}, "nan, nan"), ([1.0, math.inf], {}, "1, inf"),
    ([1.0, 2.0], {"min": 0, "max": math.inf}, "0, inf"),
])
def test_histc_refuses_a_range_that_is_not_finite(values, kwargs, shown):
    with pytest.raises(RuntimeError, match=rf"torch.histc: range of \[{shown}\] is not finite"):
        gg.histc(gg.tensor(values), bins=3, **kwargs)


def test_histc_leaves_out_nan_inside_a_given_range():
    assert gg.histc(gg.tensor([1.0, 2.0, math.nan]), bins=3, min=0, max=3).tolist() == [0.0, 1.0, 1.0]


def test_matches_pytorch():
    torch = pytest.importorskip("torch")
    x = np.arange(12.0).reshape(3, 4) ** 2
    for dim, other in ((1, np.ones((3, 2))), (0, np.ones((1, 4)))):
        want = torch.diff(torch.tensor(x), dim=dim, prepend=torch.tensor(other), append=torch.tensor(other), n=2)
        got = gg.diff(gg.tensor(x), dim=dim, prepend=gg.tensor(other), append=gg.tensor(other), n=2)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    for values in ([1.0, math.nan], [math.inf, 2.0], [-math.inf]):
        with pytest.raises(RuntimeError):
            torch.histc(torch.tensor(values))
        with pytest.raises(RuntimeError):
            gg.histc(gg.tensor(values))
