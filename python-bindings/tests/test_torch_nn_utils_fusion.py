"""nn.utils.fuse_conv_bn_eval / fuse_conv_bn_weights / fuse_linear_bn_eval / fuse_linear_bn_weights
against PyTorch (the same weights and running statistics: fused parameters, outputs equal to
bn(layer(x)), dtypes, requires_grad, errors) and a NumPy reference of the folding."""
import numpy as np
import pytest

import glassgrad.torch as gt

torch = pytest.importorskip("torch")


def _load(ours, theirs, seed):
    rng = np.random.default_rng(seed)
    sd = {}
    for k, v in theirs.state_dict().items():
        if v.dtype.is_floating_point:
            sd[k] = torch.tensor(rng.uniform(0.5, 1.5, tuple(v.shape)) if "var" in k else rng.standard_normal(tuple(v.shape)),
                                 dtype=v.dtype)
        else:
            sd[k] = v
    theirs.load_state_dict(sd)
    ours.load_state_dict({k: v.numpy() for k, v in sd.items()})


CASES = [
    ("conv2d", lambda nn: nn.Conv2d(3, 4, 3, padding=1), lambda nn: nn.BatchNorm2d(4), (2, 3, 5, 5), False),
    ("conv2d-nobias-noaffine", lambda nn: nn.Conv2d(3, 4, 3, bias=False), lambda nn: nn.BatchNorm2d(4, affine=False),
     (2, 3, 5, 5), False),
    ("conv1d", lambda nn: nn.Conv1d(2, 3, 2), lambda nn: nn.BatchNorm1d(3, eps=1e-3), (2, 2, 6), False),
    ("convtranspose2d", lambda nn: nn.ConvTranspose2d(3, 2, 2, stride=2), lambda nn: nn.BatchNorm2d(2), (1, 3, 3, 3),
     True),
]


@pytest.mark.parametrize("name,conv,bn,shape,transpose", CASES, ids=[c[0] for c in CASES])
def test_fuse_conv_bn_eval_matches_torch(name, conv, bn, shape, transpose):
    ours_c, ours_b, theirs_c, theirs_b = conv(gt.nn), bn(gt.nn), conv(torch.nn), bn(torch.nn)
    _load(ours_c, theirs_c, 0)
    _load(ours_b, theirs_b, 1)
    for m in (ours_c, ours_b, theirs_c, theirs_b):
        m.eval()
    ours = gt.nn.utils.fuse_conv_bn_eval(ours_c, ours_b, transpose=transpose)
    theirs = torch.nn.utils.fuse_conv_bn_eval(theirs_c, theirs_b, transpose=transpose)
    assert ours is not ours_c and type(ours) is type(ours_c) and repr(ours) == repr(theirs)
    for (k, a), (k2, b) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert k == k2 and type(a).__name__ == "Parameter" and a.requires_grad == b.requires_grad
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    np.testing.assert_allclose(ours(gt.tensor(x)).detach().numpy(), theirs_b(theirs_c(torch.tensor(x))).detach().numpy(),
                               rtol=1e-4, atol=1e-5)


def test_fuse_linear_bn_eval_matches_torch_and_numpy():
    ours_l, ours_b, theirs_l, theirs_b = gt.nn.Linear(3, 4), gt.nn.BatchNorm1d(4), torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4)
    _load(ours_l, theirs_l, 3)
    _load(ours_b, theirs_b, 4)
    for m in (ours_l, ours_b, theirs_l, theirs_b):
        m.eval()
    ours, theirs = gt.nn.utils.fuse_linear_bn_eval(ours_l, ours_b), torch.nn.utils.fuse_linear_bn_eval(theirs_l, theirs_b)
    np.testing.assert_allclose(ours.weight.detach().numpy(), theirs.weight.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(ours.bias.detach().numpy(), theirs.bias.detach().numpy(), rtol=1e-5, atol=1e-6)
    w, b = ours_l.weight.detach().numpy().astype(np.float64), ours_l.bias.detach().numpy().astype(np.float64)
    rm, rv = ours_b.running_mean.numpy(), ours_b.running_var.numpy()
    g, beta = ours_b.weight.detach().numpy(), ours_b.bias.detach().numpy()
    s = g / np.sqrt(rv + ours_b.eps)
    np.testing.assert_allclose(ours.weight.detach().numpy(), w * s[:, None], rtol=1e-6)
    np.testing.assert_allclose(ours.bias.detach().numpy(), (b - rm) * s + beta, rtol=1e-5, atol=1e-6)
    fw, fb = gt.nn.utils.fuse_linear_bn_weights(ours_l.weight, None, ours_b.running_mean, ours_b.running_var,
                                                ours_b.eps, ours_b.weight, ours_b.bias)
    np.testing.assert_allclose(fb.detach().numpy(), -rm * s + beta, rtol=1e-5, atol=1e-6)
    assert fw.requires_grad and not fb.requires_grad  # as PyTorch: the zeros bias needs no gradient


def test_fusion_refuses_training_mode_as_torch():
    for lib in (gt, torch):
        with pytest.raises(AssertionError, match="Fusion only for eval"):
            lib.nn.utils.fuse_conv_bn_eval(lib.nn.Conv2d(1, 2, 1), lib.nn.BatchNorm2d(2))
        with pytest.raises(AssertionError, match="out_features == bn.num_features"):
            lib.nn.utils.fuse_linear_bn_eval(lib.nn.Linear(2, 3).eval(), lib.nn.BatchNorm1d(2).eval())
