"""Transposed convolutions (F.conv_transpose2d / conv_transpose1d, nn.ConvTranspose2d / 1d) and
1-d convolutions (F.conv1d, nn.Conv1d) as PyTorch defines them: against a NumPy scatter
restatement (every stride, padding, output_padding, groups, dilation and bias, odd sizes), float64
finite differences, torch (values, input/weight/bias gradients, output_size), the errors, and CPU
vs CUDA (cuda-marked) including the grouped and dilated cases that run on the generic kernels."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F
from glassgrad import _C


def conv_transpose_numpy(x, w, b=None, stride=(1, 1), padding=(0, 0), output_padding=(0, 0), groups=1,
                         dilation=(1, 1)):
    """The definition, written as a scatter: each input pixel adds its weighted kernel into the
    output at stride steps, shifted back by the padding (PyTorch's documented output size)."""
    n, cin, h, wd = x.shape
    _, cog, kh, kw = w.shape
    (sh, sw), (ph, pw), (oph, opw), (dh, dw) = stride, padding, output_padding, dilation
    ho = (h - 1) * sh - 2 * ph + dh * (kh - 1) + oph + 1
    wo = (wd - 1) * sw - 2 * pw + dw * (kw - 1) + opw + 1
    full = np.zeros((n, cog * groups, (h - 1) * sh + dh * (kh - 1) + 1 + oph + ph, (wd - 1) * sw + dw * (kw - 1) + 1 +
                     opw + pw))
    cig = cin // groups
    for g in range(groups):
        for r in range(kh):
            for c in range(kw):
                # out[n, o, i*sh + r*dh, j*sw + c*dw] += sum_ci x[n, ci, i, j] * w[ci, o, r, c]
                contrib = np.einsum("nihw,io->nohw", x[:, g * cig:(g + 1) * cig], w[g * cig:(g + 1) * cig, :, r, c])
                full[:, g * cog:(g + 1) * cog, r * dh:r * dh + (h - 1) * sh + 1:sh,
                     c * dw:c * dw + (wd - 1) * sw + 1:sw] += contrib
    out = full[:, :, ph:ph + ho, pw:pw + wo]
    if b is not None:
        out = out + b.reshape(1, -1, 1, 1)
    return out


# (input shape, weight shape, kwargs): odd sizes, every argument, DCGAN's layers.
CASES = [
    ((2, 3, 5, 4), (3, 2, 3, 3), {}),
    ((2, 3, 5, 4), (3, 4, 3, 2), dict(stride=2)),
    ((1, 4, 4, 4), (4, 3, 4, 4), dict(stride=2, padding=1)),  # DCGAN's generator
    ((2, 5, 1, 1), (5, 6, 4, 4), dict(stride=1, padding=0)),  # DCGAN's first layer
    ((2, 3, 5, 6), (3, 2, 3, 3), dict(stride=(2, 3), padding=(1, 2), output_padding=(1, 2))),
    ((2, 4, 5, 4), (4, 3, 3, 3), dict(stride=2, groups=2)),
    ((2, 6, 4, 5), (6, 1, 3, 3), dict(stride=2, padding=1, groups=6)),
    ((2, 3, 5, 4), (3, 2, 3, 2), dict(dilation=(2, 3), padding=1)),
    ((2, 3, 5, 4), (3, 2, 3, 3), dict(stride=3, padding=2, dilation=2, output_padding=1)),
    ((2, 3, 4, 4), (3, 2, 3, 3), dict(stride=1, dilation=3, padding=2, output_padding=2)),  # output_padding >= stride
    # output_padding past every input's last tap (output_padding >= stride + padding): zero rows appended
    ((2, 3, 4, 5), (3, 2, 3, 3), dict(stride=(1, 2), dilation=(4, 3), padding=(1, 0), output_padding=(3, 2))),
    ((2, 3, 4, 5), (3, 2, 1, 1), dict(stride=2, output_padding=1)),
]
IDS = [f"{list(x)}x{list(w)}-{kw}" for x, w, kw in CASES]


def _groups(kwargs):
    return kwargs.get("groups", 1)


def _tup(v):
    return v if isinstance(v, tuple) else (v, v)


@pytest.mark.parametrize("xs,ws,kwargs", CASES, ids=IDS)
def test_conv_transpose2d_matches_the_scatter_definition(xs, ws, kwargs):
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(ws[1] * _groups(kwargs))
    got = F.conv_transpose2d(gg.tensor(x), gg.tensor(w), gg.tensor(b), **kwargs).numpy()
    want = conv_transpose_numpy(x, w, b, **{k: (_tup(v) if k != "groups" else v) for k, v in kwargs.items()})
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("xs,ws,kwargs", CASES, ids=IDS)
def test_conv_transpose2d_gradients_match_finite_differences(xs, ws, kwargs):
    rng = np.random.default_rng(1)
    x, w, b = rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(ws[1] * _groups(kwargs))
    assert gg.debug.gradcheck(lambda x_, w_, b_: F.conv_transpose2d(x_, w_, b_, **kwargs), [x, w, b])


@pytest.mark.parametrize("xs,ws,kwargs", CASES, ids=IDS)
def test_conv_transpose2d_matches_torch(torch, xs, ws, kwargs):
    rng = np.random.default_rng(2)
    x, w, b = rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(ws[1] * _groups(kwargs))
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    gx, gw, gb = (gg.tensor(a, requires_grad=True) for a in (x, w, b))
    ty = torch.nn.functional.conv_transpose2d(tx, tw, tb, **kwargs)
    gy = F.conv_transpose2d(gx, gw, gb, **kwargs)
    u = rng.standard_normal(tuple(ty.shape))
    (ty * torch.tensor(u)).sum().backward()
    (gy * gg.tensor(u)).sum().backward()
    np.testing.assert_allclose(gy.detach().numpy(), ty.detach().numpy(), rtol=1e-11, atol=1e-11)
    for g, t in ((gx, tx), (gw, tw), (gb, tb)):
        np.testing.assert_allclose(g.grad.numpy(), t.grad.numpy(), rtol=1e-11, atol=1e-11)


def test_the_layer_is_pytorch_s_with_its_weight_layout_init_and_repr(torch):
    gg.manual_seed(0)
    layer = gg.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)
    assert tuple(layer.weight.shape) == (4, 3, 3, 3) and tuple(layer.bias.shape) == (6,)
    bound = 1 / np.sqrt(3 * 3 * 3)  # fan_in = out_channels / groups * kh * kw, as PyTorch's
    assert np.abs(layer.weight.detach().numpy()).max() <= bound and np.abs(layer.weight.detach().numpy()).max() > 0.8 * bound
    assert repr(layer) == repr(torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2))
    assert repr(gg.nn.ConvTranspose1d(2, 3, 5, bias=False, dilation=2)) == \
        repr(torch.nn.ConvTranspose1d(2, 3, 5, bias=False, dilation=2))
    assert repr(gg.nn.Conv1d(2, 3, 5, padding="same")) == repr(torch.nn.Conv1d(2, 3, 5, padding="same"))
    assert list(layer.state_dict()) == list(torch.nn.ConvTranspose2d(4, 6, 3, groups=2).state_dict())


