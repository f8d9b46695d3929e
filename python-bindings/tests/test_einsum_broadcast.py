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


def test_one_integer_operand_sums_in_int64():
    x = gg.tensor([[1, 2, 3], [4, 5, 250]], dtype=gg.uint8)
    got = gg.einsum("ij->j", x)
    assert got.dtype == gg.int64 and got.tolist() == [5, 7, 253]  # no uint8 wrap-around, as sum's
    assert gg.einsum("ij->", x.bool()).dtype == gg.int64 and gg.einsum("ij->", x.bool()).item() == 6
    assert gg.einsum("ii", x[:, :2].int()).item() == 6 and gg.einsum("ii", x[:, :2].int()).dtype == gg.int64
    kept = gg.einsum("ij->ji", x)  # nothing summed: the operand's dtype
    assert kept.dtype == gg.uint8 and kept.tolist() == [[1, 4], [2, 5], [3, 250]]
    assert gg.einsum("ii->i", x[:, :2].bool()).dtype == gg.bool


@pytest.mark.parametrize("eq", ["ij->j", "ij->ji", "ij", "ij->", "ij->i"])
@pytest.mark.parametrize("dtype", ["uint8", "bool", "int8", "int32", "int64"])
def test_integer_dtypes_as_torch(eq, dtype):
    torch = pytest.importorskip("torch")
    y, w = (lib.einsum(eq, lib.tensor([[1, 2, 3], [4, 5, 250]]).to(getattr(lib, dtype))) for lib in (gg, torch))
    assert str(y.dtype).split(".")[-1] == str(w.dtype).split(".")[-1] and y.tolist() == w.tolist()


def test_operands_of_different_dtypes_promote():
    a = gg.ones(2, 3)
    assert gg.einsum("ij,ij->ij", a, a.double()).dtype == gg.float64
    assert gg.einsum("ij,ij->ij", a, a.int()).dtype == gg.float32
    assert gg.einsum("ij,ij->ij", a.half(), a).dtype == gg.float32
    assert gg.einsum("i,i->i", a[0].bool(), a[0].int()).tolist() == [1, 1, 1]
    x = gg.ones(3, requires_grad=True)
    gg.einsum("i,j->ij", x, gg.tensor([1.0, 2.0], dtype=gg.float64)).sum().backward()
    assert x.grad.dtype == gg.float32 and x.grad.tolist() == [3.0, 3.0, 3.0]


@pytest.mark.parametrize("eq,dtypes", [("ij,ij->ij", ("float32", "float64")), ("i,j->ij", ("float32", "float64")),
                                       ("ij,ij->ij", ("float32", "int32")), ("ij,ij->ij", ("float16", "float32"))])
def test_promotion_as_torch(eq, dtypes):
    torch = pytest.importorskip("torch")
    outs = []
    for lib in (gg, torch):
        ops = [lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).to(getattr(lib, d)) for d in dtypes]
        ops = [o[0] for o in ops] if eq == "i,j->ij" else ops
        y = lib.einsum(eq, *ops)
        outs.append((str(y.dtype).split(".")[-1], y.float().tolist()))
    assert outs[0] == outs[1]
