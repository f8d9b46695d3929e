"""torch.linalg.householder_product (and torch.orgqr, Tensor.orgqr) against torch on geqrf's
reflectors: values and the gradients with respect to the reflectors and tau, single matrices and
batches, k < n reflectors, odd sizes; its shape and dtype errors where torch raises. linalg.eig and
eigvals refuse (glassgrad holds no complex dtype) naming eigh and NumPy. Skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

CASES = [((5, 3), 3), ((5, 3), 2), ((4, 4), 3), ((4, 4), 4), ((2, 7, 4), 4), ((3, 1, 5, 5), 2), ((3, 3), 0)]


def _reflectors(shape, k, seed):
    A = torch.tensor(np.random.default_rng(seed).standard_normal(shape))
    R, tau = torch.geqrf(A)
    return R.numpy(), tau[..., :k].numpy().copy()


@pytest.mark.parametrize("shape,k", CASES)
def test_values_and_gradients_are_torchs(shape, k):
    R, tau = _reflectors(shape, k, seed=len(shape) * 10 + k)
    seed = np.random.default_rng(1).standard_normal(shape[:-2] + (shape[-2], shape[-1]))
    results = []
    for lib in (gg, torch):
        a = lib.tensor(R, requires_grad=True)
        t = lib.tensor(tau, requires_grad=True)
        q = lib.linalg.householder_product(a, t)
        if k == 0:  # no reflector: the identity's columns (glassgrad's result needs no gradient then)
            results.append((q.detach().numpy(),))
            continue
        (q * lib.tensor(seed)).sum().backward()
        results.append((q.detach().numpy(), a.grad.numpy(), t.grad.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def test_the_columns_are_orthonormal_and_orgqr_is_the_same_function():
    R, tau = _reflectors((6, 4), 4, seed=3)
    q = gg.linalg.householder_product(gg.tensor(R), gg.tensor(tau))
    np.testing.assert_allclose((q.mT @ q).numpy(), np.eye(4), atol=1e-12)
    np.testing.assert_array_equal(gg.orgqr(gg.tensor(R), gg.tensor(tau)).numpy(), q.numpy())
    np.testing.assert_array_equal(gg.tensor(R).orgqr(gg.tensor(tau)).numpy(), q.numpy())


def test_float32_is_close_to_torchs():
    R, tau = _reflectors((5, 4), 3, seed=4)
    ours = gg.linalg.householder_product(gg.tensor(R.astype(np.float32)), gg.tensor(tau.astype(np.float32)))
    theirs = torch.linalg.householder_product(torch.tensor(R, dtype=torch.float32), torch.tensor(tau, dtype=torch.float32))
    assert ours.dtype == gg.float32
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)


BAD = {
    "1-d input": (np.ones(3), np.ones(1)),
    "wide input": (np.ones((2, 3)), np.ones(2)),
    "more taus than columns": (np.ones((4, 2)), np.ones(3)),
    "tau without batch": (np.ones((2, 4, 3)), np.ones(3)),
    "tau's batch differs": (np.ones((2, 4, 3)), np.ones((3, 3))),
    "tau's dtype differs": (np.ones((4, 3)), np.ones(3, np.float32)),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_arguments_raise_where_torch_raises(case):
    A, tau = BAD[case]
    with pytest.raises(RuntimeError):
        torch.linalg.householder_product(torch.tensor(A), torch.tensor(tau))
    with pytest.raises(RuntimeError, match="householder_product(?s:.*)fix: "):
        gg.linalg.householder_product(gg.tensor(A), gg.tensor(tau))


@pytest.mark.parametrize("fn", ["eig", "eigvals"])
def test_eig_and_eigvals_refuse_naming_eigh(fn):
    A = np.array([[0.0, 1.0], [-1.0, 0.0]])  # eigenvalues +-i: complex, as torch returns them
    theirs = getattr(torch.linalg, fn)(torch.tensor(A))
    assert (theirs[0] if fn == "eig" else theirs).dtype == torch.complex128
    with pytest.raises(gg.UnsupportedError, match=f"linalg.{fn}(?s:.*)no complex dtype(?s:.*)eigh"):
        getattr(gg.linalg, fn)(gg.tensor(A))
    with pytest.raises(RuntimeError, match="square"):
        getattr(gg.linalg, fn)(gg.ones(2, 3))
