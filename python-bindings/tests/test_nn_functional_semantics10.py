"""PyTorch's behaviour where glassgrad's differed: F.softplus with beta=0 (PyTorch's division by
zero: infinities, gradient 1/2), F.gelu's approximate and F.scaled_dot_product_attention's scale
and enable_gqa keyword-only, an uninitialized parameter or buffer of a lazy layer refusing use
(PyTorch's ValueError 'Attempted to use an uninitialized parameter in ...') while its conversions
and size() answer, and the sizes of reshape/view/expand/zeros given as a tensor named as PyTorch's
argument parser names them (docs/porting.md)."""
import math

import pytest

import glassgrad as gg
from glassgrad import nn
import glassgrad.nn.functional as F


# ---- softplus with beta=0 ----

@pytest.mark.parametrize("beta,value", [(0, math.inf), (0.0, math.inf), (-0.0, -math.inf)])
def test_softplus_beta_zero_is_an_infinity_with_gradient_one_half(beta, value):
    x = gg.tensor([1.0, -1.0, 0.0], requires_grad=True)
    y = F.softplus(x, beta=beta)
    assert y.tolist() == [value] * 3
    y.sum().backward()
    assert x.grad.tolist() == [0.5, 0.5, 0.5]


def test_softplus_beta_zero_below_a_negative_threshold_is_the_input():
    x = gg.tensor([1.0, -1.0, 0.0], requires_grad=True)
    y = F.softplus(x, 0, -1)
    assert y.tolist() == [1.0, -1.0, 0.0]
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]


def test_softplus_module_beta_zero_builds_and_runs():
    layer = nn.Softplus(beta=0)
    assert repr(layer) == "Softplus(beta=0, threshold=20.0)"
    assert layer(gg.ones(2)).tolist() == [math.inf, math.inf]


# ---- keyword-only arguments ----

def test_gelu_approximate_is_keyword_only():
    with pytest.raises(TypeError, match="takes 1 positional argument but 2 were given"):
        F.gelu(gg.ones(2), "tanh")
    assert F.gelu(gg.ones(1), approximate="tanh").item() == pytest.approx(0.841192, rel=1e-5)
    assert nn.GELU("tanh")(gg.ones(1)).item() == pytest.approx(0.841192, rel=1e-5)


def test_sdpa_scale_is_keyword_only():
    q = gg.ones(1, 2, 3, 4)
    with pytest.raises(TypeError, match="positional argument"):
        F.scaled_dot_product_attention(q, q, q, None, 0.0, False, 1.0)
    assert F.scaled_dot_product_attention(q, q, q, None, 0.0, False, scale=1.0).shape == (1, 2, 3, 4)


# ---- uninitialized parameters and buffers ----

def weight():
    return nn.LazyLinear(3).weight


@pytest.mark.parametrize("use", [
    lambda p: p.numel(), lambda p: p.sum(), lambda p: p.dim(), lambda p: p.detach(), lambda p: p.clone(),
    lambda p: p.tolist(), lambda p: p + 1, lambda p: 1 + p, lambda p: -p, lambda p: p == p, lambda p: p[0],
    lambda p: len(p), lambda p: bool(p), lambda p: list(p), lambda p: f"{p}", lambda p: p.zero_(),
    lambda p: p.uniform_(), lambda p: p.view(-1), lambda p: p.requires_grad_(False), lambda p: p.data_ptr(),
])
def test_using_an_uninitialized_parameter_is_pytorch_s_value_error(use):
    with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter in (?s:.*)fix: "):
        use(weight())


def test_counting_a_lazy_model_s_parameters_before_its_forward_refuses():
    model = nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.Linear(4, 2))
    with pytest.raises(ValueError, match="numel"):
        sum(p.numel() for p in model.parameters())
    model(gg.ones(5, 3))
    assert sum(p.numel() for p in model.parameters()) == 3 * 4 + 4 + 4 * 2 + 2


