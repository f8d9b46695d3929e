"""nn.LayerNorm and nn.Dropout (composed from existing ops; used by the attention example):
forward against NumPy, LayerNorm's gradients against float64 finite differences, dropout's
mask statistics, scaling, repeatability and eval-mode identity, and their error messages."""
import numpy as np
import pytest

import glassgrad as gg


def layer_norm_ref(x, w, b, eps):
    mean = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)  # biased, as PyTorch
    return (x - mean) / np.sqrt(var + eps) * w + b


def test_layer_norm_matches_numpy_over_the_last_axis(rng):
    ln = gg.LayerNorm(5, eps=1e-3)
    ln.weight = gg.Parameter(rng.standard_normal(5).astype(np.float32))
    ln.bias = gg.Parameter(rng.standard_normal(5).astype(np.float32))
    x = rng.standard_normal((2, 3, 5)).astype(np.float32) * 4 + 1
    got = ln(gg.tensor(x)).detach().numpy()
    want = layer_norm_ref(x, ln.weight.detach().numpy(), ln.bias.detach().numpy(), 1e-3)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    plain = gg.LayerNorm(5, elementwise_affine=False)
    assert list(plain.parameters()) == []
    np.testing.assert_allclose(plain(gg.tensor(x)).numpy(), layer_norm_ref(x, 1.0, 0.0, 1e-5), rtol=1e-5, atol=1e-5)


def test_layer_norm_gradients_match_finite_differences(rng):
    ln = gg.LayerNorm(4).double()
    w0 = rng.standard_normal(4)
    b0 = rng.standard_normal(4)
    ln.load_state_dict({"weight": w0, "bias": b0})
    x0 = rng.standard_normal((3, 4))
    g = rng.standard_normal((3, 4))

    x = gg.tensor(x0, requires_grad=True)
    (ln(x) * gg.tensor(g)).sum().backward()
    analytic = {"x": x.grad.numpy(), "weight": ln.weight.grad.numpy(), "bias": ln.bias.grad.numpy()}

    def loss(xv, wv, bv):
        return float((layer_norm_ref(xv, wv, bv, 1e-5) * g).sum())

    arrays = {"x": x0, "weight": w0, "bias": b0}
    eps = 1e-6
    for name, arr in arrays.items():
        numeric = np.zeros_like(arr)
        for idx in np.ndindex(arr.shape):
            up = {k: v.copy() for k, v in arrays.items()}
            down = {k: v.copy() for k, v in arrays.items()}
            up[name][idx] += eps
            down[name][idx] -= eps
            numeric[idx] = (loss(up["x"], up["weight"], up["bias"]) - loss(down["x"], down["weight"], down["bias"])) / (2 * eps)
        np.testing.assert_allclose(analytic[name], numeric, rtol=1e-6, atol=1e-7, err_msg=name)


def test_layer_norm_on_the_wrong_feature_size_names_the_layer_and_the_fix():
    class M(gg.Module):
        def __init__(self):
            super().__init__()
            self.norm = gg.LayerNorm(8)

        def forward(self, x):
            return self.norm(x)

    with pytest.raises(gg.ShapeError) as e:
        M()(gg.tensor(np.zeros((2, 6), np.float32)))
    msg = str(e.value)
    assert "LayerNorm 'norm'" in msg and "[2, 6]" in msg and "fix: build the layer as LayerNorm(6)" in msg
    with pytest.raises(gg.ShapeError, match=r"normalizes the last 2 dim\(s\) \[4, 8\]"):
        gg.LayerNorm((4, 8))(gg.tensor(np.zeros((2, 8, 4), np.float32)))


def test_layer_norm_over_several_trailing_dims_normalizes_them_together():
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5))
    y = gg.LayerNorm((4, 5), dtype=gg.float64)(gg.tensor(x)).detach().numpy()
    flat = x.reshape(2, 3, 20)
    want = (flat - flat.mean(-1, keepdims=True)) / np.sqrt(flat.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(y, want.reshape(x.shape), rtol=1e-12, atol=1e-12)


def test_dropout_zeroes_a_fraction_p_and_scales_the_rest_by_one_over_one_minus_p():
    gg.manual_seed(0)
    drop = gg.Dropout(0.25)
    x = np.ones((200, 100), np.float32)
    y = drop(gg.tensor(x)).numpy()
    zero = y == 0
    assert abs(zero.mean() - 0.25) < 0.02
    np.testing.assert_allclose(y[~zero], 1 / 0.75, rtol=1e-6)


def test_dropout_is_repeatable_under_manual_seed_and_the_identity_in_eval_mode(rng):
    x = gg.tensor(rng.standard_normal((4, 16)).astype(np.float32))
    gg.manual_seed(7)
    a = gg.Dropout(0.5)(x).numpy()
    gg.manual_seed(7)
    b = gg.Dropout(0.5)(x).numpy()
    np.testing.assert_array_equal(a, b)
    drop = gg.Dropout(0.5).eval()
    assert drop(x) is x
    assert gg.Dropout(0.0)(x) is x


def test_dropout_gradient_is_the_mask(rng):
    gg.manual_seed(1)
    x = gg.tensor(rng.standard_normal((8, 8)).astype(np.float32), requires_grad=True)
    y = gg.Dropout(0.5)(x)
    y.sum().backward()
    kept = y.detach().numpy() != 0
    np.testing.assert_allclose(x.grad.numpy(), np.where(kept, 2.0, 0.0))


@pytest.mark.parametrize("p", [-0.1, 1.5])
def test_dropout_refuses_probabilities_outside_0_1(p):
    with pytest.raises(gg.InvalidArgumentError, match=r"dropout probability has to be between 0 and 1"):
        gg.Dropout(p)


def test_dropout_with_p_1_drops_everything_as_pytorch_allows():
    assert not gg.Dropout(1.0)(gg.tensor(np.ones((4, 4), np.float32))).numpy().any()
