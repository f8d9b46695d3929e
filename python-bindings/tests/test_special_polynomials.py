"""torch.special's orthogonal polynomials (chebyshev_polynomial_t/u/v/w, their shifted forms,
hermite_polynomial_h/he, laguerre_polynomial_l, legendre_polynomial_p): closed forms and NumPy's
polynomial classes in float64, PyTorch's documented edge rules (n < 0, n truncated, the ends of
the interval, Hermite's NaN above n = 128/512, float32 overflow), dtypes, broadcasting, out=, no
gradient; and against PyTorch on a dense grid (docs/special-functions.md)."""
import math

import numpy as np
import pytest
from numpy.polynomial import chebyshev as C, hermite as H, hermite_e as HE, laguerre as L, legendre as P

import glassgrad as gg

S = gg.special
NAMES = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
         "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
         "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
         "legendre_polynomial_p"]


def _unit(k):
    c = np.zeros(k + 1)
    c[k] = 1
    return c


def _u_coefs(k):
    """U_k in the Chebyshev T basis: 2 (T_k + T_(k-2) + ...), T_0 once."""
    c = np.zeros(k + 1)
    c[k % 2::2] = 2
    if k % 2 == 0:
        c[0] = 1
    return c


def _u(y, k):
    return 0 * y if k < 0 else C.chebval(y, _u_coefs(k))


def _reference(name, x, n):
    """NumPy's value of each polynomial in float64 (Chebyshev V and W through U: V_n = U_n -
    U_(n-1), W_n = U_n + U_(n-1))."""
    y = 2 * x - 1 if name.startswith("shifted") else x
    kind = name.split("_")[-1]
    if kind == "t":
        return C.chebval(y, _unit(n))
    if kind in ("u", "v", "w"):
        return {"u": _u(y, n), "v": _u(y, n) - _u(y, n - 1), "w": _u(y, n) + _u(y, n - 1)}[kind]
    return {"h": H.hermval, "he": HE.hermeval, "l": L.lagval, "p": P.legval}[kind](x, _unit(n))


X = np.linspace(-1.5, 1.5, 61)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 7, 9, 12])
def test_float64_values_match_numpy_polynomials(name, n):
    x = X if not name.startswith("shifted") else (X + 1) / 2
    got = getattr(S, name)(gg.tensor(x), n).numpy()
    np.testing.assert_allclose(got, _reference(name, x, n), rtol=1e-10, atol=1e-10)


def test_closed_forms():
    x = gg.tensor([-2.0, -0.3, 0.0, 0.7, 3.0], dtype=gg.float64)
    xs = x.numpy()
    np.testing.assert_allclose(S.hermite_polynomial_h(x, 3).numpy(), 8 * xs ** 3 - 12 * xs)
    np.testing.assert_allclose(S.hermite_polynomial_he(x, 3).numpy(), xs ** 3 - 3 * xs)
    np.testing.assert_allclose(S.laguerre_polynomial_l(x, 2).numpy(), (xs ** 2 - 4 * xs + 2) / 2)
    np.testing.assert_allclose(S.legendre_polynomial_p(x, 2).numpy(), (3 * xs ** 2 - 1) / 2)
    theta = np.linspace(0.1, 3.0, 7)
    c = gg.tensor(np.cos(theta))
    np.testing.assert_allclose(S.chebyshev_polynomial_t(c, 25).numpy(), np.cos(25 * theta), atol=1e-12)
    np.testing.assert_allclose(S.chebyshev_polynomial_u(c, 25).numpy(), np.sin(26 * theta) / np.sin(theta), atol=1e-11)
    np.testing.assert_allclose(S.chebyshev_polynomial_v(c, 25).numpy(), np.cos(25.5 * theta) / np.cos(theta / 2),
                               atol=1e-10)
    np.testing.assert_allclose(S.chebyshev_polynomial_w(c, 25).numpy(), np.sin(25.5 * theta) / np.sin(theta / 2),
                               atol=1e-10)


def test_n_rules():
    x = gg.tensor([0.3] * 6)
    # n < 0 gives 0; n is truncated toward 0 (-0.5 -> 0, 2.9 -> 2); NaN and +-inf give 0
    n = gg.tensor([-1.0, -0.5, 2.9, math.nan, math.inf, -math.inf])
    np.testing.assert_allclose(S.chebyshev_polynomial_t(x, n).numpy(), [0, 1, 2 * 0.09 - 1, 0, 0, 0], rtol=1e-6)
    assert S.legendre_polynomial_p(x, -3).tolist() == [0.0] * 6
    assert S.laguerre_polynomial_l(gg.tensor([0.0, -0.0]), 7).tolist() == [1.0, 1.0]