@pytest.mark.parametrize("size", [(9, 9), (10, 10), (10, 9), [2, 6, 9, 10]])
def test_forward_output_size_picks_the_output_padding(torch, size):
    gg.manual_seed(0)
    x = np.random.default_rng(3).standard_normal((2, 4, 5, 5))
    mine = gg.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1).double()
    theirs = torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1).double()
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in mine.state_dict().items()})
    got = mine(gg.tensor(x), output_size=size)
    want = theirs(torch.tensor(x), output_size=size)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-12)


def test_unbatched_input_and_one_dimensional_forms_match_torch(torch):
    rng = np.random.default_rng(4)
    x3 = rng.standard_normal((4, 5, 6))
    w = rng.standard_normal((4, 2, 3, 3))
    want = torch.nn.functional.conv_transpose2d(torch.tensor(x3), torch.tensor(w), stride=2).numpy()
    np.testing.assert_allclose(F.conv_transpose2d(gg.tensor(x3), gg.tensor(w), stride=2).numpy(), want,
                               rtol=1e-12, atol=1e-12)
    x = rng.standard_normal((2, 4, 9))
    for fn, wshape, kw in (("conv1d", (6, 2, 3), dict(stride=2, padding=1, groups=2)),
                           ("conv1d", (6, 4, 4), dict(padding="same", dilation=2)),
                           ("conv_transpose1d", (4, 3, 3), dict(stride=3, padding=1, output_padding=2)),
                           ("conv_transpose1d", (4, 1, 2), dict(groups=2, dilation=3))):
        wt = rng.standard_normal(wshape)
        for xx in (x, x[0]):  # batched and unbatched
            got = getattr(F, fn)(gg.tensor(xx), gg.tensor(wt), **kw).numpy()
            want = getattr(torch.nn.functional, fn)(torch.tensor(xx), torch.tensor(wt), **kw).numpy()
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=f"{fn} {kw} {xx.shape}")


