"""torch.special's i0, i0e, i1, i1e, ndtr, ndtri, log_ndtr, erfcx, entr, zeta, bessel_j0/j1,
spherical_bessel_j0 against scipy.special in float64 over wide ranges (infinities, NaN, tails),
float32 results, and float64 finite-difference gradients (docs/special-functions.md)."""
import numpy as np
import pytest

import glassgrad as gg

sp = pytest.importorskip("scipy.special")

WIDE = np.concatenate([np.linspace(-30, 30, 1201), np.geomspace(30, 700, 50), -np.geomspace(30, 700, 50),
                       [0.0, -0.0, 1e-300, 7.999999, 8.0, 8.000001, np.inf, -np.inf, np.nan]])
PROBABILITIES = np.concatenate([np.linspace(0, 1, 1001), np.geomspace(1e-300, 1e-3, 300),
                                1 - np.geomspace(1e-16, 1e-3, 100), [-0.5, 1.5, np.nan]])

UNARY = {  # name: (reference, arguments, relative tolerance)
    "i0": (sp.i0, WIDE, 1e-14), "i0e": (sp.i0e, WIDE, 1e-14), "i1": (sp.i1, WIDE, 1e-14),
    "i1e": (sp.i1e, WIDE, 1e-14), "erfcx": (sp.erfcx, WIDE[np.abs(WIDE) < 26], 1e-13),
    "ndtr": (sp.ndtr, WIDE, 1e-13), "log_ndtr": (sp.log_ndtr, WIDE, 1e-13), "ndtri": (sp.ndtri, PROBABILITIES, 1e-13),
    "entr": (sp.entr, WIDE, 1e-15), "bessel_j0": (sp.j0, WIDE[np.abs(WIDE) < 100], 1e-13),
    "bessel_j1": (sp.j1, WIDE[np.abs(WIDE) < 100], 1e-13),
    "spherical_bessel_j0": (lambda x: sp.spherical_jn(0, x), WIDE[np.isfinite(WIDE)], 1e-14),
}


# bessel_j0/j1 are PyTorch's rational approximations (the same values as torch.special's, test_torch_fuzz_special.py),
# within 3.3e-7 of the functions (just above 5); they cross zero, so the bound is absolute.
BESSEL_J_ATOL = 4e-7


def _agree(ours, ref, rtol, atol=0.0):
    same = (np.isnan(ours) & np.isnan(ref)) | (ours == ref)
    with np.errstate(invalid="ignore"):
        close = np.abs(ours - ref) <= rtol * np.abs(ref) + atol
    bad = ~(same | close)
    assert not bad.any(), list(zip(np.nonzero(bad)[0][:5], ours[bad][:5], ref[bad][:5]))


@pytest.mark.parametrize("name", list(UNARY))
def test_matches_scipy_in_float64(name):
    ref_fn, x, rtol = UNARY[name]
    with np.errstate(all="ignore"):
        ref = ref_fn(x)
    _agree(getattr(gg.special, name)(gg.tensor(x)).numpy(), ref, rtol, BESSEL_J_ATOL if "bessel_j" in name else 0.0)


@pytest.mark.parametrize("name", list(UNARY))
def test_float32_and_integer_inputs_give_float32(name):
    ref_fn, x, _ = UNARY[name]
    x32 = x.astype(np.float32)
    got = getattr(gg.special, name)(gg.tensor(x32))
    assert got.dtype == gg.float32
    with np.errstate(all="ignore"):
        ref = ref_fn(x32.astype(np.float64)).astype(np.float32)
    _agree(got.numpy(), ref, 2e-6, BESSEL_J_ATOL if "bessel_j" in name else 1e-7)
    assert getattr(gg.special, name)(gg.tensor([0, 1])).dtype == gg.float32


def test_zeta_matches_scipy_and_its_domain():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(1.01, 40, 400), [1.0, 0.5, 2.0, 3.0, 4.0, 2.0, np.nan, 2.0]])
    q = np.concatenate([rng.uniform(0.01, 50, 400), [1.0, 1.0, 0.0, -2.0, -3.5, np.inf, 1.0, np.nan]])
    ours = gg.special.zeta(gg.tensor(x), gg.tensor(q)).numpy()
    ref = sp.zeta(x, q)
    ref[-6:-3] = [np.inf, np.inf, sum((k - 3.5) ** -4 for k in range(4)) + sp.zeta(4, 0.5)]  # inf at q = 0, -1, ...
    ref[-3] = np.nan  # q = inf: PyTorch's sum gives NaN, scipy 0
    _agree(ours, ref, 1e-12)
    assert gg.special.zeta(2, gg.tensor([1.0, 2.0])).dtype == gg.float32
    assert gg.special.zeta(gg.tensor([2.0], dtype=gg.float64), 1.0).dtype == gg.float64


GRADIENTS = {
    "i0": [-9.5, -2.0, -0.3, 0.4, 3.0, 8.5, 12.0], "i0e": [-9.5, -2.0, -0.3, 0.4, 3.0, 8.5, 12.0],
    "i1": [-9.5, -2.0, -0.3, 0.4, 3.0, 8.5, 12.0], "i1e": [-9.5, -2.0, -0.3, 0.4, 3.0, 8.5, 12.0],
    "ndtr": [-6.0, -1.0, 0.2, 3.0], "log_ndtr": [-30.0, -6.0, -1.0, 0.2, 3.0], "ndtri": [1e-3, 0.01, 0.4, 0.7, 0.999],
    "erfcx": [-3.0, -0.5, 0.5, 1.9, 2.1, 10.0], "entr": [0.01, 0.5, 1.0, 3.0],
}


@pytest.mark.parametrize("name", list(GRADIENTS))
def test_gradients_match_finite_differences(name):
    assert gg.debug.gradcheck(getattr(gg.special, name), [np.array(GRADIENTS[name])])


def test_zeta_gradient_to_q_matches_finite_differences_and_to_x_raises():
    x = gg.tensor([2.5, 3.0, 4.5], dtype=gg.float64)
    assert gg.debug.gradcheck(lambda q: gg.special.zeta(x, q), [np.array([0.5, 1.5, 7.0])])
    xs = gg.tensor([2.5], dtype=gg.float64, requires_grad=True)
    with pytest.raises(gg.UnsupportedError, match="derivative for 'zeta'"):
        gg.special.zeta(xs, 1.0).sum().backward()


def test_i0_family_gradients_at_zero_and_the_functions_without_one():
    x = gg.tensor([0.0], dtype=gg.float64, requires_grad=True)
    for fn, want in ((gg.special.i1, 0.5), (gg.special.i1e, 0.5), (gg.special.i0, 0.0), (gg.special.i0e, 0.0)):
        (g,) = gg.autograd.grad(fn(x).sum(), x)
        assert g.item() == want
    for fn in (gg.special.bessel_j0, gg.special.bessel_j1, gg.special.modified_bessel_i0, gg.special.spherical_bessel_j0):
        assert not fn(x).requires_grad
    assert gg.i0(x).requires_grad and x.i0().requires_grad
