"""glassgrad.func (docs/autograd.md, "torch.func"): the transforms against NumPy references and
float64 central differences, vmap's mapping rules (in_dims None, tuples, dicts, out_dims,
nesting, randomness) and functional_call's swapping (restored after an error, tied weights,
strict)."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad._finite_differences import central_differences
from glassgrad.func import (functional_call, grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize,
                            stack_module_state, vjp, vmap)

RNG = np.random.default_rng(0)


def _t(a):
    return gg.tensor(np.asarray(a, dtype=np.float64))


def f_np(x, w):
    return float(np.sum(np.tanh(x @ w) ** 2) + np.sum(x ** 3))


def f_gg(x, w):
    return ((x @ w).tanh() ** 2).sum() + (x ** 3).sum()


def test_grad_with_argnums_matches_central_differences():
    x, w = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 2))
    gx, gw = grad(f_gg, argnums=(0, 1))(_t(x), _t(w))
    for i, g in enumerate((gx, gw)):
        fd = central_differences(lambda a: f_np(*a), [x, w], i, 1e-6)
        np.testing.assert_allclose(g.numpy(), fd, rtol=1e-6, atol=1e-8)
    assert not gx.requires_grad  # plain inputs: a plain result
    np.testing.assert_allclose(grad(f_gg, argnums=-1)(_t(x), _t(w)).numpy(), gw.numpy())


def test_grad_and_value_has_aux_and_containers():
    x = RNG.standard_normal(5)

    def loss(p, k):
        y = (p["a"] * p["b"][0]).sum() * k
        return y, {"twice": y * 2}

    p = {"a": _t(x), "b": [_t(x[::-1].copy())]}
    g, (value, aux) = grad_and_value(loss, has_aux=True)(p, 3.0)
    np.testing.assert_allclose(g["a"].numpy(), 3 * x[::-1])
    np.testing.assert_allclose(g["b"][0].numpy(), 3 * x)
    assert value.item() == pytest.approx(3 * float(x @ x[::-1]))
    assert aux["twice"].item() == pytest.approx(2 * value.item())
    g2, aux2 = grad(loss, has_aux=True)(p, 3.0)
    np.testing.assert_allclose(g2["a"].numpy(), g["a"].numpy())


def test_grad_errors_name_the_cause():
    with pytest.raises(RuntimeError, match="scalar Tensor, got tensor with 1 dims. Maybe you wanted to use the vjp"):
        grad(lambda x: x * 2)(gg.ones(3))
    with pytest.raises(RuntimeError, match="only 1 positional inputs"):
        grad(lambda x: x.sum(), argnums=1)(gg.ones(3))
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require gradients"):
        grad(lambda x: x.sum())(gg.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="\\(output, aux\\)"):
        grad(lambda x: x.sum(), has_aux=True)(gg.ones(3))


def test_nested_grad_is_the_second_derivative():
    x = _t(0.7)
    d2 = grad(grad(lambda t: t.sin() * t))(x)
    assert d2.item() == pytest.approx(2 * np.cos(0.7) - 0.7 * np.sin(0.7), rel=1e-12)


def test_jacrev_jacfwd_and_hessian_match_central_differences():
    x, w = RNG.standard_normal((2, 3)), RNG.standard_normal((3, 2))

    def vec(a, b):
        return (a @ b).sin().reshape(-1)

    jx, jw = jacrev(vec, argnums=(0, 1))(_t(x), _t(w))
    assert jx.shape == (4, 2, 3) and jw.shape == (4, 3, 2)
    for i, j in enumerate((jx, jw)):
        rows = [central_differences(lambda a, k=k: float(np.sin(a[0] @ a[1]).reshape(-1)[k]), [x, w], i, 1e-6)
                for k in range(4)]
        np.testing.assert_allclose(j.numpy(), np.stack(rows), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(jacfwd(vec, argnums=(0, 1))(_t(x), _t(w))[1].numpy(), jw.numpy())
    h = hessian(f_gg)(_t(x), _t(w))
    assert h.shape == (2, 3, 2, 3)
    g_np = lambda a: central_differences(lambda b: f_np(*b), [a[0], w], 0, 1e-6)
    fd = np.stack([central_differences(lambda a, k=k: float(g_np(a).reshape(-1)[k]), [x], 0, 1e-4)
                   for k in range(6)]).reshape(2, 3, 2, 3)
    np.testing.assert_allclose(h.numpy(), fd, rtol=1e-4, atol=1e-5)


def test_vjp_is_called_again_and_sums_over_outputs():
    x = RNG.standard_normal(4)
    out, fn = vjp(lambda a: (a.exp(), a * 2), _t(x))
    (g,) = fn((_t(np.ones(4)), _t(np.full(4, 3.0))))
    np.testing.assert_allclose(g.numpy(), np.exp(x) + 6)
    (g2,) = fn((_t(np.zeros(4)), _t(np.ones(4))))
    np.testing.assert_allclose(g2.numpy(), np.full(4, 2.0))
    np.testing.assert_allclose(out[0].numpy(), np.exp(x))
    with pytest.raises(RuntimeError, match="same structure"):
        fn(_t(np.ones(4)))


def test_vmap_in_dims_out_dims_and_containers():
    a, b = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 5))
    out = vmap(lambda x, y: x @ y, in_dims=(0, None))(_t(a), _t(b))
    np.testing.assert_allclose(out.numpy(), a @ b)
    out = vmap(lambda x, y: x @ y, in_dims=(1, None), out_dims=1)(_t(a.T.copy()), _t(b))
    np.testing.assert_allclose(out.numpy(), (a @ b).T)
    d = vmap(lambda p: {"s": p["x"] + p["y"], "n": [p["x"].sum()]}, in_dims=({"x": 0, "y": None},))(
        {"x": _t(a), "y": _t(a[0])})
    np.testing.assert_allclose(d["s"].numpy(), a + a[0])
    np.testing.assert_allclose(d["n"][0].numpy(), a.sum(1))
    k = vmap(lambda x, scale=1.0: x * scale)(_t(a), scale=2.0)  # keyword arguments are not mapped
    np.testing.assert_allclose(k.numpy(), 2 * a)


def test_nested_vmap_is_an_outer_product():
    a, b = RNG.standard_normal(3), RNG.standard_normal(4)
    out = vmap(vmap(lambda x, y: x * y, in_dims=(None, 0)), in_dims=(0, None))(_t(a), _t(b))
    np.testing.assert_allclose(out.numpy(), np.outer(a, b))


def test_vmap_errors():
    with pytest.raises(ValueError, match="same size in the mapped dimension"):
        vmap(lambda x, y: x + y)(gg.ones(3), gg.ones(4))
    with pytest.raises(ValueError, match="at least one input must be mapped"):
        vmap(lambda x: x, in_dims=None)(gg.ones(3))
    with pytest.raises(ValueError, match="non-Tensor"):
        vmap(lambda x, n: x * n, in_dims=(0, 0))(gg.ones(3), 2)
    with pytest.raises(ValueError, match="2 entries"):
        vmap(lambda x: x, in_dims=(0, 0))(gg.ones(3))


def test_vmap_randomness():
    with pytest.raises(RuntimeError, match="randomness error mode"):
        vmap(lambda x: x + gg.randn(2))(gg.ones(3, 2))
    gg.manual_seed(0)
    same = vmap(lambda x: x + gg.randn(2), randomness="same")(gg.zeros(3, 2)).numpy()
    assert np.all(same == same[0]) and same[0, 0] != same[0, 1]
    diff = vmap(lambda x: x + gg.randn(2), randomness="different")(gg.zeros(3, 2)).numpy()
    assert not np.allclose(diff[0], diff[1])


def test_per_sample_gradients_are_each_sample_s_own_gradient():
    gg.manual_seed(0)
    model = gg.nn.Sequential(gg.nn.Linear(4, 3), gg.nn.Tanh(), gg.nn.Linear(3, 2)).double()
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, y = _t(RNG.standard_normal((5, 4))), gg.tensor(RNG.integers(0, 2, 5))

    def loss(p, xi, yi):
        return gg.nn.functional.cross_entropy(functional_call(model, p, (xi.unsqueeze(0),)), yi.unsqueeze(0))

    per = vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)
    for i in range(5):
        model.zero_grad()
        loss(dict(model.named_parameters()), x[i], y[i]).backward()
        for k, p in model.named_parameters():
            np.testing.assert_allclose(per[k][i].numpy(), p.grad.numpy(), rtol=1e-12, atol=1e-14)


def test_functional_call_swaps_and_restores():
    gg.manual_seed(0)
    m = gg.nn.Sequential(gg.nn.Linear(3, 2), gg.nn.BatchNorm1d(2)).eval()
    own_w = m[0].weight
    w = gg.zeros(2, 3)
    out = functional_call(m, ({"0.weight": w}, {"1.running_mean": gg.ones(2)}), gg.ones(4, 3))
    np.testing.assert_allclose(out.detach().numpy(), np.tile((m[0].bias.detach().numpy() - 1) / np.sqrt(1 + 1e-5), (4, 1)),
                               rtol=1e-5)
    assert m[0].weight is own_w

    def boom(x):
        raise KeyError("inside")
    m.register_forward_pre_hook(lambda mod, args: boom(args))
    with pytest.raises(KeyError):
        functional_call(m, {"0.weight": w}, gg.ones(4, 3))
    assert m[0].weight is own_w
    with pytest.raises(ValueError, match="multiple dictionaries"):
        functional_call(m, ({"0.weight": w}, {"0.weight": w}), gg.ones(4, 3))


def test_functional_call_strict_and_tied_weights():
    class Tied(gg.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = gg.nn.Linear(2, 2, bias=False)
            self.b = gg.nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(self.a(x))

    m, x, w = Tied(), gg.ones(1, 2), gg.eye(2) * 2
    np.testing.assert_allclose(functional_call(m, {"a.weight": w}, (x,)).numpy(), [[4.0, 4.0]])
    untied = functional_call(m, {"a.weight": w}, (x,), tie_weights=False).detach().numpy()
    np.testing.assert_allclose(untied, (x.detach().numpy() @ w.detach().numpy().T) @ m.a.weight.detach().numpy().T, rtol=1e-6)
    with pytest.raises(ValueError, match="which are tied"):
        functional_call(m, {"a.weight": w, "b.weight": w * 1}, (x,))
    with pytest.raises(RuntimeError, match="Unexpected key\\(s\\): 'c'"):
        functional_call(m, {"a.weight": w, "c": w}, (x,), strict=True)


def test_stack_module_state_for_an_ensemble():
    models = [gg.nn.Linear(3, 2) for _ in range(4)]
    params, buffers = stack_module_state(models)
    assert params["weight"].shape == (4, 2, 3) and buffers == {}
    x = gg.randn(5, 3)
    out = vmap(lambda p, xx: functional_call(models[0], p, (xx,)), in_dims=(0, None))(params, x)
    for i, m in enumerate(models):
        np.testing.assert_allclose(out[i].detach().numpy(), m(x).detach().numpy(), rtol=1e-6)


def test_linearize_gives_jvp_s_products_again_and_again():
    x = _t(RNG.standard_normal(4))
    out, fn = linearize(lambda a: a.tanh() * a, x)
    np.testing.assert_allclose(out.numpy(), np.tanh(x.numpy()) * x.numpy())
    for _ in range(2):
        t = _t(RNG.standard_normal(4))
        np.testing.assert_allclose(fn(t).numpy(), jvp(lambda a: a.tanh() * a, (x,), (t,))[1].numpy(), rtol=1e-12)
    with pytest.raises(RuntimeError, match="structure and shapes"):
        fn(_t(np.ones(3)))


@pytest.mark.parametrize("aux", ["text", 3, None, "list"])
@pytest.mark.parametrize("transform", ["grad", "grad_and_value", "vjp", "jacrev", "jvp"])
def test_an_aux_that_is_not_tensors_is_refused_as_torch(aux, transform):
    torch = pytest.importorskip("torch")
    errors = []
    for lib in (torch, gg):
        x = lib.ones(2)
        value = [lib.ones(1), "text"] if aux == "list" else aux
        f = lambda a: ((a ** 2).sum(), value)
        call = {"grad": lambda: lib.func.grad(f, has_aux=True)(x),
                "grad_and_value": lambda: lib.func.grad_and_value(f, has_aux=True)(x),
                "vjp": lambda: lib.func.vjp(f, x, has_aux=True),
                "jacrev": lambda: lib.func.jacrev(f, has_aux=True)(x),
                "jvp": lambda: lib.func.jvp(f, (x,), (x,), has_aux=True)}[transform]
        with pytest.raises(RuntimeError) as e:
            call()
        errors.append(str(e.value).split("\n")[0])
    assert errors[1] == errors[0]
    tensors = gg.func.grad(lambda a: ((a ** 2).sum(), {"a": [a * 2]}), has_aux=True)(gg.ones(2))[1]
    assert tensors["a"][0].tolist() == [2.0, 2.0]
