"""The activations composed in glassgrad/_extra_activations.py and their modules against PyTorch:
values and gradients on random data and at the kinks (0, +-lambd, the threshold), in-place
forms, printed modules, and errors. Skipped when torch is not importable."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

X = np.concatenate([np.random.default_rng(5).standard_normal(40) * 3, [0.0, 0.5, -0.5, 1.0, -1.0, 0.25, 2.0]])
CASES = {
    "logsigmoid": ((), {}), "softsign": ((), {}), "selu": ((), {}), "celu": ((), {"alpha": 0.7}),
    "tanhshrink": ((), {}), "softshrink": ((), {}), "hardshrink": ((0.25,), {}), "threshold": ((1.0, -2.0), {}),
    "rrelu": ((), {}), "softmin": ((), {"dim": 1}), "glu": ((), {"dim": 0}),
}


def _grads(fn, lib, x, *args, **kwargs):
    t = lib.tensor(x, requires_grad=True) if lib is gg else torch.tensor(x, requires_grad=True)
    y = fn(t, *args, **kwargs)
    w = np.random.default_rng(1).standard_normal(tuple(y.shape))
    (y * (gg.tensor(w) if lib is gg else torch.tensor(w))).sum().backward()
    return y.detach().numpy(), t.grad.numpy()


@pytest.mark.parametrize("name", list(CASES))
def test_value_and_gradient_match_torch_including_the_kinks(name):
    args, kwargs = CASES[name]
    x = X
    if name == "glu":
        x = X[:46].reshape(46, 1)
    if name == "softmin":
        x = X.reshape(1, -1)
    got = _grads(getattr(F, name), gg, x, *args, **kwargs)
    want = _grads(getattr(TF, name), torch, x, *args, **kwargs)
    for g, w, what in zip(got, want, ("value", "gradient")):
        # PyTorch's float64 celu gradient carries single-precision error (about 1e-7 relative; the
        # exact derivative exp(x / alpha) is what glassgrad gives, test_composites checks it)
        rtol = 1e-6 if (name, what) == ("celu", "gradient") else 1e-10
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-12, err_msg=f"{name} {what}")


def test_prelu_per_channel_and_shared_match_torch():
    x = np.random.default_rng(2).standard_normal((2, 3, 4))
    x[0, 0, 0] = 0.0
    for weight in (np.array([0.25]), np.array([0.1, -0.2, 0.3])):
        a, wa = gg.tensor(x, requires_grad=True), gg.tensor(weight, requires_grad=True)
        b, wb = torch.tensor(x, requires_grad=True), torch.tensor(weight, requires_grad=True)
        F.prelu(a, wa).pow(2).sum().backward()
        TF.prelu(b, wb).pow(2).sum().backward()
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12)
        np.testing.assert_allclose(wa.grad.numpy(), wb.grad.numpy(), rtol=1e-12)
    layer = nn.PReLU(3)
    assert repr(layer) == repr(torch.nn.PReLU(3)) and list(layer.state_dict()) == ["weight"]
    np.testing.assert_array_equal(layer.weight.detach().numpy(), np.full(3, 0.25, np.float32))
    with pytest.raises(ValueError, match="channel"):
        nn.PReLU(4)(gg.randn(2, 3))


def test_rrelu_draws_slopes_in_training_and_uses_their_mean_in_eval():
    x = gg.tensor(-np.ones((1000,)))
    y = F.rrelu(x, 0.1, 0.3, training=True).numpy()
    assert np.all((y <= -0.1) & (y >= -0.3)) and y.std() > 0.03
    layer = nn.RReLU(0.1, 0.3).eval()
    np.testing.assert_allclose(layer(x).numpy(), -0.2)


def test_inplace_forms_mutate_their_input():
    for fn, tfn, args in ((F.selu_, TF.selu_, ()), (F.celu_, TF.celu_, (0.5,)), (F.threshold_, TF.threshold_, (0.1, 9.0))):
        a, b = gg.tensor(X.copy()), torch.tensor(X.copy())
        assert fn(a, *args) is a
        tfn(b, *args)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)


def test_modules_print_and_compute_as_torchs():
    x = X[:46].reshape(2, 23)
    pairs = [(nn.LogSigmoid(), torch.nn.LogSigmoid()), (nn.Softsign(), torch.nn.Softsign()),
             (nn.SELU(), torch.nn.SELU()), (nn.CELU(0.5), torch.nn.CELU(0.5)), (nn.Tanhshrink(), torch.nn.Tanhshrink()),
             (nn.Softshrink(0.3), torch.nn.Softshrink(0.3)), (nn.Hardshrink(), torch.nn.Hardshrink()),
             (nn.Threshold(0.1, 20), torch.nn.Threshold(0.1, 20)), (nn.Softmin(1), torch.nn.Softmin(1)),
             (nn.GLU(0), torch.nn.GLU(0))]
    for ours, theirs in pairs:
        assert repr(ours) == repr(theirs)
        np.testing.assert_allclose(ours(gg.tensor(x)).numpy(), theirs(torch.tensor(x)).numpy(), rtol=1e-10, atol=1e-12)
    img = np.random.default_rng(3).standard_normal((2, 3, 4, 5))
    np.testing.assert_allclose(nn.Softmax2d()(gg.tensor(img)).numpy(), torch.nn.Softmax2d()(torch.tensor(img)).numpy(),
                               rtol=1e-10)


def test_errors_match_torchs():
    x = gg.tensor(X[:45])
    with pytest.raises(ValueError, match="must be even"):
        F.glu(x)
    with pytest.raises(RuntimeError):
        TF.glu(torch.tensor(X[:45]))
    with pytest.raises(ValueError, match="greater or equal to 0"):
        F.softshrink(x, -1.0)
    with pytest.raises(ValueError, match="3-d or 4-d"):
        nn.Softmax2d()(gg.randn(2, 3))
