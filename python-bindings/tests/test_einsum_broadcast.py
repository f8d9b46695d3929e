"""torch.einsum's subscript sizes: a dim of size 1 broadcasts against the same letter's size in
another operand (PyTorch's documented rule), sizes that are neither equal nor 1 are refused, and a
letter repeated within one operand needs equal sizes."""
import numpy as np
import pytest

import glassgrad as gg


def test_size_one_broadcasts():
    assert gg.einsum("i,i", gg.ones(2), gg.ones(1)).item() == 2.0
    assert gg.einsum("ij,j->i", gg.ones(2, 3), gg.tensor([2.0])).tolist() == [6.0, 6.0]
    got = gg.einsum("ij,kj->ik", gg.tensor([[1.0], [2.0]]), gg.ones(4, 3))
    assert got.shape == (2, 4) and got.tolist() == [[3.0] * 4, [6.0] * 4]


def test_gradient_of_a_broadcast_operand_sums_over_the_stretched_dim():
    a = gg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = gg.tensor([2.0], requires_grad=True)
    gg.einsum("i,i->", a, b).backward()
    assert a.grad.tolist() == [2.0, 2.0, 2.0] and b.grad.tolist() == [6.0]


def test_mismatches_are_refused():
    with pytest.raises(RuntimeError, match="subscript i is repeated for operand 0 but the sizes don't match, 3 != 2"):
        gg.einsum("ii->i", gg.ones(2, 3))
    with pytest.raises(RuntimeError, match="subscript j has size 4 for operand 1 which does not broadcast"):
        gg.einsum("ij,jk", gg.ones(2, 3), gg.ones(4, 2))


@pytest.mark.parametrize("eq,shapes", [("i,i", [(2,), (1,)]), ("ij,j->i", [(2, 3), (1,)]), ("ij,kj->ik", [(2, 1), (4, 3)]),
                                       ("bij,bjk->bik", [(1, 2, 3), (4, 3, 2)]), ("i,j->ij", [(1,), (3,)])])
def test_as_torch(eq, shapes):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in shapes]
    ours = [gg.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    y, w = gg.einsum(eq, *ours), torch.einsum(eq, *theirs)
    np.testing.assert_allclose(y.detach().numpy(), w.detach().numpy(), rtol=1e-12)
    y.sum().backward()
    w.sum().backward()
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-12)
