"""F.max_pool2d / max_pool3d (and nn.MaxPool2d) of integer tensors, as PyTorch's: the maxima in the
input's dtype (uint8 masks and int64 label maps downsample this way), indices as for floats; bool
is PyTorch's NotImplementedError. Expected values are PyTorch 2's."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F

X = gg.arange(16).reshape(1, 1, 4, 4)


@pytest.mark.parametrize("dtype", [gg.int64, gg.int32, gg.int16, gg.int8, gg.uint8])
def test_integer_max_pool_keeps_the_dtype(dtype):
    x = X.to(dtype)
    out = F.max_pool2d(x, 2)
    assert out.dtype == dtype and out.tolist() == [[[[5, 7], [13, 15]]]]
    values, indices = F.max_pool2d(x, 2, return_indices=True)
    assert values.dtype == dtype and indices.tolist() == [[[[5, 7], [13, 15]]]]
    assert F.max_pool3d(x[None], (1, 2, 2)).tolist() == [[[[[5, 7], [13, 15]]]]]
    assert gg.nn.MaxPool2d(3, 1, 1)(x)[0, 0, 0].tolist() == [5, 6, 7, 7]


def test_negative_integers_and_padding():
    x = -gg.arange(9).reshape(1, 1, 3, 3)
    assert F.max_pool2d(x, 2, 1, 1).tolist() == [[[[0, 0, -1, -2], [0, 0, -1, -2], [-3, -3, -4, -5],
                                                    [-6, -6, -7, -8]]]]


def test_bool_is_refused():
    with pytest.raises(NotImplementedError, match="\"max_pool2d\" not implemented for 'Bool'"):
        F.max_pool2d(X > 3, 2)


def test_matches_pytorch():
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(0).integers(-100, 100, (2, 3, 7, 8))
    for kw in (dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
               dict(kernel_size=3, dilation=2, return_indices=True)):
        want = torch.nn.functional.max_pool2d(torch.tensor(x), **kw)
        got = F.max_pool2d(gg.tensor(x), **kw)
        for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
            assert str(g.dtype).split(".")[-1] == str(w.dtype).split(".")[-1]
            np.testing.assert_array_equal(g.numpy(), w.numpy())
