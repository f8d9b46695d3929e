"""log_softmax keeps the small values of a column's largest entries: the CPU kernel computes
(x - max) - log(s), as PyTorch and glassgrad's CUDA kernel do, not x - (max + log(s)) with the
shift rounded to the tensor's dtype first, which lost them to cancellation (log_softmax([0.5, 10])[1]
came out -7.4387e-05 for the exact -7.4849e-05; with logits near 1000 every entry was off by up to
half a unit in the last place of 1000, 3e-5)."""
import numpy as np
import pytest

import glassgrad as gg


def _reference(x: np.ndarray, axis: int) -> np.ndarray:
    x = x.astype(np.float64)
    m = x.max(axis=axis, keepdims=True)
    return (x - m) - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def test_the_largest_entry_keeps_its_small_value():
    y = gg.log_softmax(gg.tensor([0.5, 10.0]), 0).tolist()
    assert y[0] == pytest.approx(-9.50007438659668, rel=1e-7)
    assert y[1] == pytest.approx(-7.484902e-05, rel=1e-5)   # -log1p(exp(-9.5))


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("scale", [20.0, 1000.0])
def test_large_logits_match_a_float64_reference(dim, scale):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((40, 12)) * scale).astype(np.float32)
    got = gg.log_softmax(gg.tensor(x), dim).numpy().astype(np.float64)
    np.testing.assert_allclose(got, _reference(x, dim), rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(gg.tensor(x).log_softmax(dim).numpy(), got.astype(np.float32))


def test_float64_columns():
    x = np.array([[0.5, 10.0, -3.0], [700.0, 700.0 + 1e-9, -700.0]])
    got = gg.log_softmax(gg.tensor(x), 1).numpy()
    np.testing.assert_allclose(got, _reference(x, 1), rtol=1e-13, atol=1e-15)


def test_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    for scale in (15.0, 1000.0):
        x = (rng.standard_normal((16, 9)) * scale).astype(np.float32)
        for dim in (0, 1):
            expected = torch.log_softmax(torch.tensor(x), dim).numpy()
            np.testing.assert_allclose(gg.log_softmax(gg.tensor(x), dim).numpy(), expected, rtol=1.3e-6, atol=1e-5)
