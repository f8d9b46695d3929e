"""Number arguments of layers and functions as PyTorch takes them: a bool where a float is
declared is 0 or 1 (PyTorch's argument parser converts it; its layers compare it), printed as
given; dropout probabilities refused in PyTorch's words ('dropout probability has to be between
0 and 1, but got ...'), a Dropout layer keeping nan until its forward; RNN dropout refusing bools;
PoissonNLLLoss(full=True)'s target gradient. Expected values from PyTorch 2.x outputs."""
import math

import numpy as np
import pytest

import glassgrad as torch
import glassgrad.nn.functional as F
from glassgrad import nn

NAN = float("nan")


def test_layers_take_a_bool_eps_and_print_it_as_given():
    assert repr(nn.LayerNorm(4, eps=True)) == "LayerNorm((4,), eps=True, elementwise_affine=True, bias=True)"
    assert repr(nn.BatchNorm1d(4, eps=True, momentum=True)) == \
        "BatchNorm1d(4, eps=True, momentum=True, affine=True, bias=True, track_running_stats=True)"
    assert repr(nn.GroupNorm(2, 4, eps=True)) == "GroupNorm(2, 4, eps=True, affine=True, bias=True)"
    assert repr(nn.RMSNorm(4, eps=True)) == "RMSNorm((4,), eps=True, elementwise_affine=True)"
    assert repr(nn.Softplus(beta=True)) == "Softplus(beta=True, threshold=20.0)"
    assert repr(nn.Embedding(4, 3, max_norm=True)) == "Embedding(4, 3, max_norm=True)"
    assert repr(nn.LocalResponseNorm(2, alpha=True)) == "LocalResponseNorm(2, alpha=True, beta=0.75, k=1.0)"
    # eps 1 on a constant row: (x - mean) / sqrt(0 + 1) = 0
    np.testing.assert_array_equal(nn.LayerNorm(4, eps=True)(torch.ones(2, 4)).detach().numpy(), np.zeros((2, 4)))


def test_functions_take_bools_as_numbers():
    np.testing.assert_array_equal(F.layer_norm(torch.ones(2, 4), (4,), eps=True).numpy(), np.zeros((2, 4)))
    np.testing.assert_allclose(F.softplus(torch.tensor([-1.0, 1.0]), True).numpy(), [0.3132617, 1.3132616], rtol=1e-6)
    assert F.smooth_l1_loss(torch.tensor([0.0, 3.0]), torch.zeros(2), beta=True).item() == 1.25
    assert F.cross_entropy(torch.tensor([[0.0, 3.0]]), torch.tensor([0]), label_smoothing=True).item() == \
        pytest.approx(1.5485873222351074, rel=1e-6)
    assert F.hinge_embedding_loss(torch.ones(2, 3), torch.ones(2, 3), margin=True).item() == 1.0
    assert F.cosine_embedding_loss(torch.ones(2, 3), torch.ones(2, 3), torch.ones(2), margin=True).item() == 0.0
    np.testing.assert_array_equal(F.lp_pool1d(torch.ones(1, 1, 4), True, 2).numpy(), [[[2.0, 2.0]]])
    np.testing.assert_array_equal(F.interpolate(torch.ones(1, 1, 2), scale_factor=True).numpy(), [[[1.0, 1.0]]])
    assert nn.CrossEntropyLoss(label_smoothing=True).label_smoothing == 1.0
    assert nn.TripletMarginLoss(margin=True, eps=True).margin == 1.0


@pytest.mark.parametrize("p", [NAN, math.inf, -0.5, 1.5])
@pytest.mark.parametrize("fn", [F.dropout, F.alpha_dropout, F.feature_alpha_dropout, F.dropout1d, F.dropout2d,
                                F.dropout3d])
def test_functional_dropout_refuses_probabilities_outside_0_1_in_pytorchs_words(fn, p):
    with pytest.raises(ValueError, match=r"dropout probability has to be between 0 and 1, but got"):
        fn(torch.ones(2, 3, 4, 4, 4) if fn is F.dropout3d else torch.ones(2, 3, 4), p)
    with pytest.raises(RuntimeError, match=r"dropout probability has to be between 0 and 1"):
        fn(torch.ones(2, 3, 4, 4, 4) if fn is F.dropout3d else torch.ones(2, 3, 4), p, training=False)


