"""torchvision.ops.deform_conv2d / DeformConv2d: the outputs of torchvision's CPU kernel written out
as loops below (each tap read bilinearly at its offset point, a neighbour outside the image reading
0, times the mask, then the grouped product with the weight), a plain convolution where the offsets
are zero, finite-difference gradients of all five inputs, and the module's parameters, repr and
errors."""
import math

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F
from glassgrad.vision.ops import DeformConv2d, deform_conv2d


def _bilinear(img, y, x):
    """torchvision's bilinear_interpolate: 0 outside (-1, H) x (-1, W), each neighbour outside reads 0."""
    h, w = img.shape
    if y <= -1 or h <= y or x <= -1 or w <= x:
        return 0.0
    y0, x0 = math.floor(y), math.floor(x)
    ly, lx = y - y0, x - x0

    def at(i, j):
        return img[i, j] if 0 <= i <= h - 1 and 0 <= j <= w - 1 else 0.0
    return ((1 - ly) * (1 - lx) * at(y0, x0) + (1 - ly) * lx * at(y0, x0 + 1) + ly * (1 - lx) * at(y0 + 1, x0)
            + ly * lx * at(y0 + 1, x0 + 1))


def _reference(x, offset, weight, bias, stride, padding, dilation, mask):
    n, c, h, w = x.shape
    o, cg, kh, kw = weight.shape
    g = offset.shape[1] // (2 * kh * kw)
    ho, wo = offset.shape[2:]
    cols = np.zeros((n, c, kh * kw, ho, wo))
    for b, ch, i, j, oy, ox in np.ndindex(n, c, kh, kw, ho, wo):
        grp, k = ch // (c // g), i * kw + j
        dy, dx = offset[b, grp * 2 * kh * kw + 2 * k, oy, ox], offset[b, grp * 2 * kh * kw + 2 * k + 1, oy, ox]
        m = 1.0 if mask is None else mask[b, grp * kh * kw + k, oy, ox]
        cols[b, ch, k, oy, ox] = m * _bilinear(x[b, ch], oy * stride[0] - padding[0] + i * dilation[0] + dy,
                                               ox * stride[1] - padding[1] + j * dilation[1] + dx)
    groups = c // cg
    out = np.zeros((n, o, ho, wo))
    for oc in range(o):
        gi = oc // (o // groups)
        out[:, oc] = np.einsum("nckyx,ck->nyx", cols[:, gi * cg:(gi + 1) * cg], weight[oc].reshape(cg, kh * kw))
    return out if bias is None else out + bias.reshape(1, o, 1, 1)


# (N, C, H, W, out channels, (kh, kw), offset groups, groups, stride, padding, dilation, mask)
CASES = [(2, 4, 7, 6, 6, (3, 3), 2, 2, (1, 1), (1, 1), (1, 1), True),
         (1, 3, 9, 8, 2, (3, 3), 1, 1, (2, 1), (0, 2), (2, 1), False),
         (2, 2, 5, 5, 4, (2, 3), 2, 1, (1, 2), (1, 0), (1, 1), True)]


