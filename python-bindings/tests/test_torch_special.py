"""lgamma, digamma, polygamma, erfinv, erfc, mvlgamma against PyTorch's: the same values (float64
and float32, poles and infinities included) and the same gradients (docs/special-functions.md)."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

X = np.concatenate([np.linspace(-20.3, 30, 701), [0.5, 1.0, 2.0, 1e-8, -1e-8, 150.5]])
POLES = np.array([0.0, -0.0, -1.0, -7.0])
UNIT = np.concatenate([np.linspace(-0.999, 0.999, 401), [-1.0, 1.0, 1 - 1e-12, 1.5]])

CASES = [
    ("lgamma", lambda L, x: L.lgamma(x), np.concatenate([X, POLES, [np.inf, -np.inf, np.nan]])),
    ("digamma", lambda L, x: L.digamma(x), np.concatenate([X, POLES, [np.inf, np.nan]])),
    # PyTorch's trigamma at the negative integers is finite (6.6e32 at -1: sin(pi x) rounds to
    # 1.2e-16, not 0); glassgrad's is inf there as at 0 (test_special.py): only 0 and -0 compared.
    ("polygamma1", lambda L, x: L.polygamma(1, x), np.concatenate([X, POLES[:2]])),
    ("polygamma2", lambda L, x: L.polygamma(2, x), np.concatenate([X, POLES])),
    ("polygamma4", lambda L, x: L.polygamma(4, x), X),
    ("Tensor.polygamma", lambda L, x: x.polygamma(3), X),
    ("erfinv", lambda L, x: L.erfinv(x), UNIT),
    ("erfc", lambda L, x: L.erfc(x), np.concatenate([np.linspace(-6, 26, 801), [np.inf, -np.inf]])),
    ("mvlgamma", lambda L, x: L.mvlgamma(x, 4), np.linspace(1.6, 40, 200)),
    ("Tensor.lgamma", lambda L, x: x.lgamma(), X),
    ("igamma", lambda L, x: L.igamma(x.detach() * 0 + 3.5, x), np.linspace(0.0, 40, 400)),
    ("igammac", lambda L, x: L.igammac(x.detach() * 0 + 12.0, x), np.linspace(0.0, 40, 400)),
    ("special.gammainc", lambda L, x: L.special.gammainc(x.detach() * 0 + 0.7, x), np.linspace(0.0, 40, 400)),
]


# PyTorch's trigamma (polygamma(1, x), and so digamma's gradient) cuts its asymptotic series
# short: measured against mpmath it is off by up to 5e-10 relative (at x = 1.1134: PyTorch
# 1.408703127503005, glassgrad 1.4087031268183894, mpmath 1.4087031268183896). Those comparisons
# use 1e-9.
TRIGAMMA_RTOL = 1e-9


def _agree(ours, theirs, rtol, atol=0.0):
    same = (np.isnan(ours) & np.isnan(theirs)) | (ours == theirs)
    with np.errstate(invalid="ignore"):
        close = np.abs(ours - theirs) <= rtol * np.abs(theirs) + atol
    bad = ~(same | close)
    assert not bad.any(), list(zip(np.nonzero(bad)[0][:5], ours[bad][:5], theirs[bad][:5]))


@pytest.mark.parametrize("name,fn,x", CASES, ids=[c[0] for c in CASES])
def test_values_are_torchs(name, fn, x):
    # float32: PyTorch computes in float32 (digamma near its root x = 1.4616 loses digits there:
    # 0.010669926 at x = 1.47271 where the float64 value is 0.0106698703), glassgrad in float64
    # rounded once: compared with an absolute 1e-6 besides the relative 2e-6.
    for dtype, rtol, atol in (("float64", TRIGAMMA_RTOL if name == "polygamma1" else 1e-12, 1e-14),
                              ("float32", 2e-6, 1e-6)):
        ours = fn(gg, gg.tensor(x, dtype=dtype)).numpy()
        theirs = fn(torch, torch.tensor(x, dtype=getattr(torch, dtype))).numpy()
        assert ours.dtype == theirs.dtype
        if dtype == "float32":  # float32 near the poles: PyTorch computes in float32, glassgrad in float64
            with np.errstate(invalid="ignore"):
                keep = ~(np.abs(x - np.round(x)) <= 1e-3)
            if name == "polygamma1":  # PyTorch's float32 reflection: sin(pi x) in float32, 1e-4 off at -20
                keep &= x > 0
            ours, theirs = ours[keep], theirs[keep]
        _agree(ours, theirs, rtol, atol)


@pytest.mark.parametrize("name,fn,x", CASES, ids=[c[0] for c in CASES])
def test_gradients_are_torchs(name, fn, x):
    x = x[np.isfinite(x)]
    x = x[(np.abs(x - np.round(x)) > 1e-3) & ((np.abs(x) < 1) if name == "erfinv" else True)]
    ours_x = gg.tensor(x, requires_grad=True)
    theirs_x = torch.tensor(x, requires_grad=True)
    u = np.random.default_rng(0).standard_normal(x.shape)
    (fn(gg, ours_x) * gg.tensor(u)).sum().backward()
    (fn(torch, theirs_x) * torch.tensor(u)).sum().backward()
    rtol = TRIGAMMA_RTOL if name in ("digamma", "polygamma1") else 1e-10
    _agree(ours_x.grad.numpy(), theirs_x.grad.numpy(), rtol, 1e-12)


def test_integer_input_gives_the_default_float():
    assert str(gg.lgamma(gg.tensor([1, 2, 3])).dtype).split(".")[-1] == \
        str(torch.lgamma(torch.tensor([1, 2, 3])).dtype).split(".")[-1]


@pytest.mark.parametrize("name", gg.special.__all__)
def test_special_namespace_is_torchs(name):
    x = np.linspace(0.05, 0.95, 19)
    args = {"polygamma": (2,), "multigammaln": (2,), "logsumexp": (0,), "xlogy": (x[::-1].copy(),), "xlog1py": (x[::-1].copy(),),
            "gammainc": (x[::-1].copy(),), "gammaincc": (x[::-1].copy(),), "softmax": (0,), "log_softmax": (0,),
            "zeta": (x[::-1].copy() + 1,)}.get(name, (5,) if "polynomial" in name else ())
    lead = name == "polygamma"

    def call(lib, mod):
        t = lib.tensor(x + (1.0 if name == "multigammaln" else 0.0))
        rest = tuple(lib.tensor(a) if isinstance(a, np.ndarray) else a for a in args)
        return getattr(mod, name)(*(rest + (t,) if lead else (t,) + rest)).numpy()
    np.testing.assert_allclose(call(gg, gg.special), call(torch, torch.special), rtol=1e-6, atol=1e-7)
