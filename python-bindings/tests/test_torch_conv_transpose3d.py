"""F.conv_transpose3d / nn.ConvTranspose3d against PyTorch on random arguments (stride, padding,
output_padding, dilation, groups, bias, output_size, unbatched): values, input and parameter
gradients, reprs and refused output paddings; a NumPy scatter reference and finite differences.
Skipped when torch is not importable (CI never installs it; tools/torch_differential.sh runs it)."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F
from torch_compare import compare

torch = pytest.importorskip("torch")


def _cases(count):
    rng = np.random.default_rng(41)
    out = []
    for _ in range(count):
        g = int(rng.choice([1, 2]))
        stride = tuple(int(v) for v in rng.integers(1, 3, 3))
        dilation = tuple(int(v) for v in rng.integers(1, 3, 3))
        kw = dict(in_channels=g * int(rng.integers(1, 3)), out_channels=g * int(rng.integers(1, 3)),
                  kernel_size=tuple(int(v) for v in rng.integers(1, 4, 3)), stride=stride,
                  padding=tuple(int(v) for v in rng.integers(0, 2, 3)),
                  output_padding=tuple(int(rng.integers(0, max(s, d))) for s, d in zip(stride, dilation)),
                  groups=g, bias=bool(rng.integers(2)), dilation=dilation)
        out.append((kw, (int(rng.integers(1, 3)), kw["in_channels"]) + tuple(int(v) for v in rng.integers(2, 5, 3))))
    return out


@pytest.mark.parametrize("kw,shape", _cases(30))
def test_conv_transpose3d_layer_matches_torch(kw, shape):
    theirs = torch.nn.ConvTranspose3d(**kw).double()
    ours = nn.ConvTranspose3d(**kw).double()
    assert repr(ours) == repr(theirs)
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(shape[-1]).standard_normal(shape)
    if compare(ours, theirs, [x], (0,), rtol=1e-9, atol=1e-10) is not None:
        return   # padding larger than the output: both refused
    for name, p in theirs.named_parameters():
        np.testing.assert_allclose(dict(ours.named_parameters())[name].grad.numpy(), p.grad.numpy(), rtol=1e-8,
                                   atol=1e-9)
    compare(ours, theirs, [x[0]], (0,), rtol=1e-9, atol=1e-10)


def test_conv_transpose3d_matches_a_numpy_scatter_and_finite_differences():
    rng = np.random.default_rng(42)
    x, w, b = rng.standard_normal((1, 2, 2, 3, 2)), rng.standard_normal((2, 3, 2, 2, 3)), rng.standard_normal(3)
    s, p = (2, 1, 2), (1, 0, 1)
    full = np.zeros((1, 3, (2 - 1) * 2 + 2, (3 - 1) + 2, (2 - 1) * 2 + 3))
    for ci, i, j, k in np.ndindex(2, 2, 3, 2):
        full[0, :, i * s[0]:i * s[0] + 2, j * s[1]:j * s[1] + 2, k * s[2]:k * s[2] + 3] += x[0, ci, i, j, k] * w[ci]
    ref = full[:, :, p[0]:full.shape[2] - p[0], p[1]:full.shape[3] - p[1], p[2]:full.shape[4] - p[2]] \
        + b.reshape(1, 3, 1, 1, 1)
    got = F.conv_transpose3d(gg.tensor(x), gg.tensor(w), gg.tensor(b), s, p).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
    assert gg.debug.gradcheck(lambda *t: (F.conv_transpose3d(*t, s, p, (1, 0, 0)) ** 2).sum(), [x, w, b])
    assert compare(F.conv_transpose3d, torch.nn.functional.conv_transpose3d, [x, w], (),
                   dict(stride=2, output_padding=2)) is not None
    layer, ref_layer = nn.ConvTranspose3d(2, 3, 2, stride=2).double(), torch.nn.ConvTranspose3d(2, 3, 2, stride=2)
    layer.load_state_dict({k: v.detach().numpy() for k, v in ref_layer.double().state_dict().items()})
    compare(lambda t: layer(t, output_size=(5, 7, 4)), lambda t: ref_layer(t, output_size=(5, 7, 4)), [x], (0,))
