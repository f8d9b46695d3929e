"""ReLU6, Hardtanh, Hardswish, Hardsigmoid and Mish as PyTorch computes them: values and
gradients at the kinks themselves (where finite differences cannot look), NaN inputs, the
argument checks, and the layers' printing."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F

# The kinks of every function here, both sides of them, and a NaN.
POINTS = np.array([-7.0, -6.0, -3.0, -2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.0, 6.0, 7.0, np.nan])
FUNCTIONS = [("relu6", ()), ("hardtanh", ()), ("hardtanh", (-3.0, 6.0)), ("hardtanh", (2.5, 2.5)),
             ("hardswish", ()), ("hardsigmoid", ()), ("mish", ())]


def _gg(name, args, x):
    t = gg.tensor(x, requires_grad=True)
    y = getattr(F, name)(t, *args)
    y.sum().backward()
    return y.detach().numpy(), t.grad.detach().numpy()


@pytest.mark.parametrize("name,args", FUNCTIONS)
def test_values_and_gradients_at_the_kinks_and_nan_match_torch(torch, name, args):
    for dtype in ("float64", "float32"):
        x = POINTS.astype(dtype)
        y, g = _gg(name, args, x)
        tx = torch.tensor(x, requires_grad=True)
        ty = getattr(torch.nn.functional, name)(tx, *args)
        ty.sum().backward()
        tol = 1e-12 if dtype == "float64" else 1e-6
        np.testing.assert_allclose(y, ty.detach().numpy(), rtol=tol, atol=tol, err_msg=f"{name}{args} {dtype}")
        np.testing.assert_allclose(g, tx.grad.numpy(), rtol=tol, atol=tol, err_msg=f"{name}{args} grad {dtype}")
        np.testing.assert_array_equal(np.signbit(y), np.signbit(ty.detach().numpy()))  # -0.0 where torch has it


def test_the_gradient_is_zero_at_the_bounds_unlike_clamp():
    """hardtanh_backward passes the gradient strictly inside (min_val, max_val)."""
    _, g = _gg("hardtanh", (-1.0, 1.0), np.array([-1.0, -0.999, 0.999, 1.0]))
    np.testing.assert_array_equal(g, [0.0, 1.0, 1.0, 0.0])
    _, g = _gg("relu6", (), np.array([0.0, 6.0, 3.0]))
    np.testing.assert_array_equal(g, [0.0, 0.0, 1.0])


def test_hardswish_reference_formula():
    x = np.linspace(-5, 5, 41)
    y, g = _gg("hardswish", (), x)
    np.testing.assert_allclose(y, x * np.clip(x + 3, 0, 6) / 6, rtol=1e-15)
    np.testing.assert_allclose(g, np.where(x <= -3, 0, np.where(x < 3, x / 3 + 0.5, 1)), rtol=1e-15)


def test_mish_is_finite_far_out():
    y, g = _gg("mish", (), np.array([-800.0, -40.0, 40.0, 800.0]))
    np.testing.assert_allclose(y, [0.0, -40.0 * np.tanh(np.log1p(np.exp(-40.0))), 40.0, 800.0], atol=1e-15)
    assert np.isfinite(g).all()


def test_hardtanh_refuses_min_above_max():
    x = gg.tensor(np.zeros(3))
    with pytest.raises(gg.InvalidArgumentError, match="min_val cannot be greater than max_val"):
        F.hardtanh(x, 2.0, 1.0)
    with pytest.raises(gg.InvalidArgumentError, match="min_val cannot be greater than max_val"):
        gg.nn.Hardtanh(1.0, -1.0)


def test_hardtanh_takes_the_deprecated_spellings_with_pytorch_s_warning():
    with pytest.warns(FutureWarning, match="min_value"):
        layer = gg.nn.Hardtanh(min_value=-2.0)
    assert (layer.min_val, layer.max_val) == (-2.0, 1.0)


def test_layers_print_and_subclass_as_torch(torch):
    for name, args in [("ReLU6", ()), ("ReLU6", (True,)), ("Hardtanh", ()), ("Hardtanh", (-2.0, 3.0, True)),
                       ("Hardswish", ()), ("Hardsigmoid", (True,)), ("Mish", ())]:
        assert repr(getattr(gg.nn, name)(*args)) == repr(getattr(torch.nn, name)(*args))
    assert isinstance(gg.nn.ReLU6(), gg.nn.Hardtanh) and not isinstance(gg.nn.Hardsigmoid(), gg.nn.Hardswish)


def test_hard_activations_fuse_into_one_elementwise_step():
    """hardtanh's two one-sided clamps and the activation after them run as one fused kernel."""
    fusion = gg._C.fusion_enabled()
    gg.set_fusion(True)
    try:
        x = gg.tensor(np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32))
        y = F.hardswish(F.hardtanh(x * 2.0, -0.5, 0.5))
        plan = gg._C.plan_for([y._h])
        assert [s["op"] for s in plan.steps] == ["FusedElementwise"]
        assert "MulScalar+HardtanhMin+HardtanhMax+Hardswish" in str(plan)
        v = np.clip(x.numpy() * 2, -0.5, 0.5)
        np.testing.assert_allclose(y.numpy(), v * np.clip(v + 3, 0, 6) / 6, rtol=1e-6)
    finally:
        gg.set_fusion(fusion)
