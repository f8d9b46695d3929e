"""F.rms_norm and nn.RMSNorm against PyTorch: values and gradients (input and weight) for eps None
(the dtype's machine epsilon) and a given eps, over one and two trailing axes; printed form,
state_dict and the shape error. Skipped when torch is not importable."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("shape,eps", [((4,), None), ((4,), 1e-3), ((3, 4), None), ([4], 0.5)])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_rms_norm_matches_torch(shape, eps, dtype):
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(dtype)
    dims = tuple(shape)
    w = np.random.default_rng(1).standard_normal(dims).astype(dtype)
    a, wa = gg.tensor(x, requires_grad=True), gg.tensor(w, requires_grad=True)
    b, wb = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    ya, yb = F.rms_norm(a, shape, wa, eps), torch.nn.functional.rms_norm(b, shape, wb, eps)
    tol = 1e-12 if dtype == "float64" else 1e-5
    np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=tol, atol=tol)
    ya.pow(3).sum().backward()
    yb.pow(3).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=tol * 10, atol=tol * 10)
    np.testing.assert_allclose(wa.grad.numpy(), wb.grad.numpy(), rtol=tol * 10, atol=tol * 10)


def test_rms_norm_module_prints_and_holds_torchs_state():
    for args, kwargs in (((4,), {}), (([2, 3],), {"eps": 1e-5, "elementwise_affine": False})):
        ours, theirs = nn.RMSNorm(*args, **kwargs), torch.nn.RMSNorm(*args, **kwargs)
        assert repr(ours) == repr(theirs)
        assert list(ours.state_dict()) == list(theirs.state_dict())
    x = np.random.default_rng(2).standard_normal((5, 4)).astype(np.float32)
    np.testing.assert_allclose(nn.RMSNorm(4)(gg.tensor(x)).detach().numpy(), torch.nn.RMSNorm(4)(torch.tensor(x)).detach().numpy(),
                               rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match=r"expected input with shape \[\*4\]"):
        nn.RMSNorm(4)(gg.randn(2, 3))
    with pytest.raises(TypeError):
        torch.nn.functional.rms_norm(torch.tensor(x), 4)
    with pytest.raises(TypeError, match="normalized_shape"):
        F.rms_norm(gg.tensor(x), 4)
