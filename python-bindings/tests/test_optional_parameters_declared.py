"""Layers built without a bias or an affine transform (bias=False, affine=False,
elementwise_affine=False) declare the missing parameters as None, as PyTorch's layers call
register_parameter(name, None): `_parameters` lists the names, parameters(), named_parameters()
and state_dict() leave them out, a Parameter assigned later becomes that parameter, and any other
tensor assigned to the name is PyTorch's TypeError."""
import numpy as np
import pytest

import glassgrad as gg

_CASES = {
    "Linear": (lambda nn: nn.Linear(2, 3, bias=False), ["weight", "bias"]),
    "Bilinear": (lambda nn: nn.Bilinear(2, 2, 3, bias=False), ["weight", "bias"]),
    "Conv1d": (lambda nn: nn.Conv1d(1, 2, 3, bias=False), ["weight", "bias"]),
    "Conv2d": (lambda nn: nn.Conv2d(1, 2, 3, bias=False), ["weight", "bias"]),
    "Conv3d": (lambda nn: nn.Conv3d(1, 2, 3, bias=False), ["weight", "bias"]),
    "ConvTranspose2d": (lambda nn: nn.ConvTranspose2d(1, 2, 3, bias=False), ["weight", "bias"]),
    "LayerNorm": (lambda nn: nn.LayerNorm(3, elementwise_affine=False), ["weight", "bias"]),
    "LayerNorm-bias": (lambda nn: nn.LayerNorm(3, bias=False), ["weight", "bias"]),
    "GroupNorm": (lambda nn: nn.GroupNorm(1, 2, affine=False), ["weight", "bias"]),
    "BatchNorm1d": (lambda nn: nn.BatchNorm1d(3, affine=False), ["weight", "bias"]),
    "InstanceNorm2d": (lambda nn: nn.InstanceNorm2d(3), ["weight", "bias"]),
    "RMSNorm": (lambda nn: nn.RMSNorm(3, elementwise_affine=False), ["weight"]),
    "LazyLinear": (lambda nn: nn.LazyLinear(3, bias=False), ["weight", "bias"]),
    "MultiheadAttention-kdim": (lambda nn: nn.MultiheadAttention(4, 2, kdim=3, vdim=3),
                                ["q_proj_weight", "k_proj_weight", "v_proj_weight", "in_proj_weight", "in_proj_bias"]),
}


@pytest.mark.parametrize("name", sorted(_CASES))
def test_the_missing_parameters_are_declared_as_none(name):
    make, names = _CASES[name]
    m = make(gg.nn)
    assert list(m._parameters) == names
    real = [k for k, v in m._parameters.items() if v is not None]
    assert [k for k, _ in m.named_parameters(recurse=False)] == real
    assert [k for k in m.state_dict() if "." not in k and k in m._parameters] == real


def test_a_parameter_assigned_later_is_registered_and_a_tensor_is_refused():
    lin = gg.nn.Linear(2, 3, bias=False)
    assert lin.bias is None and "bias" not in lin.__dict__
    with pytest.raises(TypeError, match="cannot assign 'Tensor' as parameter 'bias'"):
        lin.bias = gg.zeros(3)
    lin.bias = gg.nn.Parameter(gg.ones(3))
    assert list(lin.state_dict()) == ["weight", "bias"]
    out = lin(gg.zeros(1, 2))
    np.testing.assert_array_equal(out.detach().numpy(), np.ones((1, 3), np.float32))


def test_loading_keeps_the_declared_names_and_calls_still_work():
    conv = gg.nn.Conv2d(1, 2, 3, bias=False)
    r = conv.load_state_dict({"weight": gg.ones(2, 1, 3, 3)}, strict=True)
    assert repr(r) == "<All keys matched successfully>" and conv.bias is None
    np.testing.assert_allclose(conv(gg.ones(1, 1, 3, 3)).detach().numpy(), np.full((1, 2, 1, 1), 9.0))
    norm = gg.nn.LayerNorm(3, elementwise_affine=False)
    x = np.array([[1.0, 2.0, 4.0]], np.float32)
    expected = (x - x.mean()) / np.sqrt(x.var() + 1e-5)
    np.testing.assert_allclose(norm(gg.tensor(x)).numpy(), expected, rtol=1e-5)


@pytest.mark.parametrize("name", sorted(_CASES))
def test_as_torch(name):
    torch = pytest.importorskip("torch")
    make, _ = _CASES[name]
    ours, theirs = make(gg.nn), make(torch.nn)
    assert [(n, list(m._parameters), list(m._buffers)) for n, m in ours.named_modules()] == \
        [(n, list(m._parameters), list(m._buffers)) for n, m in theirs.named_modules()]
