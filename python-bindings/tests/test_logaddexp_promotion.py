"""torch.logaddexp and logaddexp2 promote their operands first and then go floating, as
PyTorch's: an int64 tensor beside a 0-d float64 tensor gives float64 (it gave float32, the int
tensor having been made float32 before promotion)."""
import numpy as np
import pytest

import glassgrad as gg


@pytest.mark.parametrize("name, ref", [("logaddexp", np.logaddexp), ("logaddexp2", np.logaddexp2)])
def test_dtypes_and_values(name, ref):
    fn = getattr(gg, name)
    i, f0 = gg.tensor([1, 2]), gg.tensor(1.0, dtype=gg.float64)
    assert fn(i, f0).dtype == gg.float64 and fn(f0, i).dtype == gg.float64
    assert fn(i, gg.tensor(1.0)).dtype == gg.float32
    assert fn(gg.tensor([1.0], dtype=gg.float16), i).dtype == gg.float16
    np.testing.assert_allclose(fn(i, f0).numpy(), ref(np.array([1.0, 2.0]), 1.0), rtol=1e-15)


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
def test_gradient_in_float64_matches_finite_differences(name):
    a = gg.tensor([0.3, -1.2, 2.0], dtype=gg.float64, requires_grad=True)
    b = gg.tensor(0.7, dtype=gg.float64, requires_grad=True)
    assert gg.autograd.gradcheck(lambda x, y: getattr(gg, name)(x, y), (a, b))


def test_against_torch():
    torch = pytest.importorskip("torch")
    for name in ("logaddexp", "logaddexp2"):
        for a, b in [([1, 2], np.float64(1.0)), ([1.0, 2.0], [3, 4]), (np.float64(2.0), [1, 2])]:
            want = getattr(torch, name)(torch.tensor(a), torch.tensor(b))
            got = getattr(gg, name)(gg.tensor(a), gg.tensor(b))
            assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
