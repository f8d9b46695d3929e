"""F.conv3d / nn.Conv3d, nn.BatchNorm3d, nn.InstanceNorm3d, F.feature_alpha_dropout /
nn.FeatureAlphaDropout and nn.NLLLoss2d against PyTorch: random shapes and arguments (padding ints,
'same', 'valid', padding modes, stride, dilation, groups, bias), values, input and parameter
gradients, running statistics, errors; conv3d against a NumPy loop and finite differences;
feature alpha dropout's per-channel formula in training. Skipped when torch is not importable
(CI never installs it; tools/torch_differential.sh runs it)."""
import warnings

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F
from torch_compare import compare

torch = pytest.importorskip("torch")


def _conv_cases(count):
    rng = np.random.default_rng(21)
    cases = []
    for _ in range(count):
        g = int(rng.choice([1, 2]))
        kw = dict(in_channels=g * int(rng.integers(1, 3)), out_channels=g * int(rng.integers(1, 3)),
                  kernel_size=tuple(int(v) for v in rng.integers(1, 4, 3)), groups=g,
                  dilation=tuple(int(v) for v in rng.integers(1, 3, 3)), bias=bool(rng.integers(2)),
                  padding_mode=str(rng.choice(["zeros", "reflect", "replicate", "circular"])))
        choice = int(rng.integers(4))
        kw["padding"] = ["same", "valid", int(rng.integers(0, 3)), tuple(int(v) for v in rng.integers(0, 3, 3))][choice]
        kw["stride"] = 1 if choice == 0 else tuple(int(v) for v in rng.integers(1, 3, 3))
        cases.append((kw, (int(rng.integers(1, 3)), kw["in_channels"]) + tuple(int(v) for v in rng.integers(4, 7, 3))))
    return cases


@pytest.mark.parametrize("kw,shape", _conv_cases(40))
def test_conv3d_layer_matches_torch(kw, shape):
    theirs = torch.nn.Conv3d(**kw)
    ours = nn.Conv3d(**kw).double()
    assert repr(ours) == repr(theirs)
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(shape[-1]).standard_normal(shape)
    try:
        theirs(torch.tensor(x, dtype=torch.float32))
    except RuntimeError:   # the padding mode needs more input than this shape has: both refuse
        with pytest.raises((gg.GlassgradError, ValueError)):
            ours(gg.tensor(x))
        return
    theirs = theirs.double()
    compare(ours, theirs, [x], (0,), rtol=1e-9, atol=1e-10)
    for name, p in theirs.named_parameters():
        assert np.allclose(dict(ours.named_parameters())[name].grad.numpy(), p.grad.numpy(), rtol=1e-8, atol=1e-9)
    compare(ours, theirs, [x[0]], (0,), rtol=1e-9, atol=1e-10)   # unbatched


