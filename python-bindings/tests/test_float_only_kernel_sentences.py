"""Float-only activations and softmax given an integer or bool tensor raise PyTorch's
NotImplementedError sentence, named after its CPU kernel, on the first line ('"elu_cpu" not
implemented for 'Long''), glassgrad's cause (the runtime's rule) and fix after it."""
import pytest

import glassgrad as gg

F = gg.nn.functional
LONG, BOOL = gg.tensor([[-1, 0, 2]]), gg.tensor([[True, False, True]])

CASES = [
    ("F.elu(x)", "elu_cpu"), ("F.selu(x)", "elu_cpu"), ("F.leaky_relu(x)", "leaky_relu_cpu"),
    ("F.rrelu(x)", "leaky_relu_cpu"), ("F.gelu(x)", "GeluKernelImpl"), ("F.gelu(x, approximate='tanh')", "GeluKernelImpl"),
    ("F.silu(x)", "silu_cpu"), ("F.mish(x)", "mish_cpu"), ("F.hardswish(x)", "hardswish_cpu"),
    ("F.hardsigmoid(x)", "hardsigmoid_cpu"), ("F.softmax(x, 1)", "softmax_lastdim_kernel_impl"),
    ("F.softmax(x, 0)", "softmax_kernel_impl"), ("F.log_softmax(x, -1)", "log_softmax_lastdim_kernel_impl"),
    ("F.log_softmax(x, 0)", "log_softmax_kernel_impl"), ("gg.nn.ELU()(x)", "elu_cpu"),
]


@pytest.mark.parametrize("call, kernel", CASES)
@pytest.mark.parametrize("x, name", [(LONG, "Long"), (BOOL, "Bool")])
def test_first_line_names_pytorchs_kernel(call, kernel, x, name):
    with pytest.raises(NotImplementedError) as e:
        eval(call, {"F": F, "gg": gg, "x": x})
    lines = str(e.value).splitlines()
    assert lines[0] == f'"{kernel}" not implemented for \'{name}\''
    assert len(lines) > 1 and "fix:" in str(e.value)  # glassgrad's cause and fix follow
    assert isinstance(e.value, gg.DTypeError)  # still glassgrad's dtype error


def test_hardtanh_refuses_bool_only():
    with pytest.raises(NotImplementedError, match="^Bool inputs not supported for hardtanh"):
        F.relu6(BOOL)
    assert F.hardtanh(gg.tensor([-3, 0, 3])).tolist() == [-1, 0, 1]


def test_floats_are_unchanged():
    assert F.elu(gg.tensor([0.0])).tolist() == [0.0] and F.softmax(gg.tensor([1.0, 1.0]), 0).tolist() == [0.5, 0.5]


@pytest.mark.parametrize("call, kernel", CASES[:-1])
def test_pytorch_says_the_same(call, kernel):
    torch = pytest.importorskip("torch")
    with pytest.raises(NotImplementedError) as e:
        eval(call, {"F": torch.nn.functional, "x": torch.tensor([[-1, 0, 2]])})
    assert str(e.value).splitlines()[0] == f'"{kernel}" not implemented for \'Long\''
