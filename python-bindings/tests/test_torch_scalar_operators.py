"""x + 3, 3 + x, x - 3, 3 - x, x * 0.5, 0.5 * x on tensors of every kind against PyTorch: the
result's dtype and values (the operators record a tensor-with-number node directly where the
number keeps the tensor's dtype; bool tensors, float numbers with integer tensors and NumPy
numbers take the general path)."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

OPS = {"x + v": lambda x, v: x + v, "v + x": lambda x, v: v + x, "x - v": lambda x, v: x - v,
       "v - x": lambda x, v: v - x, "x * v": lambda x, v: x * v, "v * x": lambda x, v: v * x}


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("value", [3, -2, 300, 0.5, -1.25, True, np.int64(4), np.float32(0.25)])
@pytest.mark.parametrize("shape", [(), (3,)])
def test_a_tensor_with_a_number_as_torch(dtype, value, shape):
    base = np.array([1, 0, 2][:shape[0]] if shape else 1)
    for name, op in OPS.items():
        outcome = []
        for fw in (torch, gg):
            x = fw.tensor(base).to(getattr(fw, dtype))
            try:
                r = op(x, value)
                outcome.append((str(r.dtype).split(".")[-1], tuple(r.shape), r.tolist()))
            except (TypeError, RuntimeError):
                outcome.append("error")
        assert outcome[1] == outcome[0], f"{dtype} {shape} {name} with {value!r}"


def test_gradients_flow_through_the_number_operators():
    x = gg.tensor([1.0, 2.0], requires_grad=True)
    ((x + 1) * 3 - 2 + 0.5 * x).sum().backward()
    assert x.grad.tolist() == [3.5, 3.5]