def test_an_uninitialized_buffer_names_its_class():
    with pytest.raises(ValueError, match="UninitializedBuffer"):
        nn.LazyBatchNorm1d().running_mean.sum()


def test_what_an_uninitialized_parameter_still_answers():
    p = weight()
    assert tuple(p.size()) == (0,) and p.dtype == gg.float32 and p.device.type == "cpu"
    assert p.requires_grad and p.grad is None and p.is_leaf and p.is_floating_point() and not p.is_complex()
    assert p.get_device() == -1 and isinstance(hash(p), int) and repr(p) == "<UninitializedParameter>"
    assert p.to(gg.float64).dtype == gg.float64 and p.float() is p and p.T.shape == (0,)
    with pytest.raises(RuntimeError, match="Can't access the shape"):
        _ = p.shape


def test_a_lazy_model_builds_its_optimizer_converts_and_copies_before_its_forward():
    import copy
    model = nn.Sequential(nn.LazyLinear(4), nn.LazyBatchNorm1d())
    opt = gg.optim.SGD(model.parameters(), lr=0.1)
    model.double()
    clone = copy.deepcopy(model)
    assert list(model.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean",
                                        "1.running_var", "1.num_batches_tracked"]
    out = model(gg.ones(2, 3, dtype=gg.float64))
    out.sum().backward()
    opt.step()
    assert model[0].weight.numel() == 12 and clone(gg.ones(2, 5, dtype=gg.float64)).shape == (2, 4)


# ---- sizes given as a tensor ----

@pytest.mark.parametrize("call,text", [
    (lambda x: x.reshape(gg.tensor([2, 2])), "reshape\\(\\): argument 'shape' \\(position 1\\) must be tuple of ints, "
                                              "not Tensor"),
    (lambda x: x.reshape("a"), "reshape\\(\\): argument 'shape' \\(position 1\\) must be tuple of ints, not str"),
    (lambda x: x.reshape((2.0, 2)), "argument 'shape' \\(position 1\\) must be tuple of ints, but found element of "
                                     "type float at pos 0"),
    (lambda x: x.expand(gg.tensor([2, 4])), "expand\\(\\): argument 'size' \\(position 1\\) must be tuple of ints, "
                                             "not Tensor"),
    (lambda x: x.reshape(2, 2).permute(gg.tensor([1, 0])), "permute\\(\\): argument 'dims' \\(position 1\\)"),
    (lambda x: gg.zeros(gg.tensor([2, 2])), "zeros\\(\\): argument 'size' \\(position 1\\) must be tuple of ints, "
                                             "not Tensor"),
    (lambda x: x.new_zeros(gg.tensor([2, 2])), "new_zeros\\(\\): argument 'size' \\(position 1\\)"),
])
def test_sizes_of_the_wrong_type_are_named_as_pytorch_names_them(call, text):
    with pytest.raises(TypeError, match=text) as info:
        call(gg.zeros(4))
    assert "fix: " in str(info.value)


def test_one_element_tensors_are_sizes():
    x = gg.zeros(4)
    assert x.reshape(gg.tensor(4)).shape == (4,) and x.reshape(gg.tensor(2), gg.tensor(2)).shape == (2, 2)


def test_torch_agrees():
    torch = pytest.importorskip("torch")
    x = torch.tensor([1.0, -1.0], requires_grad=True)
    y = torch.nn.functional.softplus(x, beta=0)
    y.sum().backward()
    assert y.tolist() == [math.inf, math.inf] and x.grad.tolist() == [0.5, 0.5]
    with pytest.raises(TypeError, match="takes 1 positional argument but 2 were given"):
        torch.nn.functional.gelu(torch.ones(2), "tanh")
    w = torch.nn.LazyLinear(3).weight
    with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter in"):
        w.numel()
    assert tuple(w.size()) == (0,) and w.float() is w
    with pytest.raises(TypeError, match="reshape\\(\\): argument 'shape' \\(position 1\\) must be tuple of ints, "
                                        "not Tensor"):
        torch.zeros(4).reshape(torch.tensor([2, 2]))
