"""Pooling ops: MaxPool2D, MaxPool2DBackward, AvgPool2D, AvgPool2DBackward.

The NumPy references follow PyTorch (floor or ceil mode, symmetric padding, padded positions
never win a max; the first maximum of a window, in row-major order, takes the gradient; average
divisors: divisor_override, or the window within the padded input, or its real elements)."""
import numpy as np

from glassgrad.testing import OpSpec


def _rand(rng, dtype, *shape):
    return rng.standard_normal(shape).astype(dtype)


def _ties(rng, dtype, *shape):
    """Small integers: most windows hold several equal maxima."""
    return rng.integers(-1, 2, size=shape).astype(dtype)


def _out_size(n, k, s, p, ceil_mode):
    span = n + 2 * p - k
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    return out


def _geometry(x_shape, kernel, stride=None, padding=(0, 0), ceil_mode=False):
    stride = kernel if stride is None else stride
    ho = _out_size(x_shape[2], kernel[0], stride[0], padding[0], ceil_mode)
    wo = _out_size(x_shape[3], kernel[1], stride[1], padding[1], ceil_mode)
    return tuple(kernel), tuple(stride), tuple(padding), ho, wo


def _pad(x, padding, value, k=None, s=None, out=None):
    """Padding on every side, and past the bottom/right padding as far as ceil mode's last
    windows reach (never read as data: -inf for max, zeros outside the divisor for avg)."""
    ph, pw = padding
    eh = ew = 0
    if out is not None:
        eh = max(0, (out[0] - 1) * s[0] + k[0] - (x.shape[2] + 2 * ph))
        ew = max(0, (out[1] - 1) * s[1] + k[1] - (x.shape[3] + 2 * pw))
    return np.pad(x, ((0, 0), (0, 0), (ph, ph + eh), (pw, pw + ew)), constant_values=value)


def _windows(shape, kernel, stride, ho, wo):
    """Yields (i, j, rows, cols) of each window, in padded coordinates."""
    for i in range(ho):
        for j in range(wo):
            yield i, j, slice(i * stride[0], i * stride[0] + kernel[0]), slice(j * stride[1], j * stride[1] + kernel[1])


def max_pool2d_ref(x, kernel, stride=None, padding=(0, 0), ceil_mode=False):
    k, s, p, ho, wo = _geometry(x.shape, kernel, stride, padding, ceil_mode)
    xp = _pad(x, p, -np.inf, k, s, (ho, wo))
    y = np.empty(x.shape[:2] + (ho, wo), dtype=x.dtype)
    for i, j, rows, cols in _windows(x.shape, k, s, ho, wo):
        y[:, :, i, j] = xp[:, :, rows, cols].max(axis=(2, 3))
    return y


def max_pool2d_backward_ref(g, x, kernel, stride=None, padding=(0, 0), ceil_mode=False, activation="none"):
    """activation "relu": the fused ReLUBackward(dx, x) of the fusion pass, x > 0 ? dx : 0."""
    if activation == "relu":
        dx = max_pool2d_backward_ref(g, x, kernel, stride, padding, ceil_mode)
        return np.where(x > 0, dx, np.zeros_like(dx))
    k, s, p, ho, wo = _geometry(x.shape, kernel, stride, padding, ceil_mode)
    xp = _pad(x, p, -np.inf, k, s, (ho, wo))
    dxp = np.zeros(xp.shape, dtype=x.dtype)
    n_idx, c_idx = np.meshgrid(np.arange(x.shape[0]), np.arange(x.shape[1]), indexing="ij")
    for i, j, rows, cols in _windows(x.shape, k, s, ho, wo):
        win = xp[:, :, rows, cols].reshape(x.shape[0], x.shape[1], -1)
        first = win.argmax(axis=2)  # np.argmax returns the first maximum
        r = rows.start + first // k[1]
        q = cols.start + first % k[1]
        np.add.at(dxp, (n_idx, c_idx, r, q), g[:, :, i, j])
    return dxp[:, :, p[0]:p[0] + x.shape[2], p[1]:p[1] + x.shape[3]]


def _divisors(x_shape, k, s, p, ho, wo, count_include_pad, divisor_override=None):
    d = np.empty((ho, wo))
    real = _pad(np.ones((1, 1) + tuple(x_shape[2:])), p, 0.0, k, s, (ho, wo))
    for i, j, rows, cols in _windows(x_shape, k, s, ho, wo):
        if divisor_override:
            d[i, j] = divisor_override
        elif count_include_pad:  # the window within the padded input (h + 2p rows)
            d[i, j] = ((min(rows.stop, x_shape[2] + 2 * p[0]) - rows.start)
                       * (min(cols.stop, x_shape[3] + 2 * p[1]) - cols.start))
        else:
            d[i, j] = real[0, 0, rows, cols].sum()
    return d


def avg_pool2d_ref(x, kernel, stride=None, padding=(0, 0), count_include_pad=True, ceil_mode=False,
                   divisor_override=None):
    k, s, p, ho, wo = _geometry(x.shape, kernel, stride, padding, ceil_mode)
    xp = _pad(x.astype(np.float64), p, 0.0, k, s, (ho, wo))
    div = _divisors(x.shape, k, s, p, ho, wo, count_include_pad, divisor_override)
    y = np.empty(x.shape[:2] + (ho, wo))
    for i, j, rows, cols in _windows(x.shape, k, s, ho, wo):
        y[:, :, i, j] = xp[:, :, rows, cols].sum(axis=(2, 3)) / div[i, j]
    return y.astype(x.dtype)


