"""glassgrad.autograd.forward_ad and glassgrad.func.jvp (docs/autograd.md, "Forward-mode AD"):
tangents against float64 central differences of the function along the tangent, the level's
rules, and the errors."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.autograd.forward_ad as fwAD
from glassgrad.func import jvp

RNG = np.random.default_rng(5)


def _t(a):
    return gg.tensor(np.asarray(a, dtype=np.float64))


def f_np(x, w):
    return np.tanh(x @ w) * np.exp(x[:, :1])


def f_gg(x, w):
    return (x @ w).tanh() * x[:, :1].exp()


def _directional(x, w, tx, tw, eps=1e-6):
    return (f_np(x + eps * tx, w + eps * tw) - f_np(x - eps * tx, w - eps * tw)) / (2 * eps)


def test_unpack_dual_gives_the_directional_derivative():
    x, w = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 2))
    tx, tw = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 2))
    with fwAD.dual_level():
        dx, dw = fwAD.make_dual(_t(x), _t(tx)), fwAD.make_dual(_t(w), _t(tw))
        y = f_gg(dx, dw)
        primal, tangent = fwAD.unpack_dual(y)
        np.testing.assert_allclose(primal.detach().numpy(), f_np(x, w), rtol=1e-12)
        np.testing.assert_allclose(tangent.numpy(), _directional(x, w, tx, tw), rtol=1e-6, atol=1e-9)
        p, t = fwAD.unpack_dual(dx)
        np.testing.assert_allclose(p.numpy(), x)
        np.testing.assert_allclose(t.numpy(), tx)
        assert fwAD.unpack_dual(_t(x)).tangent is None  # not computed from a dual
    assert fwAD.unpack_dual(y).tangent is None  # the level is over


def test_func_jvp_matches_central_differences_and_gives_zeros_for_independent_outputs():
    x, w = RNG.standard_normal((2, 3)), RNG.standard_normal((3, 2))
    tx, tw = RNG.standard_normal((2, 3)), RNG.standard_normal((3, 2))
    (out, other), (jt, jother) = jvp(lambda a, b: (f_gg(a, b), gg.ones(2)), (_t(x), _t(w)), (_t(tx), _t(tw)))
    np.testing.assert_allclose(out.numpy(), f_np(x, w), rtol=1e-12)
    np.testing.assert_allclose(jt.numpy(), _directional(x, w, tx, tw), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(jother.numpy(), np.zeros(2))
    assert not jt.requires_grad


def test_levels_and_errors():
    with pytest.raises(RuntimeError, match="no level exists"):
        fwAD.make_dual(gg.ones(2), gg.ones(2))
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match="Nested forward mode AD"):
            fwAD.enter_dual_level()
        with pytest.raises(RuntimeError, match="different size"):
            fwAD.make_dual(gg.ones(2), gg.ones(3))
        with pytest.raises(ValueError, match="floating point"):
            fwAD.make_dual(gg.tensor([1, 2]), gg.ones(2))
    level = fwAD.enter_dual_level()
    fwAD.exit_dual_level(level=level)
    with pytest.raises(RuntimeError, match="different size than that of the original Tensor"):
        jvp(lambda a: a, (gg.ones(2),), (gg.ones(3),))
    with pytest.raises(RuntimeError, match="tuples"):
        jvp(lambda a: a, gg.ones(2), gg.ones(2))


def test_an_op_without_a_second_derivative_names_itself_and_the_way_out():
    with pytest.raises(gg.UnsupportedError, match="(?s)CumProdBackward.*fix: compute the Jacobian by reverse mode"):
        jvp(lambda a: gg.cumprod(a, 0), (gg.ones(3),), (gg.ones(3),))
