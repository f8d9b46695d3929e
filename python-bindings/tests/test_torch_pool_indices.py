"""Max pooling with return_indices and dilation, adaptive max pooling's indices and max
unpooling against PyTorch: values, indices, output sizes and input gradients (float32 with tied
maxima, as ReLU outputs have). Skipped when torch is not importable (CI never installs it;
tools/torch_differential.sh runs it)."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

RNG = np.random.default_rng(11)


def _input(shape):
    x = np.maximum(RNG.standard_normal(shape), 0).astype(np.float32)   # ReLU-like: many tied zeros
    return gg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)


def _same_forward_and_backward(got, want, gx, tx):
    for g, t in zip(got, want):
        assert tuple(g.shape) == tuple(t.shape)
        np.testing.assert_array_equal(g.detach().numpy(), t.detach().numpy())
    w = RNG.standard_normal(tuple(want[0].shape)).astype(np.float32)
    (got[0] * gg.tensor(w)).sum().backward()
    (want[0] * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(gx.grad.numpy(), tx.grad.numpy(), rtol=1e-6, atol=1e-6)


POOL2D = [dict(kernel_size=3, stride=2, padding=1, ceil_mode=True), dict(kernel_size=2),
          dict(kernel_size=3, stride=1, padding=1, dilation=2), dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0),
                                                                     dilation=(2, 3), ceil_mode=True)]


@pytest.mark.parametrize("kw", POOL2D, ids=[str(sorted(c.items())) for c in POOL2D])
def test_max_pool2d_with_indices_matches_torch(kw):
    gx, tx = _input((2, 3, 10, 9))
    _same_forward_and_backward(F.max_pool2d(gx, return_indices=True, **kw),
                               TF.max_pool2d(tx, return_indices=True, **kw), gx, tx)
    gy, ty = _input((3, 10, 9))
    _same_forward_and_backward((gg.nn.MaxPool2d(**kw)(gy),), (torch.nn.MaxPool2d(**kw)(ty),), gy, ty)


@pytest.mark.parametrize("kw", [dict(kernel_size=3, stride=2, padding=1, dilation=2, ceil_mode=True),
                                dict(kernel_size=2)])
def test_max_pool1d_with_indices_matches_torch(kw):
    gx, tx = _input((2, 3, 13))
    _same_forward_and_backward(F.max_pool1d(gx, return_indices=True, **kw),
                               TF.max_pool1d(tx, return_indices=True, **kw), gx, tx)


@pytest.mark.parametrize("size", [(2, 3), (3, None), 5, 1])
def test_adaptive_max_pool2d_with_indices_matches_torch(size):
    gx, tx = _input((2, 3, 7, 9))
    _same_forward_and_backward(F.adaptive_max_pool2d(gx, size, return_indices=True),
                               TF.adaptive_max_pool2d(tx, size, return_indices=True), gx, tx)
    gy, ty = _input((3, 11))
    _same_forward_and_backward(F.adaptive_max_pool1d(gy, 4, return_indices=True),
                               TF.adaptive_max_pool1d(ty, 4, return_indices=True), gy, ty)


@pytest.mark.parametrize("shape, k, s, p, out", [((2, 3, 7, 7), 3, 2, 1, None), ((2, 3, 7, 7), 3, 2, 1, (8, 8)),
                                                 ((1, 2, 8, 6), 2, 2, 0, (1, 2, 9, 7)), ((3, 5, 5), 2, 1, 1, None)])
def test_max_unpool2d_matches_torch(shape, k, s, p, out):
    x = RNG.standard_normal(shape).astype(np.float32)
    gv, gi = F.max_pool2d(gg.tensor(x), k, s, p, return_indices=True)
    tv, ti = TF.max_pool2d(torch.tensor(x), k, s, p, return_indices=True)
    gv, tv = gv.detach().requires_grad_(), tv.detach().requires_grad_()
    _same_forward_and_backward((F.max_unpool2d(gv, gi, k, s, p, out),), (TF.max_unpool2d(tv, ti, k, s, p, out),),
                               gv, tv)
    assert repr(gg.nn.MaxUnpool2d(k, s, p)) == repr(torch.nn.MaxUnpool2d(k, s, p))


def test_max_unpool1d_matches_torch():
    x = RNG.standard_normal((2, 3, 9)).astype(np.float32)
    gv, gi = F.max_pool1d(gg.tensor(x), 2, return_indices=True)
    tv, ti = TF.max_pool1d(torch.tensor(x), 2, return_indices=True)
    np.testing.assert_array_equal(gg.nn.MaxUnpool1d(2)(gv, gi, output_size=[9]).numpy(),
                                  torch.nn.MaxUnpool1d(2)(tv, ti, output_size=[9]).numpy())
    assert repr(gg.nn.MaxUnpool1d(3, 2)) == repr(torch.nn.MaxUnpool1d(3, 2))


@pytest.mark.parametrize("size", [4, 5, 6, 7, 8, 9, 10])
def test_max_unpool2d_refuses_the_output_sizes_torch_refuses(size):
    x = RNG.standard_normal((1, 1, 7, 7)).astype(np.float32)
    v, i = F.max_pool2d(gg.tensor(x), 3, 2, 1, ceil_mode=True, return_indices=True)
    tv, ti = TF.max_pool2d(torch.tensor(x), 3, 2, 1, ceil_mode=True, return_indices=True)
    try:
        want = TF.max_unpool2d(tv, ti, 3, 2, 1, output_size=(size, size))
    except ValueError:          # the size is out of range: glassgrad's InvalidArgumentError is a ValueError
        with pytest.raises(gg.InvalidArgumentError, match="must be between"):
            F.max_unpool2d(v, i, 3, 2, 1, output_size=(size, size))
    except RuntimeError:        # an index falls outside the smaller output
        with pytest.raises(gg.GlassgradIndexError, match="invalid max index"):
            F.max_unpool2d(v, i, 3, 2, 1, output_size=(size, size))
    else:
        np.testing.assert_array_equal(F.max_unpool2d(v, i, 3, 2, 1, output_size=(size, size)).numpy(), want.numpy())