@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
def test_conv1d_layer_with_padding_modes_matches_torch(torch, mode):
    x = np.random.default_rng(5).standard_normal((2, 3, 11))
    mine = gg.nn.Conv1d(3, 4, 3, padding=2, dilation=2, padding_mode=mode).double()
    theirs = torch.nn.Conv1d(3, 4, 3, padding=2, dilation=2, padding_mode=mode).double()
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in mine.state_dict().items()})
    np.testing.assert_allclose(mine(gg.tensor(x)).detach().numpy(), theirs(torch.tensor(x)).detach().numpy(), rtol=1e-12,
                               atol=1e-12)


def test_errors_name_the_layer_the_shapes_and_a_fix():
    layer = gg.nn.ConvTranspose2d(4, 6, 3)
    with pytest.raises(gg.ShapeError, match=r"(?s)ConvTranspose2d.*input of shape \[2, 5, 7, 7\] but its weight "
                                            r"expects 4 input channels.*fix: build the layer as ConvTranspose2d\(5, 6"):
        layer(gg.tensor(np.zeros((2, 5, 7, 7), np.float32)))
    with pytest.raises(gg.InvalidArgumentError, match="output padding must be smaller than either stride or dilation"):
        F.conv_transpose2d(gg.tensor(np.zeros((1, 4, 3, 3))), gg.tensor(np.zeros((4, 2, 3, 3))), output_padding=1)
    with pytest.raises(gg.ShapeError, match=r"output size per channel: \(-1 x -1\). Output size is too small"):
        F.conv_transpose2d(gg.tensor(np.zeros((1, 4, 1, 1))), gg.tensor(np.zeros((4, 2, 1, 1))), padding=1)
    with pytest.raises(gg.InvalidArgumentError, match=r"valid sizes range from \[9, 9\] to \[10, 10\]"):
        gg.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1)(gg.tensor(np.zeros((1, 4, 5, 5), np.float32)),
                                                           output_size=(11, 9))
    with pytest.raises(gg.InvalidArgumentError, match='Only "zeros" padding mode is supported for ConvTranspose2d'):
        gg.nn.ConvTranspose2d(4, 6, 3, padding_mode="reflect")
    with pytest.raises(gg.InvalidArgumentError, match="out_channels must be divisible by groups"):
        gg.nn.ConvTranspose2d(4, 6, 3, groups=4)
    with pytest.raises(gg.DTypeError, match="ConvTranspose2d.*float64 but the layer's parameters are float32"):
        layer(gg.tensor(np.zeros((2, 4, 7, 7))))


def test_the_plan_runs_the_convolution_s_kernels():
    """Forward: Conv2DBackwardInput; the input's gradient: Conv2D; the weight's: Conv2DBackwardWeight."""
    x = gg.tensor(np.random.rand(1, 4, 3, 3).astype(np.float32), requires_grad=True)
    layer = gg.nn.ConvTranspose2d(4, 2, 4, stride=2, padding=1, bias=False)
    y = layer(x)
    (y * y).sum().backward()  # (y.sum() would need no forward: its gradient does not depend on y)
    ops = [s["op"] for s in _C.plan_for([x.grad._h, layer.weight.grad._h]).steps]
    assert "Conv2DBackwardInput" in ops and "Conv2D" in ops and "Conv2DBackwardWeight" in ops


@pytest.mark.cuda
@pytest.mark.parametrize("xs,ws,kwargs", CASES, ids=IDS)
def test_conv_transpose2d_cuda_matches_cpu(xs, ws, kwargs):
    if not gg.cuda.is_available():
        pytest.skip(gg.cuda.why_unavailable())
    rng = np.random.default_rng(6)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in (xs, ws, (ws[1] * _groups(kwargs),)))
    u = rng.standard_normal(tuple(F.conv_transpose2d(gg.tensor(x), gg.tensor(w), **kwargs).shape)).astype(np.float32)
    results = []
    for device in ("cpu", "cuda"):
        tx, tw, tb = (gg.tensor(a, device=device, requires_grad=True) for a in (x, w, b))
        y = F.conv_transpose2d(tx, tw, tb, **kwargs)
        (y * gg.tensor(u, device=device)).sum().backward()
        results.append([y.detach().cpu().numpy(), tx.grad.cpu().numpy(), tw.grad.cpu().numpy(), tb.grad.cpu().numpy()])
    for a, c in zip(*results):
        np.testing.assert_allclose(c, a, rtol=2e-4, atol=2e-4)
