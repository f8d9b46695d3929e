"""torch.einsum's sublist form, einsum(op0, sublist0, op1, sublist1, ..., [out_sublist]), as
PyTorch documents it: each sublist holds ints in [0, 52) naming the dims (0-25 read as A-Z and
26-51 as a-z, so the implicit output puts 0-25 first) and Ellipsis; the output sublist optional."""
import numpy as np
import pytest

import glassgrad as gg

A = np.arange(6.0).reshape(2, 3)
B = np.arange(12.0).reshape(4, 3) / 7


def test_matches_the_string_form():
    a, b = gg.tensor(A), gg.tensor(B)
    np.testing.assert_allclose(gg.einsum(a, [0, 1], b, [2, 1], [0, 2]).numpy(), A @ B.T, rtol=1e-12)
    np.testing.assert_allclose(gg.einsum(a, [0, 1], b, [2, 1]).numpy(), A @ B.T, rtol=1e-12)  # implicit: 0, 2
    np.testing.assert_allclose(gg.einsum(a, [Ellipsis, 1], [1]).numpy(), A.sum(0), rtol=1e-12)
    np.testing.assert_allclose(gg.einsum(a, [0, 1], [1, 0]).numpy(), A.T, rtol=1e-12)


def test_implicit_output_orders_0_to_25_before_26_to_51():
    a, b = gg.tensor(A), gg.tensor(B)
    assert gg.einsum(a, [30, 1], b, [2, 1]).shape == (4, 2)  # 2 is 'C', 30 is 'e'
    assert gg.einsum(a, [0, 27], b, [40, 27]).shape == (2, 4)


def test_out_of_range_subscript_raises_value_error():
    with pytest.raises(ValueError, match="not within the valid range"):
        gg.einsum(gg.tensor(A), [60, 1])


def test_as_torch():
    torch = pytest.importorskip("torch")
    for call in (lambda lib, a, b: lib.einsum(a, [0, 1], b, [2, 1], [2, 0]),
                 lambda lib, a, b: lib.einsum(a, [30, 1], b, [2, 1]),
                 lambda lib, a, b: lib.einsum(a, [Ellipsis, 1], b, [Ellipsis, 1], [Ellipsis])):
        want = call(torch, torch.tensor(A), torch.tensor(B[:2]))
        got = call(gg, gg.tensor(A), gg.tensor(B[:2]))
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
