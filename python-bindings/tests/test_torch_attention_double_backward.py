"""Double backward (autograd.grad(create_graph=True), then backward) through
F.scaled_dot_product_attention (plain, causal, an additive and a boolean mask, broadcast batch
axes, a value width of its own) and a transformer block's attention: float64 central differences
of the first gradient, and torch's results. Skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg
from double_backward_check import check
from torch_compare import assert_parameter_grads_match

torch = pytest.importorskip("torch")

_RNG = np.random.default_rng(9)
_MASK = _RNG.standard_normal((3, 4)) * 0.5
_BOOL = np.array([[True, False, True, True], [True, True, False, True], [False, True, True, True]])


def _attention(L, q, k, v, **kwargs):
    """F.scaled_dot_product_attention; torch's on its math backend, which has a double backward
    (its CPU flash kernel raises "derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward
    is not implemented" for some of these inputs)."""
    if L is torch:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        with sdpa_kernel(SDPBackend.MATH):
            return torch.nn.functional.scaled_dot_product_attention(q, k, v, **kwargs)
    return L.nn.functional.scaled_dot_product_attention(q, k, v, **kwargs)


def _sdpa(**kwargs):
    return lambda L, q, k, v: _attention(L, q, k, v, **kwargs)


# (name, q, k, v shapes, f(lib, q, k, v))
_CASES = [
    ("plain", (2, 3, 2), (2, 4, 2), (2, 4, 3), _sdpa()),
    ("causal", (1, 4, 3), (1, 4, 3), (1, 4, 2), _sdpa(is_causal=True)),
    ("scale", (2, 3, 2), (2, 4, 2), (2, 4, 2), _sdpa(scale=0.3)),
    ("additive mask", (1, 3, 2), (1, 4, 2), (1, 4, 2),
     lambda L, q, k, v: _attention(L, q, k, v, attn_mask=L.tensor(_MASK))),
    ("boolean mask", (1, 3, 2), (1, 4, 2), (1, 4, 2),
     lambda L, q, k, v: _attention(L, q, k, v, attn_mask=L.tensor(_BOOL))),
    ("heads, key and value shared", (2, 2, 3, 2), (1, 1, 4, 2), (1, 1, 4, 2), _sdpa()),
]


@pytest.mark.parametrize("name,qs,ks,vs,f", _CASES, ids=[c[0] for c in _CASES])
def test_double_backward_matches_finite_differences_and_torch(name, qs, ks, vs, f):
    rng = np.random.default_rng(4)
    q0, k0, v0 = rng.standard_normal(qs), rng.standard_normal(ks), rng.standard_normal(vs)
    check(f, [q0, k0, v0], wrt=(0, 1, 2))


def test_first_gradient_in_the_value_then_differentiated():
    """d/d(q, k, v) of a penalty on the gradient in v (the first gradient taken in v, not q)."""
    rng = np.random.default_rng(5)
    q0, k0, v0 = rng.standard_normal((2, 3, 2)), rng.standard_normal((2, 4, 2)), rng.standard_normal((2, 4, 2))
    check(lambda L, v, q, k: _attention(L, q, k, v),
          [v0, q0, k0], wrt=(0, 1, 2))


def test_transformer_block_gradient_penalty_matches_torch():
    """nn.TransformerEncoderLayer (eval: no dropout; its attention, LayerNorms, ReLU MLP): the
    parameters' gradients of a gradient penalty on d(out)/dx, float64 (torch on its math backend:
    its CPU flash kernel has no double backward)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    rng = np.random.default_rng(6)
    x0 = rng.standard_normal((2, 5, 8))
    res = []
    for L in (gg, torch):
        L.manual_seed(0)
        layer = L.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True).double().eval()
        with L.no_grad():
            for i, p in enumerate(layer.parameters()):
                p.copy_(L.tensor(np.random.default_rng(i).standard_normal(tuple(p.shape)) * 0.3))
        x = L.tensor(x0, requires_grad=True)
        with sdpa_kernel(SDPBackend.MATH):
            out = layer(x)
            (g,) = L.autograd.grad((out * L.tensor(np.linspace(-1, 1, 8))).sum(), x, create_graph=True)
            ((g.reshape(2, -1).norm(2, dim=1) - 1) ** 2).mean().backward()
        res.append([None if p.grad is None else p.grad.detach().numpy() for p in layer.parameters()])
    assert sum(a is not None for a in res[0]) >= 10
    assert_parameter_grads_match(*res, rtol=1e-7, atol=1e-10)


def test_dropout_inside_attention_has_no_second_derivative_and_says_so():
    q = gg.tensor(np.random.default_rng(1).standard_normal((1, 3, 2)), requires_grad=True)
    (g,) = gg.autograd.grad(gg.nn.functional.scaled_dot_product_attention(q, q, q, dropout_p=0.5).sum(), q,
                            create_graph=True)
    with pytest.raises(NotImplementedError, match="ScaledDotProductAttentionBackward(?s:.*)dropout_p"):
        g.pow(2).sum().backward()


def test_third_derivative_matches_torch():
    """The rule is made of ops with rules of their own (a Softmax, SoftmaxBackward, products): the
    gradient of a double backward's result, against torch's math backend."""
    x0 = np.random.default_rng(8).standard_normal((1, 3, 2))
    res = []
    for L in (gg, torch):
        x = L.tensor(x0, requires_grad=True)
        (g1,) = L.autograd.grad(_attention(L, x, x * 0.5, x, is_causal=True).pow(2).sum(), x, create_graph=True)
        (g2,) = L.autograd.grad(g1.pow(2).sum(), x, create_graph=True)
        (g2 * L.tensor(np.linspace(0.5, 1.5, 6).reshape(1, 3, 2))).sum().backward()
        res.append(x.grad.detach().numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-8, atol=1e-10)