@pytest.mark.filterwarnings("ignore:Using padding='same'")   # torch's note on even kernels
def test_conv3d_function_matches_numpy_loops_and_finite_differences():
    rng = np.random.default_rng(22)
    x, w, b = rng.standard_normal((1, 4, 5, 4, 6)), rng.standard_normal((2, 2, 2, 3, 2)), rng.standard_normal(2)
    stride, pad, dil, groups = (2, 1, 2), (1, 1, 0), (1, 2, 1), 2
    got = F.conv3d(gg.tensor(x), gg.tensor(w), gg.tensor(b), stride, pad, dil, groups).numpy()
    xp = np.pad(x, ((0, 0), (0, 0)) + tuple((p, p) for p in pad))
    out = [(xp.shape[2 + i] - dil[i] * (w.shape[2 + i] - 1) - 1) // stride[i] + 1 for i in range(3)]
    ref = np.zeros((1, 2) + tuple(out))
    for o in range(2):
        cin = slice(o * 2, o * 2 + 2)   # groups=2: one output channel per group of two inputs
        for i, j, k in np.ndindex(*out):
            win = xp[0, cin, i * stride[0]:i * stride[0] + dil[0] * (w.shape[2] - 1) + 1:dil[0],
                     j * stride[1]:j * stride[1] + dil[1] * (w.shape[3] - 1) + 1:dil[1],
                     k * stride[2]:k * stride[2] + dil[2] * (w.shape[4] - 1) + 1:dil[2]]
            ref[0, o, i, j, k] = (win * w[o]).sum() + b[o]
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
    compare(F.conv3d, torch.nn.functional.conv3d, [x, w, b], (0, 1, 2), dict(stride=stride, padding=pad,
                                                                             dilation=dil, groups=groups))
    compare(F.conv3d, torch.nn.functional.conv3d, [x, w, b], (0, 1, 2), dict(padding="same", groups=groups))
    assert compare(F.conv3d, torch.nn.functional.conv3d, [x, w], (), dict(padding="same", stride=2)) is not None
    assert compare(F.conv3d, torch.nn.functional.conv3d, [x[0, 0], w], ()) is not None
    assert gg.debug.gradcheck(lambda *t: (F.conv3d(*t, stride, pad, dil, groups) ** 2).sum(), [x, w, b])


@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("track", [True, False])
@pytest.mark.parametrize("momentum", [0.1, None])
def test_batchnorm3d_and_instancenorm3d_match_torch(affine, track, momentum):
    rng = np.random.default_rng(23)
    for ours, theirs in ((nn.BatchNorm3d, torch.nn.BatchNorm3d), (nn.InstanceNorm3d, torch.nn.InstanceNorm3d)):
        kw = dict(affine=affine, track_running_stats=track, momentum=momentum)
        mine, ref = ours(3, **kw).double(), theirs(3, **kw).double()
        assert repr(mine) == repr(ref)
        for step in range(3):
            compare(mine, ref, [rng.standard_normal((2, 3, 2, 3, 2)) * (step + 1) + step], (0,))
        for k, v in ref.state_dict().items():
            np.testing.assert_allclose(np.asarray(mine.state_dict()[k]), v.numpy(), rtol=1e-10, err_msg=k)
        mine.eval(), ref.eval()
        compare(mine, ref, [rng.standard_normal((2, 3, 2, 3, 2))], (0,))
    compare(nn.InstanceNorm3d(3).double(), torch.nn.InstanceNorm3d(3).double(), [rng.standard_normal((3, 2, 2, 2))],
            (0,))
    assert compare(nn.BatchNorm3d(3).double(), torch.nn.BatchNorm3d(3).double(), [rng.standard_normal((3, 2, 2, 2))],
                   (0,)) is not None


def test_feature_alpha_dropout_matches_torch_in_eval_and_its_formula_in_training():
    x = np.random.default_rng(24).standard_normal((300, 40, 3))
    for fn in (lambda f, t: f.feature_alpha_dropout(t, 0.3), lambda f, t: f.feature_alpha_dropout(t, 0.3, False)):
        compare(lambda t: fn(F, t), lambda t: fn(torch.nn.functional, t), [x], (0,))
    compare(nn.FeatureAlphaDropout(0.3).eval(), torch.nn.FeatureAlphaDropout(0.3).eval(), [x], (0,))
    assert repr(nn.FeatureAlphaDropout(0.3)) == repr(torch.nn.FeatureAlphaDropout(0.3))
    alpha, p = 1.7580993408473766, 0.3
    a = 1.0 / np.sqrt((alpha ** 2 * p + 1) * (1 - p))
    gg.manual_seed(0)
    t = gg.tensor(x, requires_grad=True)
    y = nn.FeatureAlphaDropout(p)(t)
    kept = np.isclose(y.detach().numpy(), a * x + alpha * a * p, rtol=1e-12).all(-1)
    dropped = np.isclose(y.detach().numpy(), -alpha * a + alpha * a * p, rtol=1e-12).all(-1)
    assert (kept ^ dropped).all()                    # whole channels, one of the two
    assert abs(dropped.mean() - p) < 4 * np.sqrt(p * (1 - p) / dropped.size)   # 12000 channels, four sigmas
    y.sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), np.where(kept[..., None], a, 0.0) * np.ones_like(x), rtol=1e-12)
    np.testing.assert_array_equal(F.feature_alpha_dropout(gg.tensor(x), 1.0, True).numpy(), np.zeros_like(x))


def test_nllloss2d_is_nllloss_with_torchs_warning():
    x = np.log(np.random.default_rng(25).dirichlet(np.ones(4), (2, 3, 5))).transpose(0, 3, 1, 2).copy()
    t = np.random.default_rng(26).integers(0, 4, (2, 3, 5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = torch.nn.NLLLoss2d(ignore_index=2)
    with pytest.warns(UserWarning, match="NLLLoss2d has been deprecated"):
        ours = nn.NLLLoss2d(ignore_index=2)
    compare(ours, ref, [x, t], (0,))
