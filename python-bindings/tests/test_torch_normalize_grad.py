"""transforms.Normalize on a tensor that requires grad keeps the graph, as torchvision's does:
the FGSM tutorial normalizes its perturbed image before the model. Values and the input's
gradient against torch's ((x - mean) / std written out, as torchvision computes it); images
without gradients still come back as before. Skipped when torch is not importable."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad.vision import transforms

torch = pytest.importorskip("torch")

MEAN, STD = (0.1307, 0.5, 0.2), (0.3081, 0.25, 0.5)


@pytest.mark.parametrize("shape", [(3, 4, 5), (2, 3, 4, 5)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normalize_passes_gradients_as_torchvision(shape, dtype):
    x = np.random.default_rng(0).random(shape).astype(dtype)
    a, b = gg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ya = transforms.Normalize(MEAN, STD)(a * 2)
    yb = ((b * 2) - torch.tensor(MEAN, dtype=b.dtype).view(-1, 1, 1)) / torch.tensor(STD, dtype=b.dtype).view(-1, 1, 1)
    assert isinstance(ya, gg.Tensor) and ya.requires_grad and ya.dtype == dtype
    tol = 1e-6 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=tol, atol=tol)
    w = np.random.default_rng(1).standard_normal(shape)
    (ya * gg.tensor(w, dtype=dtype)).sum().backward()
    (yb * torch.tensor(w, dtype=b.dtype)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=tol, atol=tol)


def test_the_fgsm_tutorial_step():
    x = np.random.default_rng(2).random((1, 1, 6, 6)).astype(np.float32)
    data = gg.tensor(x, requires_grad=True)
    normalized = transforms.Normalize((0.1307,), (0.3081,))(data)
    normalized.square().sum().backward()
    expected = 2 * (x - 0.1307) / 0.3081 / 0.3081
    np.testing.assert_allclose(data.grad.numpy(), expected, rtol=1e-5)


def test_normalize_without_gradients_is_unchanged_and_checks_its_input():
    x = np.random.default_rng(3).random((3, 4, 4)).astype(np.float32)
    got = transforms.Normalize(MEAN, STD)(gg.tensor(x))
    np.testing.assert_allclose(got.numpy(), (x - np.array(MEAN, np.float32)[:, None, None]) /
                               np.array(STD, np.float32)[:, None, None], rtol=1e-6)
    with pytest.raises(ValueError, match="std evaluated to zero"):
        transforms.Normalize((0.5,), (0.0,))(gg.ones(1, 2, 2, requires_grad=True))
    with pytest.raises(ValueError, match="tensor image of size"):
        transforms.Normalize((0.5,), (0.5,))(gg.ones(2, 2, requires_grad=True))