def avg_pool2d_backward_ref(g, kernel, input_shape, stride=None, padding=(0, 0), count_include_pad=True,
                            ceil_mode=False, divisor_override=None):
    k, s, p, ho, wo = _geometry(input_shape, kernel, stride, padding, ceil_mode)
    div = _divisors(input_shape, k, s, p, ho, wo, count_include_pad, divisor_override)
    n, c, h, w = input_shape
    dxp = _pad(np.zeros((n, c, h, w)), p, 0.0, k, s, (ho, wo))
    for i, j, rows, cols in _windows(input_shape, k, s, ho, wo):
        dxp[:, :, rows, cols] += (g[:, :, i, j] / div[i, j])[:, :, None, None]
    return dxp[:, :, p[0]:p[0] + h, p[1]:p[1] + w].astype(g.dtype)


def _pooled(shape, attrs):
    return _geometry(shape, attrs["kernel"], attrs.get("stride"), attrs.get("padding", (0, 0)),
                     attrs.get("ceil_mode", False))[3:]


# (name, attrs, input shape as a function of n): n lands in the batch or a spatial axis.
_MAX_CASES = [
    ("k2", {"kernel": [2, 2]}, lambda n: (2, 3, n + 1, 7)),
    ("k3s2p1", {"kernel": [3, 3], "stride": [2, 2], "padding": [1, 1]}, lambda n: (n, 2, 9, 8)),
    ("k2x3-s1x2-p1", {"kernel": [2, 3], "stride": [1, 2], "padding": [1, 1]}, lambda n: (2, 2, n + 2, n + 3)),
    # ceil mode: odd sizes keep a last, partial window (and n + 2 = 3 keeps none past the padding)
    ("k2-ceil", {"kernel": [2, 2], "ceil_mode": True}, lambda n: (2, 2, n + 2, 2 * n + 1)),
    ("k3s2p1-ceil", {"kernel": [3, 3], "stride": [2, 2], "padding": [1, 1], "ceil_mode": True},
     lambda n: (2, 2, n + 5, n + 6)),
]

_AVG_CASES = [
    ("k2", {"kernel": [2, 2]}, lambda n: (2, 3, n + 1, 7)),
    ("k3s2p1", {"kernel": [3, 3], "stride": [2, 2], "padding": [1, 1]}, lambda n: (n, 2, 9, 8)),
    ("k3s2p1-exclude-pad", {"kernel": [3, 3], "stride": [2, 2], "padding": [1, 1], "count_include_pad": False},
     lambda n: (2, 2, n + 2, n + 4)),
    ("k2-ceil", {"kernel": [2, 2], "ceil_mode": True}, lambda n: (2, 2, n + 2, 2 * n + 1)),
    ("k3s2p1-ceil", {"kernel": [3, 3], "stride": [2, 2], "padding": [1, 1], "ceil_mode": True},
     lambda n: (2, 2, n + 5, n + 6)),
    ("k3s2p1-ceil-exclude-pad", {"kernel": [3, 3], "stride": [2, 2], "padding": [1, 1], "ceil_mode": True,
                                 "count_include_pad": False}, lambda n: (2, 2, n + 5, n + 6)),
    ("k3s2p1-divisor-override", {"kernel": [3, 3], "stride": [2, 2], "padding": [1, 1], "divisor_override": 5},
     lambda n: (2, 2, n + 2, n + 4)),
]

SPECS = []
for _name, _attrs, _shape in _MAX_CASES:
    SPECS += [
        OpSpec("MaxPool2D", max_pool2d_ref, lambda rng, dt, n, s=_shape: [_rand(rng, dt, *s(n))],
               attrs=_attrs, grad=(0,), name=f"MaxPool2D-{_name}"),
        OpSpec("MaxPool2D", max_pool2d_ref, lambda rng, dt, n, s=_shape: [_ties(rng, dt, *s(n))],
               attrs=_attrs, name=f"MaxPool2D-{_name}-ties"),
        OpSpec("MaxPool2DBackward", max_pool2d_backward_ref,
               lambda rng, dt, n, s=_shape, a=_attrs: [_rand(rng, dt, s(n)[0], s(n)[1], *_pooled(s(n), a)),
                                                       _ties(rng, dt, *s(n))],
               attrs=_attrs, name=f"MaxPool2DBackward-{_name}-ties"),
        OpSpec("MaxPool2DBackward", max_pool2d_backward_ref,
               lambda rng, dt, n, s=_shape, a=_attrs: [_rand(rng, dt, s(n)[0], s(n)[1], *_pooled(s(n), a)),
                                                       _ties(rng, dt, *s(n))],
               attrs=dict(_attrs, activation="relu"), name=f"MaxPool2DBackward-{_name}-relu"),
    ]
for _name, _attrs, _shape in _AVG_CASES:
    SPECS += [
        OpSpec("AvgPool2D", avg_pool2d_ref, lambda rng, dt, n, s=_shape: [_rand(rng, dt, *s(n))],
               attrs=_attrs, grad=(0,), name=f"AvgPool2D-{_name}"),
        OpSpec("AvgPool2DBackward", avg_pool2d_backward_ref,
               lambda rng, dt, n, s=_shape, a=_attrs: [_rand(rng, dt, s(n)[0], s(n)[1], *_pooled(s(n), a))],
               attrs=lambda n, s=_shape, a=_attrs: dict(a, input_shape=list(s(n))), grad=(0,),
               name=f"AvgPool2DBackward-{_name}"),
    ]
