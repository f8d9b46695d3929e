"""F.interpolate / nn.Upsample on (N, C, L) input against PyTorch: values and input gradients for
nearest, nearest-exact and linear (both align_corners), up and down. Skipped when torch is not
importable (CI never installs it; tools/torch_differential.sh runs it)."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

X = np.random.default_rng(2).standard_normal((2, 3, 7))
CASES = [dict(scale_factor=2), dict(size=11), dict(scale_factor=2.5, mode="nearest"), dict(size=12, mode="nearest-exact"),
         dict(scale_factor=1.7, mode="linear"), dict(size=(5,), mode="linear", align_corners=True),
         dict(scale_factor=0.5, mode="linear"), dict(size=16, mode="linear", align_corners=False)]


@pytest.mark.parametrize("kw", CASES, ids=[str(sorted(c.items())) for c in CASES])
def test_interpolate_1d_matches_torch(kw):
    x, tx = gg.tensor(X, requires_grad=True), torch.tensor(X, requires_grad=True)
    y, ty = gg.nn.functional.interpolate(x, **kw), torch.nn.functional.interpolate(tx, **kw)
    assert tuple(y.shape) == tuple(ty.shape)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-14)
    w = np.random.default_rng(3).standard_normal(tuple(ty.shape))
    (y * gg.tensor(w)).sum().backward()
    (ty * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-14)