@pytest.mark.parametrize("layer", [nn.Dropout, nn.Dropout1d, nn.Dropout2d, nn.AlphaDropout, nn.FeatureAlphaDropout])
def test_dropout_layers_keep_nan_until_the_forward_and_refuse_out_of_range(layer):
    m = layer(p=NAN)  # PyTorch's constructors compare p < 0 or p > 1, which nan passes
    assert math.isnan(m.p) and repr(m) == f"{layer.__name__}(p=nan, inplace=False)"
    with pytest.raises(ValueError, match=r"dropout probability has to be between 0 and 1, but got nan"):
        m(torch.ones(2, 3, 4))
    for p in (math.inf, -0.1, 1.01):
        with pytest.raises(ValueError, match=rf"dropout probability has to be between 0 and 1, but got {p}"):
            layer(p)
    assert repr(layer(True)) == f"{layer.__name__}(p=True, inplace=False)"


@pytest.mark.parametrize("dropout", [True, False, NAN, math.inf, -0.5, 1.5])
def test_rnn_dropout_is_a_number_in_0_1_not_a_bool(dropout):
    with pytest.raises(ValueError, match=r"dropout should be a number in range \[0, 1\] representing the probability"):
        nn.LSTM(3, 4, num_layers=2, dropout=dropout)
    assert repr(nn.GRU(3, 4, num_layers=2, dropout=1)) == "GRU(3, 4, num_layers=2, dropout=1.0)"


def test_poisson_nll_full_target_gradient_is_pytorchs():
    x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    target = torch.tensor([0.0, 1.0, 3.0], requires_grad=True)
    loss = F.poisson_nll_loss(x, target, log_input=True, full=True, reduction="none")
    np.testing.assert_allclose(loss.detach().numpy(), [1.6487212, 1.7182817, 3.1531377], rtol=1e-6)
    loss.sum().backward()
    # -input, plus Stirling's term's derivative log t + 0.5 / t where t > 1; at t = 0 the masked
    # term's derivative is 0 * (-inf + inf): nan, as PyTorch's
    g = target.grad.numpy()
    assert math.isnan(g[0])
    np.testing.assert_allclose(g[1:], [-1.0, -2.0 + math.log(3.0) + 0.5 / 3.0], rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), [math.exp(0.5), math.exp(1.0) - 1.0, math.exp(2.0) - 3.0], rtol=1e-6)


def test_glu_halves_an_empty_dim_and_multilabel_margin_targets_out_of_range_are_runtime_errors():
    x = torch.zeros(0, 4, requires_grad=True)
    y = F.glu(x, 0)  # dim 0 of size 0 halves into two empty pieces
    assert tuple(y.shape) == (0, 4)
    y.sum().backward()
    assert tuple(x.grad.shape) == (0, 4)
    with pytest.raises(RuntimeError, match=r"argument #2 'target' is out of range"):
        F.multilabel_margin_loss(torch.zeros(1, 4), torch.tensor([[3, 0, 4, 1]]))


@pytest.mark.parametrize("layer", [nn.RNN, nn.LSTM, nn.GRU])
@pytest.mark.parametrize("dtype, state_dtype", [(torch.float32, torch.float16), (torch.float64, torch.float32),
                                                (torch.float32, torch.bfloat16)])
def test_recurrent_initial_state_of_another_dtype_is_refused(layer, dtype, state_dtype):
    m = layer(3, 4).to(dtype)
    h = torch.zeros(1, 2, 4, dtype=state_dtype)
    state = (h, torch.zeros(1, 2, 4, dtype=dtype)) if layer is nn.LSTM else h
    with pytest.raises(RuntimeError, match="must have the same dtype"):
        m(torch.ones(5, 2, 3, dtype=dtype), state)
    y, _ = layer(3, 4).to(state_dtype)(torch.ones(5, 2, 3, dtype=state_dtype),
                                       (h, h) if layer is nn.LSTM else h)  # matching dtypes run
    assert y.dtype == state_dtype


@pytest.mark.parametrize("build", [lambda dt: nn.LSTM(3, 4, num_layers=2, proj_size=2, dtype=dt),
                                   lambda dt: nn.GRU(3, 4, bidirectional=True, dtype=dt),
                                   lambda dt: nn.RNNCell(3, 4, dtype=dt), lambda dt: nn.LSTMCell(3, 4, dtype=dt)])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_recurrent_layers_take_half_dtypes_as_pytorch(build, dtype):
    m = build(dtype)
    assert all(p.dtype == dtype for p in m.parameters())
    bound = 1 / 2.0  # 1 / sqrt(hidden_size)
    assert all(float(p.detach().float().abs().max()) <= bound for p in m.parameters())
    m.reset_parameters()
    assert all(p.dtype == dtype for p in m.parameters())
    x = torch.ones(5, 2, 3, dtype=dtype) if not isinstance(m, (nn.RNNCell, nn.LSTMCell)) else torch.ones(2, 3, dtype=dtype)
    out = m(x)
    y = out[0] if isinstance(out, tuple) else out
    assert y.dtype == dtype
    with pytest.raises(ValueError, match="a floating type"):
        build(torch.int64)
