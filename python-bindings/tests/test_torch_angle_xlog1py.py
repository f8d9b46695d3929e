"""torch.angle, torch.real, torch.conj, torch.nextafter and torch.special.xlog1py: NumPy
references, float64 finite-difference gradients, and PyTorch's values, dtypes and gradients
(tests/torch_fuzz.py)."""
import numpy as np
import pytest

import glassgrad as gg
from torch_fuzz import DTYPES, array, same

_SPECIAL = np.array([-np.inf, -3.5, -1, -0.0, 0.0, 0.5, 2, np.inf, np.nan])


def test_angle_real_and_conj_match_numpy_and_torch():
    x = _SPECIAL
    # PyTorch's angle of a real number is pi below 0 (np.angle's pi for -0.0 is not: -0.0 < 0 is false)
    want = np.where(np.isnan(x), np.nan, np.where(x < 0, np.pi, 0.0))
    np.testing.assert_array_equal(gg.angle(gg.tensor(x)).numpy(), want)
    np.testing.assert_array_equal(want[x != 0], np.angle(x)[x != 0])
    for dtype in DTYPES:
        v = x.astype(dtype) if dtype.startswith("float") else array(np.random.default_rng(1), dtype, (5,))
        for where, fn in {"angle": lambda lib, t: lib.angle(t), "x.angle()": lambda lib, t: t.angle(),
                          "real": lambda lib, t: lib.real(t), "conj": lambda lib, t: lib.conj(t)}.items():
            same(fn, v, where=f"{where} of {dtype}")


def test_xlog1py_matches_numpy_and_torch_on_special_values():
    x, y = np.repeat(_SPECIAL, len(_SPECIAL)), np.tile(_SPECIAL, len(_SPECIAL))
    with np.errstate(invalid="ignore", divide="ignore"):
        want = np.where(np.isnan(y), np.nan, np.where(x == 0, 0.0, x * np.log1p(y)))
    np.testing.assert_allclose(gg.special.xlog1py(gg.tensor(x), gg.tensor(y)).numpy(), want, rtol=1e-15, atol=0)
    for dtype in ("float32", "float64"):
        same(lambda lib, a, b: lib.special.xlog1py(a, b), x.astype(dtype), y.astype(dtype),
             where=f"xlog1py of {dtype} special values")
    same(lambda lib, a, b: lib.special.xlog1py(a, b), np.array([0, 2, 3]), np.array([1, 0, 4]), where="xlog1py of ints")


@pytest.mark.parametrize("fn", [lambda a, b: gg.special.xlog1py(a, b), lambda a, b: gg.angle(a) * b])
def test_gradients_match_finite_differences(fn):
    rng = np.random.default_rng(3)
    assert gg.debug.gradcheck(fn, [rng.standard_normal(6) + 0.1, np.abs(rng.standard_normal(6))])


def test_gradients_match_torch():
    torch = pytest.importorskip("torch")
    x, y = np.array([0.0, 0.5, -1.5, 2.0]), np.array([0.3, 2.0, 0.1, 5.0])
    for fn in (lambda lib, a, b: lib.special.xlog1py(a, b), lambda lib, a, b: lib.angle(a) * b):
        ta, tb = torch.tensor(x, requires_grad=True), torch.tensor(y, requires_grad=True)
        ga, gb = gg.tensor(x, requires_grad=True), gg.tensor(y, requires_grad=True)
        fn(torch, ta, tb).sum().backward()
        fn(gg, ga, gb).sum().backward()
        np.testing.assert_allclose(ga.grad.numpy(), ta.grad.numpy(), rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(gb.grad.numpy(), tb.grad.numpy(), rtol=1e-12, atol=1e-14)


def test_nextafter_matches_numpy_and_torch():
    x, y = np.repeat(_SPECIAL, len(_SPECIAL)), np.tile(_SPECIAL, len(_SPECIAL))
    np.testing.assert_array_equal(gg.nextafter(gg.tensor(x), gg.tensor(y)).numpy(), np.nextafter(x, y))
    for a, b in [(x, y), (x.astype(np.float32), y.astype(np.float32)), (x.astype(np.float32), y),
                 (np.array([1.0, 2.0], np.float32), np.array(3.0)), (np.array([1, 2]), np.array([2, 0]))]:
        for where, fn in {"nextafter": lambda lib, p, q: lib.nextafter(p, q), "x.nextafter(y)": lambda lib, p, q: p.nextafter(q),
                          "x.nextafter_(y)": lambda lib, p, q: p.clone().nextafter_(q)}.items():
            same(fn, a, b, where=f"{where} of {a.dtype} and {b.dtype}")
