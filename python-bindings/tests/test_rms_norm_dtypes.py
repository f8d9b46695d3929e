"""F.rms_norm / nn.RMSNorm dtypes as PyTorch's: the result has the input's dtype whatever the
weight's (its gradient the weight's), and float16/bfloat16 input is normalized in float32, so
squares past float16's range (65504) do not overflow. Expected values are PyTorch's outputs."""
import numpy as np
import pytest

import glassgrad as torch
import glassgrad.nn.functional as F
from glassgrad import nn

ROW = [1200.0, 1500.0, 1800.0, 2100.0]  # squares up to 4.4e6: past float16's range
EXPECTED = {"float16": [0.712890625, 0.89111328125, 1.0693359375, 1.2470703125],
            "bfloat16": [0.7109375, 0.89453125, 1.0703125, 1.2421875],
            "float32": [0.7126966118812561, 0.8908707499504089, 1.0690449476242065, 1.2472190856933594]}


@pytest.mark.parametrize("x_dtype, w_dtype", [("float32", "float64"), ("float32", "float16"), ("bfloat16", "float32"),
                                              ("float16", "float32"), ("float16", "bfloat16"), ("float64", "float16")])
def test_the_result_has_the_inputs_dtype(x_dtype, w_dtype):
    x = torch.tensor([ROW, ROW], dtype=getattr(torch, x_dtype), requires_grad=True)
    w = torch.ones(4, dtype=getattr(torch, w_dtype), requires_grad=True)
    y = F.rms_norm(x, (4,), w, eps=1e-5)
    assert y.dtype == x.dtype
    y.sum().backward()
    assert x.grad.dtype == x.dtype and w.grad.dtype == w.dtype
    expected = EXPECTED.get(x_dtype, EXPECTED["float32"])
    np.testing.assert_allclose(y[1].float().detach().numpy(), expected, rtol=1e-6 if x_dtype == "float64" else 1e-7)


def test_the_layer_keeps_the_inputs_dtype_and_half_input_does_not_overflow():
    m = nn.RMSNorm(4, dtype=torch.float64)
    assert m(torch.ones(2, 4)).dtype == torch.float32
    y = nn.RMSNorm(4)(torch.tensor([ROW], dtype=torch.float16))
    assert y.dtype == torch.float16
    np.testing.assert_array_equal(y.detach().float().numpy()[0], EXPECTED["float16"])
    y = F.rms_norm(torch.tensor([ROW], dtype=torch.bfloat16), [4])  # eps None: bfloat16's machine epsilon
    assert y.dtype == torch.bfloat16
    np.testing.assert_array_equal(y.float().numpy()[0], EXPECTED["bfloat16"])
