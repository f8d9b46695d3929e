"""Spellings that scripts of PyTorch 0.3-1.x still use and PyTorch 2 still accepts with a warning,
against torch: the scalar-first overloads of add/sub/addcmul/addcdiv (optimizers copied from
PyTorch 0.4's source: p.data.add_(-lr, d_p)), softmax/log_softmax/softmin without dim,
nn.utils.clip_grad_norm, torch.set_default_tensor_type. Values against NumPy and torch; warnings
word for word where torch shows them each time. Skipped when torch is not importable."""
import warnings

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F

torch = pytest.importorskip("torch")

_rng = np.random.default_rng(5)
X, A, B = (_rng.standard_normal((3, 4)) for _ in range(3))
POS = _rng.uniform(0.5, 2.0, (3, 4))


def _caught(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return result, [(w.category, str(w.message)) for w in caught]


# name -> (call on (lib, x, a, b), NumPy's value)
OVERLOADS = {
    "add": (lambda lib, x, a, b: x.add(0.5, a), X + 0.5 * A),
    "add_": (lambda lib, x, a, b: x.clone().add_(-0.1, a), X - 0.1 * A),
    "torch.add": (lambda lib, x, a, b: lib.add(x, 2, a), X + 2 * A),
    "sub_": (lambda lib, x, a, b: x.clone().sub_(0.5, a), X - 0.5 * A),
    "addcmul_": (lambda lib, x, a, b: x.clone().addcmul_(0.3, a, b), X + 0.3 * A * B),
    "torch.addcmul": (lambda lib, x, a, b: lib.addcmul(x, 0.3, a, b), X + 0.3 * A * B),
    "addcdiv_": (lambda lib, x, a, b: x.clone().addcdiv_(-0.2, a, b), X - 0.2 * A / POS),
    # a 0-d tensor not requiring grad is read as the number (fast.ai's LAMB: add_(-lr * min(r1/r2, 10), step))
    "add_ (0-d)": (lambda lib, x, a, b: x.clone().add_(lib.tensor(-0.125), a), X - 0.125 * A),
    "addcmul_ (0-d)": (lambda lib, x, a, b: x.clone().addcmul_(lib.tensor(0.25), a, b), X + 0.25 * A * B),
}


@pytest.mark.parametrize("name", OVERLOADS)
def test_scalar_first_overloads_compute_as_torchs(name):
    call, want = OVERLOADS[name]
    b = POS if "addcdiv" in name else B
    ours, warned = _caught(lambda: call(gg, *(gg.tensor(v) for v in (X, A, b))))
    theirs, _ = _caught(lambda: call(torch, *(torch.tensor(v) for v in (X, A, b))))
    np.testing.assert_allclose(ours.numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    # PyTorch warns once a process for these; glassgrad's text is its first line's
    base = name.split(" ")[0].split(".")[-1].rstrip("_")
    assert [c for c, _ in warned] == [UserWarning] and warned[0][1].startswith(f"This overload of {base} is deprecated")


def test_the_overloads_keep_their_documented_signatures_and_errors():
    with pytest.raises(TypeError):
        gg.ones(2).add(gg.ones(2), 2)  # alpha is keyword-only, as PyTorch's
    with pytest.raises(TypeError):
        torch.ones(2).add(torch.ones(2), 2)
    np.testing.assert_allclose(gg.tensor(X).add(gg.tensor(A), alpha=2).numpy(), X + 2 * A)


@pytest.mark.parametrize("which", ["softmax", "log_softmax", "softmin"])
@pytest.mark.parametrize("shape", [(4,), (2, 3), (2, 3, 4), (2, 3, 4, 5)])
def test_softmax_without_dim_picks_torchs_dim_and_warns_as_torch(which, shape):
    x = _rng.standard_normal(shape)
    ours, our_warnings = _caught(lambda: getattr(F, which)(gg.tensor(x)))
    theirs, their_warnings = _caught(lambda: getattr(torch.nn.functional, which)(torch.tensor(x)))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    assert our_warnings == their_warnings
    module = {"softmax": "Softmax", "log_softmax": "LogSoftmax", "softmin": "Softmin"}[which]
    ours, our_warnings = _caught(lambda: getattr(nn, module)()(gg.tensor(x)))
    theirs, their_warnings = _caught(lambda: getattr(torch.nn, module)()(torch.tensor(x)))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    assert our_warnings == their_warnings
    assert _caught(lambda: F.softmax(gg.tensor(x), dim=0))[1] == []


def test_clip_grad_norm_old_spelling_clips_and_warns_as_torchs():
    def clip(lib):
        p = lib.nn.Parameter(lib.tensor(X))
        (p * lib.tensor(A)).sum().backward()
        norm, warned = _caught(lambda: lib.nn.utils.clip_grad_norm([p], 0.5))
        return float(norm), p.grad.numpy(), warned
    ours, theirs = clip(gg), clip(torch)
    assert ours[0] == pytest.approx(np.linalg.norm(A), rel=1e-12) and ours[0] == pytest.approx(theirs[0], rel=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-10)
    assert ours[2] == theirs[2]


@pytest.mark.filterwarnings("ignore:torch.set_default_tensor_type")
def test_set_default_tensor_type_sets_the_default_dtype_as_torchs():
    before_dtype, before_device = gg.get_default_dtype(), gg.default_device()
    try:
        for t in ("torch.DoubleTensor", "torch.FloatTensor"):
            _, ours = _caught(lambda: gg.set_default_tensor_type(t))
            _, theirs = _caught(lambda: torch.set_default_tensor_type(t))
            assert str(gg.ones(1).dtype) == str(torch.ones(1).dtype).replace("torch.", "glassgrad.")
            assert str(gg.tensor([1.5]).dtype) == str(torch.tensor([1.5]).dtype).replace("torch.", "glassgrad.")
            assert [c for c, _ in ours] == [UserWarning]
            assert all(ours[0][1] in text for _, text in theirs)  # PyTorch's: once a process
        gg.set_default_tensor_type(gg.DoubleTensor)
        assert gg.zeros(2).dtype == gg.float64
        for bad in ("torch.LongTensor", 3):
            with pytest.raises(TypeError, match="only floating-point types are supported as the default type"):
                gg.set_default_tensor_type(bad)
            with pytest.raises(TypeError, match="only floating-point types are supported as the default type"):
                torch.set_default_tensor_type(bad)
    finally:
        gg.set_default_dtype(before_dtype)
        gg.set_default_device(before_device)
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("name", ["upsample", "upsample_nearest", "upsample_bilinear"])
def test_upsample_functions_warn_as_torchs(name):
    x = _rng.standard_normal((1, 1, 2, 3))
    ours, our_warnings = _caught(lambda: getattr(F, name)(gg.tensor(x), scale_factor=2))
    theirs, their_warnings = _caught(lambda: getattr(torch.nn.functional, name)(torch.tensor(x), scale_factor=2))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    assert our_warnings == their_warnings
