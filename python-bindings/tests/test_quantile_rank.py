"""torch.quantile / nanquantile pick their sorted positions from the rank q * (n - 1) computed in
float64 from q's value in the input's dtype, as PyTorch does: for float32 input 0.1 is
0.100000001490116..., so 0.1 of 6 values has rank just above 0.5 and 'nearest' takes position 1
(float64 input: exactly 0.5, rounded half to even to 0). An empty input is PyTorch's
RuntimeError. Expected values are PyTorch 2's."""
import numpy as np
import pytest

import glassgrad as gg


@pytest.mark.parametrize("n, q, want", [(6, 0.1, 1.0), (6, 0.7, 3.0), (11, 0.05, 1.0), (11, 0.35, 3.0),
                                        (2, 0.5, 0.0), (4, 0.5, 2.0), (6, 0.5, 2.0)])
def test_nearest_rank_of_float32_input(n, q, want):
    x = gg.arange(float(n))
    assert gg.quantile(x, q, interpolation="nearest").item() == want
    assert gg.nanquantile(x, q, interpolation="nearest").item() == want


def test_float64_input_rounds_the_exact_half_to_even():
    assert gg.quantile(gg.arange(6.0, dtype=gg.float64), 0.1, interpolation="nearest").item() == 0.0


def test_nan_rows_and_tensor_q():
    x = gg.tensor([[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [0.0, float("nan"), 2.0, 3.0, 4.0, 5.0]])
    out = gg.quantile(x, gg.tensor([0.1, 0.5]), dim=1, interpolation="nearest")
    assert out[:, 0].tolist() == [1.0, 2.0] and np.isnan(out[:, 1].numpy()).all()
    assert gg.nanquantile(x, 0.1, dim=1, interpolation="lower").tolist() == [0.0, 0.0]


def test_empty_input_is_refused():
    with pytest.raises(RuntimeError, match=r"quantile\(\) input tensor must be non-empty"):
        gg.quantile(gg.tensor([]), 0.5)
    with pytest.raises(RuntimeError, match=r"nanquantile\(\) input tensor must be non-empty"):
        gg.nanquantile(gg.zeros(2, 0), 0.5, dim=1)


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_matches_pytorch(interpolation):
    torch = pytest.importorskip("torch")
    qs = [i / 100 for i in range(101)]
    for n in range(1, 12):
        x = np.arange(float(n), dtype=np.float32)
        want = torch.quantile(torch.tensor(x), torch.tensor(qs), interpolation=interpolation).numpy()
        got = gg.quantile(gg.tensor(x), gg.tensor(qs), interpolation=interpolation).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