def test_interval_ends():
    ends = gg.tensor([1.0, -1.0], dtype=gg.float64)
    assert S.chebyshev_polynomial_t(ends, 5).tolist() == [1.0, -1.0]
    assert S.chebyshev_polynomial_u(ends, 5).tolist() == [6.0, -6.0]
    assert S.chebyshev_polynomial_v(ends, 5).tolist() == [1.0, -11.0]
    assert S.chebyshev_polynomial_w(ends, 4).tolist() == [9.0, 1.0]
    assert S.legendre_polynomial_p(ends, 3).tolist() == [1.0, -1.0]
    shifted = gg.tensor([1.0, 0.0], dtype=gg.float64)
    assert S.shifted_chebyshev_polynomial_u(shifted, 3).tolist() == [4.0, -4.0]
    assert S.shifted_chebyshev_polynomial_w(shifted, 3).tolist() == [7.0, -1.0]


def test_hermite_nan_above_its_limit_and_float32_overflow():
    # PyTorch: NaN for n > 128 (float32) and n > 512 (float64); its float32 loop overflows to NaN
    assert math.isnan(S.hermite_polynomial_h(gg.tensor([0.1]), 129).item())
    assert not math.isnan(S.hermite_polynomial_he(gg.tensor([0.1], dtype=gg.float64), 129).item())
    assert math.isnan(S.hermite_polynomial_he(gg.tensor([0.1], dtype=gg.float64), 513).item())
    assert all(math.isnan(v) for v in S.chebyshev_polynomial_t(gg.tensor([1.5, -1.5, 2.0]),
                                                             gg.tensor([300, 301, 128])).tolist())
    assert math.isfinite(S.chebyshev_polynomial_t(gg.tensor([1.5], dtype=gg.float64), 300).item())


def test_dtypes_and_broadcasting():
    assert S.chebyshev_polynomial_t(gg.tensor([1, 2]), 3).tolist() == [1.0, 26.0]
    assert S.chebyshev_polynomial_t(gg.tensor([1, 2]), 3).dtype == gg.float32
    assert S.hermite_polynomial_h(gg.tensor([0.5]), gg.tensor([2.0], dtype=gg.float64)).dtype == gg.float64
    assert S.legendre_polynomial_p(0.5, gg.tensor([2, 3])).tolist() == [-0.125, -0.4375]
    out = S.laguerre_polynomial_l(gg.tensor([[0.5], [0.2]]), gg.tensor([2, 3, 4]))
    assert out.shape == (2, 3)
    assert S.chebyshev_polynomial_t(gg.tensor(0.5), gg.tensor(2.0)).shape == ()
    with pytest.raises(NotImplementedError, match="Half"):
        S.chebyshev_polynomial_t(gg.tensor([0.5], dtype=gg.float16), 2)
    with pytest.raises(TypeError):
        S.chebyshev_polynomial_t(0.5, 3)


def test_out_and_no_gradient():
    x = gg.tensor([0.5, 0.2], requires_grad=True)
    y = S.hermite_polynomial_he(x, 3)
    assert not y.requires_grad
    out = gg.empty(2)
    assert S.hermite_polynomial_he(x.detach(), 3, out=out) is out
    np.testing.assert_allclose(out.numpy(), [0.125 - 1.5, 0.008 - 0.6], rtol=1e-6)


GRID_X = np.concatenate([np.linspace(-3, 3, 241), [np.nan, np.inf, -np.inf, 1, -1, 0, 1e-9, -0.9999999, 0.9999999,
                                                   1.0000001, 10, -10, 100]])
GRID_N = np.array([-3, -1, 0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 20, 50, 127, 128, 129, 300, 513])


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_as_torch_on_a_dense_grid(name, dtype):
    torch = pytest.importorskip("torch")
    x, n = np.meshgrid(GRID_X.astype(dtype), GRID_N, indexing="ij")
    got = getattr(S, name)(gg.tensor(x), gg.tensor(n))
    want = getattr(torch.special, name)(torch.tensor(x), torch.tensor(n))
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    tol = 1e-6 if dtype == "float32" else 1e-11
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tol, atol=tol, equal_nan=True)