def _inputs(case, seed=0, scale=2.0):
    n, c, h, w, o, (kh, kw), g, groups, stride, padding, dilation, with_mask = case
    rng = np.random.RandomState(seed)
    ho = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    wo = (w + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    x = rng.randn(n, c, h, w)
    weight = rng.randn(o, c // groups, kh, kw)
    bias = rng.randn(o)
    offset = rng.randn(n, 2 * g * kh * kw, ho, wo) * scale  # many points off the image's edges
    mask = rng.rand(n, g * kh * kw, ho, wo) if with_mask else None
    return x, offset, weight, bias, mask


@pytest.mark.parametrize("case", CASES)
def test_outputs_are_torchvisions_kernels(case):
    x, offset, weight, bias, mask = _inputs(case)
    stride, padding, dilation = case[8:11]
    expected = _reference(x, offset, weight, bias, stride, padding, dilation, mask)
    f32 = [None if a is None else gg.tensor(a.astype(np.float32)) for a in (x, offset, weight, bias, mask)]
    got = deform_conv2d(f32[0], f32[1], f32[2], f32[3], stride=stride, padding=padding, dilation=dilation,
                        mask=f32[4])
    assert got.dtype == gg.float32 and got.shape == expected.shape
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5, atol=1e-5)


def test_zero_offsets_are_a_plain_convolution():
    rng = np.random.RandomState(1)
    x = gg.tensor(rng.randn(2, 6, 9, 8).astype(np.float32))
    weight = gg.tensor(rng.randn(4, 3, 3, 2).astype(np.float32))
    bias = gg.tensor(rng.randn(4).astype(np.float32))
    kwargs = dict(stride=(2, 1), padding=(1, 2), dilation=(1, 2))
    expected = F.conv2d(x, weight, bias, groups=2, **kwargs)
    offset = gg.zeros(2, 2 * 3 * 6, *expected.shape[-2:])
    np.testing.assert_allclose(deform_conv2d(x, offset, weight, bias, **kwargs).numpy(), expected.numpy(),
                               rtol=1e-5, atol=1e-5)
    ones = gg.ones(2, 3 * 6, *expected.shape[-2:])
    np.testing.assert_allclose(deform_conv2d(x, offset, weight, bias, mask=ones, **kwargs).numpy(),
                               expected.numpy(), rtol=1e-5, atol=1e-5)


def test_gradients_of_all_inputs():
    # two offset groups and two weight groups, points inside, across and outside the edges
    case = (1, 2, 3, 4, 2, (2, 2), 2, 2, (1, 1), (1, 0), (1, 1), True)
    x, offset, weight, bias, mask = _inputs(case, scale=1.3)
    args = [gg.tensor(a, dtype=gg.float64, requires_grad=True) for a in (x, offset + 0.25, weight, bias, mask)]
    assert gg.autograd.gradcheck(lambda x, o, w, b, m: deform_conv2d(x, o, w, b, padding=(1, 0), mask=m), args,
                                 eps=1e-6, atol=1e-5)


def test_the_module():
    gg.manual_seed(0)
    layer = DeformConv2d(4, 6, 3, padding=1, groups=2)
    assert [n for n, _ in layer.named_parameters()] == ["weight", "bias"]
    assert tuple(layer.weight.shape) == (6, 2, 3, 3) and tuple(layer.bias.shape) == (6,)
    bound = 1 / math.sqrt(2 * 9)  # nn.Conv2d's initialization
    assert float(layer.weight.detach().abs().max()) <= bound and float(layer.bias.detach().abs().max()) <= bound
    assert repr(layer) == "DeformConv2d(4, 6, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), groups=2)"
    assert repr(DeformConv2d(2, 2, 1, bias=False)) == "DeformConv2d(2, 2, kernel_size=(1, 1), stride=(1, 1), bias=False)"
    x = gg.randn(2, 4, 5, 5)
    offset = gg.randn(2, 18, 5, 5, requires_grad=True)
    out = layer(x, offset, gg.rand(2, 9, 5, 5))
    assert tuple(out.shape) == (2, 6, 5, 5)
    out.sum().backward()
    assert layer.weight.grad is not None and offset.grad is not None and tuple(offset.grad.shape) == (2, 18, 5, 5)


def test_errors():
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        DeformConv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="out_channels must be divisible by groups"):
        DeformConv2d(4, 3, 3, groups=2)
    x, w = gg.randn(1, 2, 5, 5), gg.randn(3, 2, 3, 3)
    with pytest.raises(RuntimeError, match="offset tensor at dimension 1 is not valid"):
        deform_conv2d(x, gg.randn(1, 10, 3, 3), w)
    with pytest.raises(RuntimeError, match="output's height and width"):
        deform_conv2d(x, gg.randn(1, 18, 5, 5), w)
    with pytest.raises(RuntimeError, match="mask must be"):
        deform_conv2d(x, gg.randn(1, 18, 3, 3), w, mask=gg.rand(1, 3, 3, 3))
