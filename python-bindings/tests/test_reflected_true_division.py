"""number / x is PyTorch's x.reciprocal() * number, rounded twice: in bfloat16, float16 and
float32 it may differ in the last place from torch.div(number, x), which rounds once; the graph is
MulBackward0 of ReciprocalBackward0 (docs/porting.md, "Python numbers beside tensors")."""
import numpy as np

import glassgrad as gg


def test_bfloat16_rounds_the_reciprocal_first():
    x = gg.tensor([-3.0, 0.3, 1.7], dtype=gg.bfloat16)
    # PyTorch's values: 1 / -3 is -0.333984375 in bfloat16, times 2.5 is -0.8359375 (one rounding: -0.83203125)
    assert (2.5 / x).tolist() == [-0.8359375, 8.3125, 1.46875]
    assert gg.div(2.5, x).tolist()[0] == -0.83203125  # torch.div itself rounds once


def test_float16_and_float32_match_numpys_two_roundings():
    values = np.random.default_rng(0).uniform(0.1, 20.0, 4000)
    for np_dtype, dtype in ((np.float16, gg.float16), (np.float32, gg.float32)):
        v = values.astype(np_dtype)
        expected = (np_dtype(1) / v) * np_dtype(2.5)
        assert (expected != np_dtype(2.5) / v).any()  # the two orders differ somewhere
        np.testing.assert_array_equal((2.5 / gg.tensor(v, dtype=dtype)).numpy(), expected)


def test_graph_and_gradient():
    x = gg.tensor([2.0, 4.0], requires_grad=True)
    y = 2.5 / x
    assert type(y.grad_fn).__name__ == "MulBackward0"
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "ReciprocalBackward0"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [-0.625, -0.15625])


def test_zeros_infinities_and_integers():
    assert (2.5 / gg.tensor([0.0, -0.0])).tolist() == [float("inf"), float("-inf")]
    assert np.isnan((0.0 / gg.tensor([0.0])).numpy()).all()
    r = 3 / gg.tensor([2, 0])
    assert r.dtype == gg.float32 and r.tolist() == [1.5, float("inf")]
