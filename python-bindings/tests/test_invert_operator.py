"""~x of a floating tensor is PyTorch's operator TypeError, "~ (operator.invert) is only implemented
on integer and Boolean-type tensors", while torch.bitwise_not(x) of one stays its NotImplementedError
naming the kernel; ~ of bools and integers is unchanged. The expected text and values are PyTorch's."""
import numpy as np
import pytest

import glassgrad as gg


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_invert_of_a_floating_tensor_is_torch_s_type_error(dtype):
    x = gg.ones(2, dtype=getattr(gg, dtype))
    with pytest.raises(TypeError, match=r"^~ \(operator\.invert\) is only implemented on integer and Boolean-type "
                                        r"tensors\n") as info:
        ~x
    assert "fix:" in str(info.value)


def test_bitwise_not_keeps_its_kernel_error():
    with pytest.raises(NotImplementedError, match="\"bitwise_not_cpu\" not implemented for 'Float'"):
        gg.bitwise_not(gg.ones(2))


def test_invert_of_bools_and_integers_is_unchanged():
    assert (~gg.tensor([True, False])).tolist() == [False, True]
    np.testing.assert_array_equal((~gg.tensor([0, 5, -1])).numpy(), [-1, -6, 0])
    assert (~gg.tensor([1], dtype=gg.uint8)).tolist() == [254]


def test_against_torch():
    torch = pytest.importorskip("torch")
    for mod in (torch, gg):
        with pytest.raises(TypeError, match=r"^~ \(operator\.invert\) is only implemented on integer and Boolean"):
            ~mod.ones(2)
