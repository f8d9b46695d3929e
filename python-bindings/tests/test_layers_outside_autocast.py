"""Conv2d, Linear and CrossEntropyLoss call their function without its autocast wrapper while no
autocast region is on (docs/performance.md, "The plain loop's host work (issue 34)"): the same
results, a reassigned function still called, and inside a region the casts PyTorch's CPU autocast
documents (conv2d and linear in bfloat16; cross_entropy in float32, whatever its input)."""
import sys

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _losses
from glassgrad import functional as F

_RNG = np.random.default_rng(7)
X_CONV = _RNG.standard_normal((2, 3, 5, 5)).astype(np.float32)
X_LIN = _RNG.standard_normal((4, 5)).astype(np.float32)
TARGET = np.array([0, 2, 1, 2])


def _layers():
    gg.manual_seed(0)
    return gg.nn.Conv2d(3, 4, 3, padding=1), gg.nn.Linear(5, 3), gg.nn.CrossEntropyLoss()


def _frames(fn):
    """The names of the Python functions fn() calls."""
    names = []

    def prof(frame, event, arg):
        if event == "call":
            names.append(frame.f_code.co_name)

    sys.setprofile(prof)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return names


def test_no_wrapper_frame_outside_autocast():
    conv, lin, ce = _layers()
    x, xl = gg.tensor(X_CONV), gg.tensor(X_LIN)
    for call in (lambda: conv(x), lambda: lin(xl), lambda: ce(lin(xl), gg.tensor(TARGET))):
        call()
        assert "autocast_op" not in _frames(call)


def test_same_values_as_the_functions():
    conv, lin, ce = _layers()
    x, xl, t = gg.tensor(X_CONV), gg.tensor(X_LIN), gg.tensor(TARGET)
    with gg.no_grad():
        np.testing.assert_array_equal(conv(x).numpy(), F.conv2d(x, conv.weight, conv.bias, 1, 1).numpy())
        np.testing.assert_array_equal(lin(xl).numpy(), F.linear(xl, lin.weight, lin.bias).numpy())
        logits = lin(xl)
        np.testing.assert_array_equal(ce(logits, t).numpy(), gg.cross_entropy(logits, t).numpy())


def test_a_reassigned_function_is_called(monkeypatch):
    conv, lin, ce = _layers()
    seen = []

    def spy(name, fn):
        def called(*args, **kwargs):
            seen.append(name)
            return fn(*args, **kwargs)
        return called

    monkeypatch.setattr(F, "conv2d", spy("conv2d", F.conv2d))
    monkeypatch.setattr(F, "linear", spy("linear", F.linear))
    monkeypatch.setattr(_losses, "cross_entropy", spy("cross_entropy", _losses.cross_entropy))
    conv(gg.tensor(X_CONV))
    ce(lin(gg.tensor(X_LIN)), gg.tensor(TARGET))
    assert seen == ["conv2d", "linear", "cross_entropy"]


def test_autocast_still_casts_the_layers():
    conv, lin, ce = _layers()
    x, xl, t = gg.tensor(X_CONV), gg.tensor(X_LIN), gg.tensor(TARGET)
    low = gg.tensor(X_LIN).to(gg.bfloat16)
    with gg.autocast("cpu", dtype=gg.bfloat16):
        assert conv(x).dtype == gg.bfloat16
        assert lin(xl).dtype == gg.bfloat16
        assert ce(low[:, :3], t).dtype == gg.float32  # cross_entropy is on the float32 list
    assert conv(x).dtype == gg.float32 and lin(xl).dtype == gg.float32
    assert ce(low[:, :3], t).dtype == gg.bfloat16  # outside a region: the input's dtype


def test_against_torch_under_autocast():
    torch = pytest.importorskip("torch")
    conv, lin, ce = _layers()
    tconv, tlin = torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.Linear(5, 3)
    with torch.no_grad():
        for mine, theirs in ((conv, tconv), (lin, tlin)):
            theirs.weight.copy_(torch.from_numpy(mine.weight.detach().numpy()))
            theirs.bias.copy_(torch.from_numpy(mine.bias.detach().numpy()))
    with gg.autocast("cpu", dtype=gg.bfloat16):
        got = ce(lin(gg.tensor(X_LIN)), gg.tensor(TARGET))
        got_conv = conv(gg.tensor(X_CONV))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        want = torch.nn.CrossEntropyLoss()(tlin(torch.from_numpy(X_LIN)), torch.from_numpy(TARGET))
        want_conv = tconv(torch.from_numpy(X_CONV))
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert str(got_conv.dtype).split(".")[-1] == str(want_conv.dtype).split(".")[-1]
    np.testing.assert_allclose(got.item(), want.item(), rtol=2e-2)
    np.testing.assert_allclose(got_conv.float().detach().numpy(), want_conv.float().detach().numpy(), rtol=5e-2, atol=5e-2)
