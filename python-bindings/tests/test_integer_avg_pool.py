"""Average pooling of int64 tensors as PyTorch's (chenyuntc's pytorch-book pools an arange):
integer windows averaged and truncated toward zero; other integer and bool dtypes raise PyTorch's
NotImplementedError."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F


def test_int64_windows_average_and_truncate():
    x = gg.arange(16).reshape(1, 1, 4, 4)
    y = F.avg_pool2d(x, 2)
    assert y.dtype == gg.int64 and y.tolist() == [[[[2, 4], [10, 12]]]]
    assert gg.nn.AvgPool2d(2)(x).tolist() == [[[[2, 4], [10, 12]]]]
    # toward zero: -10 / 9 is -1, not -2 (a padded 3x3 window counts its zeros)
    assert F.avg_pool2d(-x, 3, 1, 1)[0, 0, 1, 1].item() == -5
    assert F.avg_pool2d(-x, 3, 1, 1)[0, 0, 0, 0].item() == -1
    assert F.avg_pool1d(gg.arange(6).reshape(1, 1, 6), 2).tolist() == [[[0, 2, 4]]]
    assert F.avg_pool3d(gg.arange(8).reshape(1, 1, 2, 2, 2), 2).tolist() == [[[[[3]]]]]
    assert F.avg_pool2d(x, 2, divisor_override=3).tolist() == [[[[3, 6], [14, 16]]]]  # 42 // 3, 50 // 3


@pytest.mark.parametrize("dtype, name", [("uint8", "Byte"), ("int32", "Int"), ("bool", "Bool")])
def test_other_integer_dtypes_are_refused_as_pytorch(dtype, name):
    with pytest.raises(NotImplementedError, match=f"\"avg_pool2d\" not implemented for '{name}'"):
        F.avg_pool2d(gg.zeros(1, 1, 2, 2, dtype=getattr(gg, dtype)), 2)


def test_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    for args, kwargs in [((2,), {}), ((3, 1, 1), {}), ((3, 2, 1), {"ceil_mode": True}),
                         ((3, 1, 1), {"count_include_pad": False}), ((2,), {"divisor_override": 3})]:
        a = rng.integers(-50, 50, (2, 3, 5, 6))
        want = torch.nn.functional.avg_pool2d(torch.tensor(a), *args, **kwargs).numpy()
        np.testing.assert_array_equal(F.avg_pool2d(gg.tensor(a), *args, **kwargs).numpy(), want)
