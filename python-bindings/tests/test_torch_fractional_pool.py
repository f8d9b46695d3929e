"""F.fractional_max_pool2d/3d and nn.FractionalMaxPool2d/3d against PyTorch with the same
_random_samples (values, indices and gradients equal: PyTorch's window formula in the input's
dtype, first maximum on ties, last NaN), a NumPy restatement of the windows, finite differences,
PyTorch's errors and the layers' buffer and printed form. Skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F
from torch_compare import compare

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _case(rng, n, dtype, batched=True):
    spatial = tuple(int(v) for v in rng.integers(4, 9 if n == 2 else 7, n))
    k = int(rng.integers(1, 4 if n == 2 else 3))
    strict = 1 if n == 3 else 0  # PyTorch's 3-D bound is output + kernel - 1 < input
    out = tuple(int(rng.integers(1, s - k + 2 - strict)) for s in spatial)
    shape = ((2, 3) if batched else (3,)) + spatial
    samples = rng.random((2, 3, n)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype), k, out, samples


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("seed", range(6))
def test_fractional_max_pool_equals_torch_with_the_same_samples(n, dtype, seed):
    rng = np.random.default_rng(seed)
    ours_f = F.fractional_max_pool2d if n == 2 else F.fractional_max_pool3d
    theirs_f = TF.fractional_max_pool2d if n == 2 else TF.fractional_max_pool3d
    for batched in (True, False):
        x, k, out, samples = _case(rng, n, dtype, batched)
        s = samples if batched else samples[:1]
        a, ia = ours_f(gg.tensor(x), k, output_size=out, return_indices=True, _random_samples=gg.tensor(s))
        b, ib = theirs_f(torch.tensor(x), k, output_size=out, return_indices=True, _random_samples=torch.tensor(s))
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        np.testing.assert_array_equal(ia.numpy(), ib.numpy())
        assert a.dtype == x.dtype and ia.dtype == "int64"
    # output_ratio, and the gradient in float64 (each winner gets its outputs' gradients)
    x, k, _, samples = _case(rng, n, "float64")
    ratio = (0.5, 0.6) if n == 2 else (0.5, 0.4, 0.5)  # a tuple: torch's F takes no float ratio in 2-D
    compare(ours_f, theirs_f, [x], (0,), dict(kernel_size=k if n == 2 else 2, output_ratio=ratio,
                                               _random_samples=samples))


def test_ties_take_the_first_maximum_and_nan_the_last_as_torch():
    rng = np.random.default_rng(7)
    x = rng.integers(0, 3, (2, 2, 9, 9)).astype(np.float64)  # many ties
    x[0, 0, 1:4, 2:5] = np.nan
    x[1, 1, 0, :] = np.nan
    samples = rng.random((2, 2, 2))
    a, ia = F.fractional_max_pool2d(gg.tensor(x), 3, output_size=(4, 5), return_indices=True,
                                    _random_samples=gg.tensor(samples))
    b, ib = TF.fractional_max_pool2d(torch.tensor(x), 3, output_size=(4, 5), return_indices=True,
                                     _random_samples=torch.tensor(samples))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    np.testing.assert_array_equal(ia.numpy(), ib.numpy())
    x3 = rng.integers(0, 2, (1, 2, 6, 5, 6)).astype(np.float32)
    x3[0, 1, 2, 2, 2] = np.nan
    s3 = rng.random((1, 2, 3)).astype(np.float32)
    a, ia = F.fractional_max_pool3d_with_indices(gg.tensor(x3), 2, (3, 3, 4), _random_samples=gg.tensor(s3))
    b, ib = TF.fractional_max_pool3d(torch.tensor(x3), 2, (3, 3, 4), return_indices=True,
                                     _random_samples=torch.tensor(s3))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    np.testing.assert_array_equal(ia.numpy(), ib.numpy())


def _windows_numpy(u, size, out, k):
    if out == 1:
        return [size - k]
    alpha = (size - k) / (out - 1)
    return [int((i + u) * alpha) - int(u * alpha) for i in range(out - 1)] + [size - k]


def test_fractional_max_pool2d_matches_numpy_and_finite_differences():
    rng = np.random.default_rng(9)
    x = rng.standard_normal((1, 2, 9, 8))
    samples = rng.random((1, 2, 2))
    got = F.fractional_max_pool2d(gg.tensor(x), (3, 2), output_size=(4, 5), _random_samples=gg.tensor(samples))
    want = np.empty((1, 2, 4, 5))
    for c in range(2):
        rows = _windows_numpy(samples[0, c, 1], 9, 4, 3)  # PyTorch's order: sample 0 for the width
        cols = _windows_numpy(samples[0, c, 0], 8, 5, 2)
        for i, r in enumerate(rows):
            for j, q in enumerate(cols):
                want[0, c, i, j] = x[0, c, r:r + 3, q:q + 2].max()
    np.testing.assert_array_equal(got.numpy(), want)
    s = gg.tensor(samples)
    assert gg.debug.gradcheck(lambda t: (F.fractional_max_pool2d(t, 2, output_size=(5, 4), _random_samples=s) ** 2)
                              .sum(), [x])
    x3 = rng.standard_normal((2, 5, 6, 5))
    s3 = gg.tensor(rng.random((1, 2, 3)))
    assert gg.debug.gradcheck(lambda t: F.fractional_max_pool3d(t, 2, output_size=(3, 4, 2), _random_samples=s3)
                              .sum(), [x3])


def test_layers_print_keep_their_samples_and_draw_new_ones_without():
    assert repr(nn.FractionalMaxPool2d(3, output_ratio=0.5)) == repr(torch.nn.FractionalMaxPool2d(3, output_ratio=0.5))
    assert repr(nn.FractionalMaxPool3d(2, output_size=3)) == repr(torch.nn.FractionalMaxPool3d(2, output_size=3))
    rng = np.random.default_rng(11)
    samples = rng.random((2, 3, 2)).astype(np.float32)
    x = rng.standard_normal((2, 3, 10, 9)).astype(np.float32)
    ours = nn.FractionalMaxPool2d(3, output_size=(4, 4), return_indices=True, _random_samples=gg.tensor(samples))
    theirs = torch.nn.FractionalMaxPool2d(3, output_size=(4, 4), return_indices=True,
                                          _random_samples=torch.tensor(samples))
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["_random_samples"]
    (a, ia), (b, ib) = ours(gg.tensor(x)), theirs(torch.tensor(x))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    np.testing.assert_array_equal(ia.numpy(), ib.numpy())
    unpooled = F.max_unpool2d(a, ia, 3, 2, output_size=(10, 9))
    np.testing.assert_array_equal(unpooled.numpy(), TF.max_unpool2d(b, ib, 3, 2, output_size=(10, 9)).numpy())
    drawn = nn.FractionalMaxPool2d(2, output_ratio=(0.5, 0.5))
    assert list(drawn.state_dict()) == []
    y = drawn(gg.tensor(x))
    assert tuple(y.shape) == (2, 3, 5, 4)
    for i in range(2):  # every output is an element of its plane, and at least the window's corner
        assert np.isin(y.numpy()[i], x[i]).all()
    g3 = nn.FractionalMaxPool3d(2, output_ratio=0.5)(gg.tensor(rng.standard_normal((3, 6, 8, 7))))
    assert tuple(g3.shape) == (3, 3, 4, 3)


@pytest.mark.parametrize("call", [
    lambda f, lib: f.fractional_max_pool2d(lib.zeros(2, 3, 7, 6), 3, output_size=6),
    lambda f, lib: f.fractional_max_pool2d(lib.zeros(2, 3, 7, 6), 2, output_size=3, _random_samples=lib.rand(2, 3, 3)),
    lambda f, lib: f.fractional_max_pool2d(lib.zeros(2, 3, 7, 6), 2),
    lambda f, lib: f.fractional_max_pool2d(lib.zeros(2, 3, 7, 6), 2, output_size=3, _random_samples=lib.rand(1, 3, 2)),
    lambda f, lib: f.fractional_max_pool2d(lib.zeros(2, 3, 0, 6), 2, output_size=3),
    lambda f, lib: f.fractional_max_pool3d(lib.zeros(2, 3, 4, 5, 6), 3, output_size=3),
    lambda f, lib: f.fractional_max_pool3d(lib.zeros(1, 1, 7, 7, 7), 2, output_size=6),
    lambda f, lib: f.fractional_max_pool2d(lib.zeros(2, 3, 7, 6), 2, output_ratio=(0.5, 0.5, 0.5)),
])
def test_errors_are_torch_s(call):
    with pytest.raises((RuntimeError, ValueError)) as theirs:
        call(TF, torch)
    with pytest.raises(ValueError) as ours:
        call(F, gg)
    assert str(ours.value).split("\n")[0] == str(theirs.value), (str(ours.value), str(theirs.value))


@pytest.mark.parametrize("kwargs", [dict(), dict(output_size=3, output_ratio=0.5), dict(output_ratio=1.5),
                                    dict(output_ratio=(0.5, 0.0))])
def test_layer_arguments_are_checked_as_torch(kwargs):
    for ours, theirs in ((nn.FractionalMaxPool2d, torch.nn.FractionalMaxPool2d),
                         (nn.FractionalMaxPool3d, torch.nn.FractionalMaxPool3d)):
        if "output_ratio" in kwargs and isinstance(kwargs["output_ratio"], tuple) and ours is nn.FractionalMaxPool3d:
            continue
        with pytest.raises(ValueError) as want:
            theirs(2, **kwargs)
        with pytest.raises(ValueError) as got:
            ours(2, **kwargs)
        assert str(got.value).split("\n")[0] == str(want.value)


def test_a_compiled_step_draws_new_windows_at_each_replay_and_keeps_given_samples():
    x = gg.tensor(np.random.default_rng(12).standard_normal((2, 2, 16, 16)))
    drawn = nn.FractionalMaxPool2d(3, output_size=(7, 6), return_indices=True)
    step = gg.compile(lambda t: drawn(t)[1])
    runs = [step(x).numpy().copy() for _ in range(5)]  # two traces, then replays
    assert all((r != runs[0]).any() for r in runs[1:])
    samples = np.random.default_rng(13).random((2, 2, 2))
    fixed = gg.compile(lambda t: F.fractional_max_pool2d(t, 3, (7, 6), _random_samples=gg.tensor(samples)))
    want = TF.fractional_max_pool2d(torch.tensor(x.numpy()), 3, (7, 6), _random_samples=torch.tensor(samples))
    for _ in range(4):
        np.testing.assert_array_equal(fixed(x).numpy(), want.numpy())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("n", [2, 3])
def test_sixteen_bit_inputs_round_the_formula_as_torch(dtype, n):
    """PyTorch computes the window formula in Half/BFloat16 (each step rounded): the same windows."""
    rng = np.random.default_rng(14)
    ours_f = F.fractional_max_pool2d if n == 2 else F.fractional_max_pool3d
    theirs_f = TF.fractional_max_pool2d if n == 2 else TF.fractional_max_pool3d
    for _ in range(8):
        spatial = tuple(int(v) for v in rng.integers(8, 40 if n == 2 else 14, n))
        k = int(rng.integers(1, 4))
        out = tuple(int(rng.integers(1, s - k)) for s in spatial)
        x = rng.standard_normal((2, 3) + spatial).astype(np.float32)
        samples = rng.random((2, 3, n)).astype(np.float32)
        a, ia = ours_f(gg.tensor(x).astype(dtype), k, out, return_indices=True,
                       _random_samples=gg.tensor(samples).astype(dtype))
        b, ib = theirs_f(torch.tensor(x).to(getattr(torch, dtype)), k, out, return_indices=True,
                         _random_samples=torch.tensor(samples).to(getattr(torch, dtype)))
        np.testing.assert_array_equal(ia.numpy(), ib.numpy())
        np.testing.assert_array_equal(a.astype("float32").numpy(), b.float().numpy())
