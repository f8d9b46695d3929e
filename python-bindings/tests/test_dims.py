"""Every API that takes a dim accepts exactly [-ndim, ndim - 1] (unsqueeze: [-ndim - 1, ndim]) and
raises IndexError (glassgrad.GlassgradIndexError) naming the op and the valid range otherwise:
an out-of-range dim is never wrapped modulo ndim. One table of (api, numpy reference) drives
both the refusals and the results for every valid dim."""
import numpy as np
import pytest

import glassgrad as gg


def _softmax(a, d):
    e = np.exp(a - a.max(axis=d, keepdims=True))
    return e / e.sum(axis=d, keepdims=True)


def _flatten(a, s, e):
    n = a.ndim
    s, e = s % n, e % n
    return a.reshape(a.shape[:s] + (-1,) + a.shape[e + 1:])


# name -> (glassgrad call, NumPy reference, how many extra valid positions: 1 for unsqueeze)
APIS = {
    "Tensor.size": (lambda x, d: np.array(x.size(d)), lambda a, d: np.array(a.shape[d]), 0),
    "Tensor.sum": (lambda x, d: x.sum(d), lambda a, d: a.sum(axis=d), 0),
    "glassgrad.sum": (lambda x, d: gg.sum(x, d, keepdim=True), lambda a, d: a.sum(axis=d, keepdims=True), 0),
    "Tensor.mean": (lambda x, d: x.mean(d), lambda a, d: a.mean(axis=d), 0),
    "Tensor.var": (lambda x, d: x.var(d, unbiased=False), lambda a, d: a.var(axis=d), 0),
    "Tensor.std": (lambda x, d: x.std(d, unbiased=False), lambda a, d: a.std(axis=d), 0),
    "Tensor.amax": (lambda x, d: x.amax(d), lambda a, d: a.max(axis=d), 0),
    "glassgrad.max.values": (lambda x, d: gg.max(x, d).values, lambda a, d: a.max(axis=d), 0),
    "Tensor.argmax": (lambda x, d: x.argmax(d), lambda a, d: a.argmax(axis=d), 0),
    "glassgrad.softmax": (lambda x, d: gg.softmax(x, d), _softmax, 0),
    "Tensor.log_softmax": (lambda x, d: x.log_softmax(d), lambda a, d: np.log(_softmax(a, d)), 0),
    "Tensor.unsqueeze": (lambda x, d: x.unsqueeze(d), lambda a, d: np.expand_dims(a, d), 1),
    "Tensor.squeeze": (lambda x, d: x.squeeze(d), lambda a, d: np.squeeze(a, d) if a.shape[d] == 1 else a, 0),
    "Tensor.transpose": (lambda x, d: x.transpose(d, 0), lambda a, d: np.swapaxes(a, d, 0), 0),
    "Tensor.permute": (lambda x, d: x.permute([d] + [i for i in range(x.ndim) if i != d % x.ndim]),
                       lambda a, d: np.transpose(a, [d % a.ndim] + [i for i in range(a.ndim) if i != d % a.ndim]), 0),
    "glassgrad.flatten.start": (lambda x, d: gg.flatten(x, d), lambda a, d: _flatten(a, d, -1), 0),
    "Tensor.flatten.end": (lambda x, d: x.flatten(0, d), lambda a, d: _flatten(a, 0, d), 0),
    "nn.Flatten": (lambda x, d: gg.nn.Flatten(d, -1)(x), lambda a, d: _flatten(a, d, -1), 0),
    "glassgrad.cat": (lambda x, d: gg.cat([x, x * 2.0], d), lambda a, d: np.concatenate([a, a * 2.0], axis=d), 0),
    "nn.Unflatten": (lambda x, d: gg.nn.Unflatten(d, (1, -1))(x),
                     lambda a, d: np.expand_dims(a, d % a.ndim), 0),
}

SHAPES = [(5,), (2, 3), (2, 1, 3), (1, 2, 3, 2)]


@pytest.mark.parametrize("api", sorted(APIS))
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_every_valid_dim_matches_numpy(api, shape):
    call, ref, extra = APIS[api]
    a = np.random.default_rng(0).standard_normal(shape).astype(np.float64)
    x = gg.tensor(a)
    n = a.ndim + extra
    for d in range(-n, n):
        got = np.asarray(call(x, d))
        np.testing.assert_allclose(got, ref(a, d), rtol=1e-10, atol=1e-12, err_msg=f"{api} dim={d}")


@pytest.mark.parametrize("api", sorted(APIS))
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_every_out_of_range_dim_raises_index_error(api, shape):
    call, _, extra = APIS[api]
    x = gg.tensor(np.zeros(shape, np.float32))
    n = len(shape) + extra
    for d in (n, n + 1, -n - 1, 7 * n, -7 * n):
        with pytest.raises(IndexError, match=r"out of range") as info:
            call(x, d)
        assert isinstance(info.value, gg.GlassgradIndexError)
        assert f"[{-n}, {n - 1}]" in str(info.value), str(info.value)


def test_dims_of_a_zero_dimensional_tensor():
    x = gg.tensor(2.0)
    assert x.flatten().shape == (1,)
    assert x.unsqueeze(0).shape == (1,) and x.unsqueeze(-1).shape == (1,)
    assert x.squeeze(0).shape == () and x.sum(0).shape == () and x.sum(-1).shape == ()  # as PyTorch
    for bad in (lambda: x.unsqueeze(2), lambda: x.flatten(1), lambda: x.sum(1), lambda: x.squeeze(1)):
        with pytest.raises(gg.GlassgradIndexError):
            bad()


def test_flatten_with_start_after_end_raises():
    with pytest.raises(gg.ShapeError, match="start_dim"):
        gg.tensor(np.zeros((2, 3, 4))).flatten(2, 1)

