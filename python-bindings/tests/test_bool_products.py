"""Matrix products of two bool tensors as PyTorch's CPU kernels take them: there is no bool
kernel (NotImplementedError, '"addmm_impl_cpu_" not implemented for 'Bool''), except where no sum
of products is formed: an operand without elements gives the empty result, or the all-False one
of an empty contraction (torch.dot refuses even empty vectors), and einsum's contractions of size
1 are an elementwise AND. Also einsum over a contracted letter of size 0 (it reshaped to size 1)."""
import numpy as np
import pytest

import glassgrad as gg



def _t(m, *shape):
    return m.ones(*shape, dtype=m.bool)


REFUSED = [
    lambda m: m.matmul(_t(m, 2, 2), _t(m, 2, 2)), lambda m: m.mm(_t(m, 2, 1), _t(m, 1, 2)),
    lambda m: m.bmm(_t(m, 1, 2, 2), _t(m, 1, 2, 2)), lambda m: m.dot(_t(m, 2), _t(m, 2)),
    lambda m: m.dot(_t(m, 0), _t(m, 0)), lambda m: m.matmul(_t(m, 1), _t(m, 1)), lambda m: m.mv(_t(m, 2, 2), _t(m, 2)),
    lambda m: _t(m, 2, 2) @ _t(m, 2), lambda m: m.addmm(_t(m, 2, 2), _t(m, 2, 2), _t(m, 2, 2)),
    lambda m: m.baddbmm(_t(m, 1, 2, 2), _t(m, 1, 2, 2), _t(m, 1, 2, 2)), lambda m: m.inner(_t(m, 2), _t(m, 2)),
    lambda m: m.tensordot(_t(m, 2, 2), _t(m, 2, 2)), lambda m: m.einsum("ij,jk->ik", _t(m, 2, 2), _t(m, 2, 2)),
    lambda m: m.einsum("ij,ij->", _t(m, 2, 1), _t(m, 2, 1)), lambda m: m.linalg.multi_dot([_t(m, 2, 2), _t(m, 2, 2)]),
]
# (call, expected shape, expected value of every element)
ALLOWED = [
    (lambda m: m.matmul(_t(m, 2, 0), _t(m, 0, 2)), (2, 2), False),
    (lambda m: m.matmul(_t(m, 0, 2), _t(m, 2, 2)), (0, 2), False),
    (lambda m: m.bmm(_t(m, 1, 2, 0), _t(m, 1, 0, 2)), (1, 2, 2), False),
    (lambda m: m.mv(_t(m, 2, 0), _t(m, 0)), (2,), False),
    (lambda m: m.matmul(_t(m, 3, 2, 0), _t(m, 0, 2)), (3, 2, 2), False),
    (lambda m: m.einsum("ij,jk->ik", _t(m, 2, 0), _t(m, 0, 2)), (2, 2), False),
    (lambda m: m.einsum("i,j->ij", _t(m, 2), _t(m, 3)), (2, 3), True),
    (lambda m: m.einsum("ij,jk->ik", _t(m, 2, 1), _t(m, 1, 2)), (2, 2), True),
    (lambda m: m.einsum("ij,ij->i", _t(m, 2, 1), _t(m, 2, 1)), (2,), True),
]


@pytest.mark.parametrize("call", REFUSED)
def test_bool_products_are_not_implemented(call):
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        call(gg)


@pytest.mark.parametrize("call,shape,value", ALLOWED)
def test_bool_products_without_sums(call, shape, value):
    out = call(gg)
    assert out.dtype == gg.bool and tuple(out.shape) == shape
    np.testing.assert_array_equal(out.numpy(), np.full(shape, value))


def test_einsum_and_of_mixed_values():
    a = gg.tensor([[True], [False], [True]])
    b = gg.tensor([[True, False]])
    np.testing.assert_array_equal(gg.einsum("ij,jk->ik", a, b).numpy(), [[1, 0], [0, 0], [1, 0]])


@pytest.mark.parametrize("eq,sa,sb,shape", [("ij,jk->ik", (2, 0), (0, 3), (2, 3)),
                                            ("bij,bjk->bik", (3, 2, 0), (3, 0, 2), (3, 2, 2)),
                                            ("bij,bjk->bik", (1, 2, 0), (3, 0, 2), (3, 2, 2)),
                                            ("...j,j->...", (4, 0), (0,), (4,))])
def test_einsum_over_an_empty_contraction_is_zeros(eq, sa, sb, shape):
    out = gg.einsum(eq, gg.ones(*sa), gg.ones(*sb))
    assert tuple(out.shape) == shape
    np.testing.assert_array_equal(out.numpy(), np.zeros(shape))


@pytest.mark.parametrize("call", REFUSED)
def test_refusals_match_torch(call):
    torch = pytest.importorskip("torch")
    with pytest.raises(NotImplementedError):
        call(torch)


@pytest.mark.parametrize("call,shape,value", ALLOWED)
def test_allowed_match_torch(call, shape, value):
    torch = pytest.importorskip("torch")
    np.testing.assert_array_equal(call(gg).numpy(), call(torch).numpy())
