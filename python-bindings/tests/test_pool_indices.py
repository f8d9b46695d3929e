"""Max pooling with return_indices and dilation, adaptive max pooling's indices, and max
unpooling (docs/pooling.md, "Indices and unpooling"), against a NumPy restatement written from
PyTorch's documented rules: windows in scan order, the first maximum wins a tie, a window holding
NaN gives its last NaN, indices are flat positions h * W + w in each input plane. Gradients by
float64 finite differences."""
import math

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F

RNG = np.random.default_rng(7)


def _size(n, k, s, p, d, ceil):
    span = n + 2 * p - d * (k - 1) - 1
    out = (math.ceil(span / s) if ceil else span // s) + 1
    return out - 1 if ceil and (out - 1) * s >= n + p else out


def _winner(x, positions):
    """(value, flat index) of the window over plane x seen at positions, PyTorch's rule."""
    best, where = -np.inf, positions[0]
    for q in positions:
        v = x.flat[q]
        if v > best or np.isnan(v):
            best, where = v, q
    return best, where


def max_pool2d_numpy(x, k, s, p, d, ceil):
    n, c, h, w = x.shape
    oh, ow = _size(h, k[0], s[0], p[0], d[0], ceil), _size(w, k[1], s[1], p[1], d[1], ceil)
    values, indices = np.zeros((n, c, oh, ow), x.dtype), np.zeros((n, c, oh, ow), np.int64)
    for i in range(oh):
        for j in range(ow):
            rows = [i * s[0] - p[0] + a * d[0] for a in range(k[0])]
            cols = [j * s[1] - p[1] + b * d[1] for b in range(k[1])]
            seen = [r * w + q for r in rows for q in cols if 0 <= r < h and 0 <= q < w]
            for b in range(n):
                for ch in range(c):
                    values[b, ch, i, j], indices[b, ch, i, j] = _winner(x[b, ch], seen)
    return values, indices


def adaptive_max_pool2d_numpy(x, oh, ow):
    n, c, h, w = x.shape
    values, indices = np.zeros((n, c, oh, ow), x.dtype), np.zeros((n, c, oh, ow), np.int64)
    for i in range(oh):
        for j in range(ow):
            rows = range((i * h) // oh, -(-(i + 1) * h // oh))
            cols = range((j * w) // ow, -(-(j + 1) * w // ow))
            seen = [r * w + q for r in rows for q in cols]
            for b in range(n):
                for ch in range(c):
                    values[b, ch, i, j], indices[b, ch, i, j] = _winner(x[b, ch], seen)
    return values, indices


def _with_ties(shape):
    x = RNG.standard_normal(shape)
    x[..., 0, :3] = 2.5          # equal maxima in one window: the first must win
    return x


GEOMETRIES = [  # (H, W), kernel, stride, padding, dilation, ceil_mode
    ((7, 7), (3, 3), (2, 2), (1, 1), (1, 1), True),
    ((8, 9), (2, 2), (2, 2), (0, 0), (1, 1), False),
    ((9, 9), (3, 3), (1, 1), (1, 1), (2, 2), False),
    ((10, 7), (3, 2), (2, 1), (1, 0), (2, 3), True),
    ((5, 5), (2, 2), (1, 1), (1, 1), (1, 1), True),
    ((6, 6), (3, 3), (3, 3), (1, 1), (1, 1), True),
]


@pytest.mark.parametrize("hw, k, s, p, d, ceil", GEOMETRIES)
def test_max_pool2d_returns_pytorch_s_values_and_indices(hw, k, s, p, d, ceil):
    x = _with_ties((2, 3, *hw))
    values, indices = F.max_pool2d(gg.tensor(x), k, s, p, d, ceil, return_indices=True)
    want_v, want_i = max_pool2d_numpy(x, k, s, p, d, ceil)
    np.testing.assert_array_equal(values.numpy(), want_v)
    np.testing.assert_array_equal(indices.numpy(), want_i)
    assert indices.dtype == gg.int64
    plain = F.max_pool2d(gg.tensor(x), k, s, p, d, ceil)
    np.testing.assert_array_equal(plain.numpy(), want_v)


@pytest.mark.parametrize("hw, k, s, p, d, ceil", GEOMETRIES[:4])
def test_max_pool2d_with_indices_sends_the_gradient_to_each_winner(hw, k, s, p, d, ceil):
    x = RNG.standard_normal((1, 2, *hw))
    weights = gg.tensor(RNG.standard_normal((1, 2, _size(hw[0], k[0], s[0], p[0], d[0], ceil),
                                             _size(hw[1], k[1], s[1], p[1], d[1], ceil))))
    gg.debug.gradcheck(lambda t: (F.max_pool2d(t, k, s, p, d, ceil, return_indices=True)[0] * weights).sum(), [x])
    gg.debug.gradcheck(lambda t: (F.max_pool2d(t, k, s, p, d, ceil) ** 2).sum(), [x])


def test_a_window_with_nan_gives_nan_and_its_last_nan():
    x = np.array([[[[1.0, np.nan, 0.5], [3.0, np.nan, 0.25]]]])
    values, indices = F.max_pool2d(gg.tensor(x), (2, 2), 1, return_indices=True)
    assert np.isnan(values.numpy()).all()
    np.testing.assert_array_equal(indices.numpy(), [[[[4, 4]]]])


def test_max_pool1d_indices_are_positions_along_the_length():
    x = _with_ties((2, 3, 11))
    values, indices = F.max_pool1d(gg.tensor(x), 3, 2, 1, 2, True, return_indices=True)
    want_v, want_i = max_pool2d_numpy(x[:, :, None], (1, 3), (1, 2), (0, 1), (1, 2), True)
    np.testing.assert_array_equal(values.numpy(), want_v[:, :, 0])
    np.testing.assert_array_equal(indices.numpy(), want_i[:, :, 0])
    v1, i1 = F.max_pool1d_with_indices(gg.tensor(x[0]), 3)
    np.testing.assert_array_equal(i1.numpy(), max_pool2d_numpy(x[:1, :, None], (1, 3), (1, 3), (0, 0), (1, 1),
                                                               False)[1][0, :, 0])


@pytest.mark.parametrize("size", [(2, 3), (3, None), 4, (5, 7), 1])
def test_adaptive_max_pool2d_indices_and_gradient(size):
    x = _with_ties((2, 3, 7, 9))
    oh, ow = (size, size) if isinstance(size, int) else (size[0], size[1] or 9)
    values, indices = F.adaptive_max_pool2d(gg.tensor(x), size, return_indices=True)
    want_v, want_i = adaptive_max_pool2d_numpy(x, oh, ow)
    np.testing.assert_array_equal(values.numpy(), want_v)
    np.testing.assert_array_equal(indices.numpy(), want_i)
    layer = nn.AdaptiveMaxPool2d(size, return_indices=True)
    np.testing.assert_array_equal(layer(gg.tensor(x))[1].numpy(), want_i)
    gg.debug.gradcheck(lambda t: (F.adaptive_max_pool2d(t, size) ** 2).sum(), [RNG.standard_normal((1, 2, 7, 9))])


def test_adaptive_max_pool1d_indices():
    x = _with_ties((3, 10))
    values, indices = nn.AdaptiveMaxPool1d(4, return_indices=True)(gg.tensor(x))
    want_v, want_i = adaptive_max_pool2d_numpy(x[None, :, None], 1, 4)
    np.testing.assert_array_equal(values.numpy(), want_v[0, :, 0])
    np.testing.assert_array_equal(indices.numpy(), want_i[0, :, 0])


def _unpool_numpy(values, indices, size):
    out = np.zeros(values.shape[:2] + (int(np.prod(size)),))
    for (b, c), _ in np.ndenumerate(values[..., 0, 0] if values.ndim == 4 else values[..., 0]):
        out[b, c, indices[b, c].ravel()] = values[b, c].ravel()
    return out.reshape(values.shape[:2] + tuple(size))


@pytest.mark.parametrize("hw, k, s, p", [((7, 7), 3, 2, 1), ((8, 6), 2, 2, 0), ((5, 9), (2, 3), (1, 2), (1, 1))])
def test_max_unpool2d_puts_each_maximum_back(hw, k, s, p):
    x = RNG.standard_normal((2, 3, *hw))
    pool, unpool = nn.MaxPool2d(k, s, p, return_indices=True), nn.MaxUnpool2d(k, s, p)
    values, indices = pool(gg.tensor(x))
    out = unpool(values, indices, output_size=x.shape)
    assert tuple(out.shape) == x.shape
    np.testing.assert_array_equal(out.numpy(), _unpool_numpy(values.numpy(), indices.numpy(), hw))
    default = F.max_unpool2d(values, indices, k, s, p)
    kk, ss, pp = [(v, v) if isinstance(v, int) else v for v in (k, s, p)]
    assert tuple(default.shape[2:]) == tuple((n - 1) * a - 2 * c + b for n, a, c, b in
                                             zip(values.shape[2:], ss, pp, kk))
    # Overlapping windows can name one element twice: PyTorch's gradient is the output's gradient
    # gathered at each index (every duplicate gets it), which finite differences see only where
    # the indices are distinct.
    weights = RNG.standard_normal(x.shape)
    v = values.detach().requires_grad_()
    (F.max_unpool2d(v, indices, k, s, p, output_size=hw) * gg.tensor(weights)).sum().backward()
    gathered = np.take_along_axis(weights.reshape(2, 3, -1), indices.numpy().reshape(2, 3, -1), 2)
    np.testing.assert_allclose(v.grad.numpy(), gathered.reshape(values.shape), rtol=1e-12)
    planes = indices.numpy().reshape(6, -1)
    if all(len(np.unique(plane)) == plane.size for plane in planes):
        gg.debug.gradcheck(lambda v: (F.max_unpool2d(v, indices, k, s, p, output_size=hw) * gg.tensor(weights)).sum(),
                           [values.numpy()])


def test_max_unpool1d_and_unbatched_input():
    x = RNG.standard_normal((3, 9))
    values, indices = nn.MaxPool1d(2, return_indices=True)(gg.tensor(x))
    out = nn.MaxUnpool1d(2)(values, indices, output_size=[9])
    np.testing.assert_array_equal(out.numpy(), _unpool_numpy(values.numpy()[None], indices.numpy()[None], (9,))[0])
    assert repr(nn.MaxUnpool1d(2)) == "MaxUnpool1d(kernel_size=(2,), stride=(2,), padding=(0,))"
    assert repr(nn.MaxUnpool2d(2, 1)) == "MaxUnpool2d(kernel_size=(2, 2), stride=(1, 1), padding=(0, 0))"


@pytest.mark.parametrize("call, kind, needle", [
    (lambda v, i: F.max_unpool2d(v, i * 10, 2), gg.GlassgradIndexError, "invalid max index"),
    (lambda v, i: F.max_unpool2d(v, i.int(), 2), gg.DTypeError, "indices must be int64"),
    (lambda v, i: F.max_unpool2d(v, i[..., :1], 2), gg.ShapeError, "indices must have the input's shape"),
    (lambda v, i: F.max_unpool2d(v, i, 2, output_size=(1, 1)), gg.InvalidArgumentError, "must be between 2 and 6"),
    (lambda v, i: F.max_unpool2d(v, i, 2, output_size=(4, 4, 4)), gg.InvalidArgumentError, "2 or 4 ints"),
])
def test_max_unpool2d_refuses_what_pytorch_refuses(call, kind, needle):
    values, indices = F.max_pool2d(gg.randn(1, 1, 5, 5), 2, return_indices=True)
    with pytest.raises(kind, match=needle):
        call(values, indices)


def test_max_pool2d_refuses_an_empty_output_and_bad_dilation():
    with pytest.raises(gg.ShapeError, match="output would be empty"):
        F.max_pool2d(gg.randn(1, 1, 3, 3), 2, dilation=3)
    with pytest.raises(gg.InvalidArgumentError, match="dilation"):
        nn.MaxPool2d(2, dilation=0)(gg.randn(1, 1, 4, 4))  # refused by the call, as PyTorch's
