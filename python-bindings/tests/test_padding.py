"""F.pad's four modes, the padding layers and Conv2d(padding_mode=...) as PyTorch defines them:
values against NumPy's np.pad (always) and against torch (values and gradients, negative amounts
included, when PyTorch is installed), and the inputs PyTorch refuses refused with a fix."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F

NUMPY_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}

# (input shape, pad, mode): every mode on 1, 2 and 3 padded dims, batched and not, odd sizes.
CASES = [
    ((2, 3, 5), (2, 1), "reflect"),
    ((3, 5), (0, 4), "reflect"),
    ((2, 3, 4, 5), (1, 2, 3, 0), "reflect"),
    ((3, 4, 5), (4, 4, 3, 3), "reflect"),
    ((1, 2, 3, 4, 5), (1, 1, 2, 0, 2, 1), "reflect"),
    ((2, 3, 5), (3, 6), "replicate"),
    ((2, 3, 4, 5), (2, 0, 1, 3), "replicate"),
    ((2, 2, 3, 4, 5), (1, 2, 1, 0, 3, 1), "replicate"),
    ((2, 3, 5), (5, 2), "circular"),
    ((2, 3, 4, 5), (1, 3, 4, 2), "circular"),
    ((3, 3, 4, 5), (1, 0, 2, 1, 1, 2), "circular"),
    ((2, 3, 5), (1, 2), "constant"),
    ((2, 3, 4, 5), (0, 1, 2, 3, 1, 1, 2, 0), "constant"),
    ((7,), (3, 0), "constant"),
]
NEGATIVE = [  # crops, alone or with padding on the other side (PyTorch's order for each mode)
    ((1, 2, 5), (-1, 2), "reflect"), ((1, 2, 5), (3, -2), "reflect"), ((1, 2, 5), (-2, 3), "reflect"),
    ((1, 2, 5), (-6, 2), "reflect"), ((1, 2, 5), (-4, 4), "reflect"),
    ((1, 2, 5), (-1, 2), "replicate"), ((1, 2, 5), (3, -2), "replicate"), ((1, 2, 5), (-6, 2), "replicate"),
    ((1, 2, 5), (-1, 2), "circular"), ((1, 2, 5), (2, -1), "circular"), ((2, 3, 4, 5), (-1, 2, 3, 1), "circular"),
    ((2, 3, 5), (-2, -3), "constant"), ((2, 3, 4, 5), (-1, 2, 3, -2), "constant"),
]


def _ids(cases):
    return [f"{m}-{list(s)}-{list(p)}" for s, p, m in cases]


@pytest.mark.parametrize("shape,pad,mode", CASES, ids=_ids(CASES))
def test_pad_matches_numpy(shape, pad, mode):
    x = np.random.default_rng(0).standard_normal(shape)
    widths = [(0, 0)] * len(shape)
    for k in range(len(pad) // 2):
        widths[len(shape) - 1 - k] = (pad[2 * k], pad[2 * k + 1])
    kwargs = {"constant_values": 1.5} if mode == "constant" else {}
    got = F.pad(gg.tensor(x), pad, mode, value=1.5 if mode == "constant" else None).numpy()
    np.testing.assert_array_equal(got, np.pad(x, widths, NUMPY_MODE[mode], **kwargs))


@pytest.mark.parametrize("shape,pad,mode", CASES + NEGATIVE, ids=_ids(CASES + NEGATIVE))
def test_pad_matches_torch_with_its_gradient(torch, shape, pad, mode):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape)
    value = 0.5 if mode == "constant" else None
    tx = torch.tensor(x, requires_grad=True)
    ty = torch.nn.functional.pad(tx, pad, mode, value=value)
    u = rng.standard_normal(tuple(ty.shape))
    (ty * torch.tensor(u)).sum().backward()
    gx = gg.tensor(x, requires_grad=True)
    gy = F.pad(gx, pad, mode, value=value)
    (gy * gg.tensor(u)).sum().backward()
    np.testing.assert_array_equal(gy.detach().numpy(), ty.detach().numpy())
    np.testing.assert_allclose(gx.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape,pad,mode,error,match", [
    ((2, 3, 5), (1, 1, 1), "constant", gg.InvalidArgumentError, "divisible by 2"),
    ((2, 3), (1, 1, 1, 1, 1, 1), "constant", gg.InvalidArgumentError, "two times the input dimension"),
    ((2, 3, 5), (5, 1), "reflect", gg.InvalidArgumentError, "less than the corresponding input dimension"),
    ((2, 3, 5), (6, 0), "circular", gg.InvalidArgumentError, "wrap around more than once"),
    ((2, 3, 5), (-3, -3), "constant", gg.InvalidArgumentError, "length must be non-negative"),
    ((5,), (1, 1), "reflect", NotImplementedError, "Padding size 2 is not supported for 1D input tensor."),
    ((2, 3, 4, 5), (1, 1), "replicate", NotImplementedError, "not supported for 4D input"),
    ((2, 3, 5), (1, 1), "wrap", NotImplementedError, "Unrecognised padding mode wrap"),
])
def test_pad_refuses_what_pytorch_refuses(torch, shape, pad, mode, error, match):
    x = np.zeros(shape)
    with pytest.raises(error, match=match):
        F.pad(gg.tensor(x), pad, mode)
    with pytest.raises((RuntimeError, NotImplementedError, ValueError)):
        torch.nn.functional.pad(torch.tensor(x), pad, mode)


def test_pad_value_is_for_constant_mode_only_and_amounts_are_ints():
    x = gg.tensor(np.zeros((1, 2, 3)))
    with pytest.raises(gg.InvalidArgumentError, match="doesn't take in value"):
        F.pad(x, (1, 1), "reflect", value=1.0)
    F.pad(x, (1, 1), "reflect", value=0.0)  # PyTorch accepts a zero value
    with pytest.raises(TypeError, match=r"pad\[1\] must be an int"):
        F.pad(x, (1, 2.5))


@pytest.mark.parametrize("layer,args,shape", [
    ("ReflectionPad1d", (2,), (2, 3, 5)), ("ReflectionPad2d", ((1, 2, 0, 3),), (2, 3, 4, 5)),
    ("ReflectionPad3d", (1,), (1, 2, 3, 4, 5)), ("ReplicationPad1d", ((3, 1),), (3, 5)),
    ("ReplicationPad2d", (2,), (3, 4, 5)), ("ReplicationPad3d", ((1, 0, 2, 1, 0, 1),), (1, 2, 3, 4, 5)),
    ("CircularPad1d", (2,), (2, 3, 5)), ("CircularPad2d", ((1, 2, 3, 0),), (2, 3, 4, 5)),
    ("CircularPad3d", (1,), (1, 2, 3, 4, 5)), ("ZeroPad1d", ((1, 2),), (2, 3, 5)), ("ZeroPad2d", (2,), (2, 3, 4, 5)),
    ("ZeroPad3d", ((1, 0, 0, 1, 2, 0),), (1, 2, 3, 4, 5)), ("ConstantPad1d", (2, 3.5), (2, 3, 5)),
    ("ConstantPad2d", ((1, 0, 2, 1), -1.0), (2, 3, 4, 5)), ("ConstantPad3d", (1, 0.5), (1, 2, 3, 4, 5)),
])
def test_padding_layers_match_torch_and_print_as_torch(torch, layer, args, shape):
    x = np.random.default_rng(2).standard_normal(shape)
    mine, theirs = getattr(gg.nn, layer)(*args), getattr(torch.nn, layer)(*args)
    np.testing.assert_array_equal(mine(gg.tensor(x)).numpy(), theirs(torch.tensor(x)).numpy())
    assert repr(mine) == repr(theirs)
    assert isinstance(mine, gg.nn.ConstantPad2d) == isinstance(theirs, torch.nn.ConstantPad2d)


def test_padding_layers_refuse_a_padding_of_the_wrong_length():
    with pytest.raises(gg.InvalidArgumentError, match=r"ReflectionPad2d\(\(1, 2\)\): padding must be an int or a "
                                                      r"tuple of 4 ints"):
        gg.nn.ReflectionPad2d((1, 2))


@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("kwargs", [dict(padding=1), dict(padding=(2, 1), stride=2), dict(padding="same", dilation=2),
                                    dict(padding=(1, 2), groups=3)])
def test_conv2d_padding_mode_matches_torch(torch, mode, kwargs):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 7, 6))
    mine = gg.nn.Conv2d(3, 6, 3, padding_mode=mode, **kwargs).double()
    theirs = torch.nn.Conv2d(3, 6, 3, padding_mode=mode, **kwargs).double()
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in mine.state_dict().items()})
    tx, gx = torch.tensor(x, requires_grad=True), gg.tensor(x, requires_grad=True)
    ty, gy = theirs(tx), mine(gx)
    u = rng.standard_normal(tuple(ty.shape))
    (ty * torch.tensor(u)).sum().backward()
    (gy * gg.tensor(u)).sum().backward()
    np.testing.assert_allclose(gy.detach().numpy(), ty.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gx.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(mine.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-10, atol=1e-12)
    assert (f"padding_mode={mode}" in repr(mine)) == (mode != "zeros")


def test_conv2d_refuses_an_unknown_padding_mode():
    with pytest.raises(gg.InvalidArgumentError, match="padding_mode must be one of 'zeros', 'reflect'"):
        gg.nn.Conv2d(3, 4, 3, padding_mode="mirror")


def test_constant_value_is_any_float_a_bool_or_a_one_element_tensor_as_pytorchs():
    # PyTorch takes value as a float: inf and nan pad as themselves (attention masks padded with
    # -inf), a bool pads a bool tensor (nlp_course's vocab.py: F.pad(mask, (1, 0, 0, 0), value=True)),
    # an int input gets the value cast (2.7 -> 2)
    np.testing.assert_array_equal(F.pad(gg.zeros(2), (1, 0), value=float("-inf")).numpy(), [-np.inf, 0, 0])
    assert np.isnan(F.pad(gg.zeros(2), (0, 1), value=float("nan")).numpy()[2])
    mask = gg.tensor([[True, False], [False, False]])
    padded = F.pad(mask, (1, 0, 0, 0), value=True)
    assert padded.dtype == gg.bool and padded.tolist() == [[True, True, False], [True, False, False]]
    assert F.pad(mask, (0, 1), value=False).tolist() == [[True, False, False], [False, False, False]]
    assert F.pad(gg.tensor([1, 2]), (1, 0), value=2.7).tolist() == [2, 1, 2]
    assert F.pad(gg.tensor([1.0, 2.0]), (1, 1), value=True).tolist() == [1.0, 1.0, 2.0, 1.0]
    assert F.pad(gg.zeros(2), (1, 0), value=gg.tensor(3.0)).tolist() == [3.0, 0.0, 0.0]
    x = gg.zeros(2, requires_grad=True)
    F.pad(x, (1, 1), value=float("-inf")).exp().sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0])
    with pytest.raises(TypeError, match="pad: value must be a number"):
        F.pad(gg.zeros(2), (1, 0), value="a")
