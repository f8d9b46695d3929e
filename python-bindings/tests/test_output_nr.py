"""Tensor.output_nr as PyTorch numbers a node's outputs: 0 for leaves, tensors without gradient
and single-output ops; the index among the outputs that require grad for split, chunk, unbind
(unsafe_ spellings too) and the named-tuple results one PyTorch node computes (aminmax,
var_mean, linalg.qr/svd/eigh/lu, ...); 0 again once an in-place op gives the tensor another
grad_fn. Expected numbers are PyTorch's (compared with it in the guarded test). Also
linalg.svd(full_matrices=True) differentiates (PyTorch ignores the gradients of the extra
columns of U and rows of Vh, as its docs say), checked by finite differences."""
import numpy as np
import pytest

import glassgrad as gg

A = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])

CASES = {
    "leaf": (lambda m, x: [x], [0]),
    "mul": (lambda m, x: [x * 2], [0]),
    "no_grad_split": (lambda m, x: list(x.detach().split(1)), [0, 0, 0]),
    "split": (lambda m, x: list((x * 2).split(1)), [0, 1, 2]),
    "split_sizes": (lambda m, x: list((x * 2).split([1, 2])), [0, 1]),
    "chunk": (lambda m, x: list((x * 2).chunk(3, 1)), [0, 1, 2]),
    "unbind": (lambda m, x: list((x * 2).unbind(1)), [0, 1, 2]),
    "unsafe_split": (lambda m, x: list((x * 2).unsafe_split(1)), [0, 1, 2]),
    "view_of_an_output": (lambda m, x: [(x * 2).unbind()[2][0]], [0]),
    "max": (lambda m, x: list(x.max(0)), [0, 0]),
    "sort": (lambda m, x: list(x.sort(0)), [0, 0]),
    "aminmax": (lambda m, x: list(m.aminmax(x, dim=0)), [0, 1]),
    "var_mean": (lambda m, x: list(m.var_mean(x, 0)), [0, 1]),
    "std_mean": (lambda m, x: list(m.std_mean(x)), [0, 1]),
    "qr": (lambda m, x: list(m.linalg.qr(x)), [0, 1]),
    "svd": (lambda m, x: list(m.linalg.svd(x)), [0, 1, 2]),
    "svd_reduced": (lambda m, x: list(m.linalg.svd(x, full_matrices=False)), [0, 1, 2]),
    "old_svd": (lambda m, x: list(m.svd(x)), [0, 1, 0]),
    "svd_lowrank": (lambda m, x: list(m.svd_lowrank(x, 2)), [0, 1, 0]),
    "eigh": (lambda m, x: list(m.linalg.eigh(x)), [0, 1]),
    "slogdet": (lambda m, x: list(m.linalg.slogdet(x)), [0, 1]),
    "lu": (lambda m, x: list(m.linalg.lu(x)), [0, 0, 1]),
    "in_place_after": (lambda m, x: [t.add_(1) for t in m.aminmax(x * 1, dim=0)], [0, 0]),
}


@pytest.mark.parametrize("name", CASES)
def test_output_nr(name):
    fn, want = CASES[name]
    x = gg.tensor(A, requires_grad=True)
    assert [t.output_nr for t in fn(gg, x)] == want


@pytest.mark.parametrize("name", CASES)
def test_output_nr_matches_torch(name):
    torch = pytest.importorskip("torch")
    fn, want = CASES[name]
    assert [t.output_nr for t in fn(torch, torch.tensor(A, requires_grad=True))] == want


def _sign_free_loss(lib, x, k):
    """A function of the SVD that no choice of signs or completion changes."""
    U, S, Vh = lib.linalg.svd(x)
    return (S * S).sum() + (U[..., :, :k] * S.unsqueeze(-2) @ Vh[..., :k, :]).pow(2).sum() + \
        (U[..., :, :1] @ Vh[..., :1, :]).sum()


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 5)])
def test_full_svd_gradient_by_finite_differences(shape):
    a = np.random.default_rng(1).standard_normal(shape)
    k = min(shape[-2:])
    x = gg.tensor(a, requires_grad=True)
    _sign_free_loss(gg, x, k).backward()

    def f(v):
        return _sign_free_loss(gg, gg.tensor(v), k).item()

    eps, num = 1e-6, np.zeros_like(a)
    for i in np.ndindex(a.shape):
        d = np.zeros_like(a)
        d[i] = eps
        num[i] = (f(a + d) - f(a - d)) / (2 * eps)
    np.testing.assert_allclose(x.grad.numpy(), num, rtol=1e-5, atol=1e-6)


def test_full_svd_ignores_the_extra_columns():
    x = gg.tensor(np.random.default_rng(2).standard_normal((4, 2)), requires_grad=True)
    U, S, Vh = gg.linalg.svd(x)
    assert tuple(U.shape) == (4, 4)
    (U[:, 2:].sum() * 0 + U[:, 2:].abs().sum()).backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((4, 2)))
