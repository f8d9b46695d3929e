"""Python ints beyond 2**53 meeting an integer tensor are exact, as PyTorch's 64-bit scalars
(docs/porting.md, "Python numbers beside tensors"): a scalar op's number is a double in the
runtime, so such an int takes part as a 0-d tensor of the tensor's dtype (_python_ints.attribute_exact),
and full writes it through NumPy. Expected values are NumPy's int64 arithmetic, which wraps as
PyTorch's does."""
import numpy as np
import pytest

import glassgrad as gg

B = 2**62 + 1  # float64 rounds it to 2**62
C = 2**61 + 3


def i64(v):
    return int(np.int64(v)) if -2**63 <= v < 2**63 else int(np.array(v % 2**64, np.uint64).astype(np.int64))


@pytest.mark.parametrize("call, expected", [
    (lambda x: x + 1, [B + 1, 1]),
    (lambda x: x - C, [B - C, -C]),
    (lambda x: x.sub(C), [B - C, -C]),
    (lambda x: x.sub(C, alpha=1), [B - C, -C]),
    (lambda x: gg.sub(x, C), [B - C, -C]),
    (lambda x: C - x, [C - B, C]),
    (lambda x: gg.rsub(x, C), [C - B, C]),
    (lambda x: x - B, [0, -B]),
    (lambda x: x + B, [i64(2 * B), B]),
    (lambda x: B + x, [i64(2 * B), B]),
    (lambda x: x * 3, [i64(3 * B), 0]),
    (lambda x: (x + 1) * C, [i64((B + 1) * C), C]),
    (lambda x: C * x, [i64(B * C), 0]),
    (lambda x: x.add(C, alpha=2), [i64(B + 2 * C), i64(2 * C)]),
    (lambda x: x.add(1, alpha=C), [i64(B + C), C]),
    (lambda x: x.sub(1, alpha=C), [B - C, -C]),
    (lambda x: x.add(2**62, alpha=4), [i64(B + 2**64), 0]),  # int64's product wraps, as PyTorch's
    (lambda x: x.add(x, alpha=C), [i64(B + B * C), 0]),
    (lambda x: x.addcmul(x, gg.ones_like(x), value=C), [i64(B + B * C), 0]),
    (lambda x: x - (2**63 + 5), [i64(B - (2**63 + 5 - 2**64)), i64(-(2**63 + 5 - 2**64))]),
    (lambda x: x * (2**53 + 1), [i64(B * (2**53 + 1)), 0]),
])
def test_int64_arithmetic_with_large_ints_is_exact(call, expected):
    x = gg.tensor([B, 0])
    out = call(x)
    assert out.dtype == gg.int64
    assert out.tolist() == expected


def test_in_place_forms_are_exact():
    x = gg.tensor([1, 3])
    x += B
    assert x.tolist() == [B + 1, B + 3]
    x -= C
    assert x.tolist() == [B + 1 - C, B + 3 - C]
    y = gg.tensor([3])
    y.mul_(C)
    assert y.tolist() == [3 * C]
    z = gg.tensor([5])
    z.sub_(B)
    assert z.tolist() == [5 - B]


def test_narrow_integer_tensors_take_the_int_wrapped():
    # PyTorch converts the number to the tensor's type: 2**62 + 1 is 1 in every narrower integer type
    assert (gg.tensor([1], dtype=gg.int32) + B).tolist() == [2]
    assert (gg.tensor([1], dtype=gg.int16) - B).tolist() == [0]
    assert (gg.tensor([3], dtype=gg.int8) * B).tolist() == [3]
    assert (gg.tensor([1], dtype=gg.uint8) + B).tolist() == [2]


@pytest.mark.parametrize("call, expected", [
    (lambda: gg.full((2,), B), [B, B]),
    (lambda: gg.full((2,), B, dtype=gg.int64), [B, B]),
    (lambda: gg.full((2,), 2**53 + 1), [2**53 + 1] * 2),
    (lambda: gg.full((2,), -B), [-B, -B]),
    (lambda: gg.full_like(gg.tensor([1, 2]), B), [B, B]),
    (lambda: gg.tensor([1, 2]).new_full((2,), B), [B, B]),
    (lambda: gg.tensor([1, 2]).fill_(B), [B, B]),
    (lambda: gg.tensor([2**62, 2**62 + 3]).clamp(min=B), [B, 2**62 + 3]),
    (lambda: gg.tensor([2**62, 2**62 + 3]).clamp(max=B), [2**62, B]),
    (lambda: gg.tensor([1, 2]).masked_fill(gg.tensor([True, False]), B), [B, 2]),
])
def test_fill_values_beyond_2_53_are_exact(call, expected):
    out = call()
    assert out.dtype == gg.int64
    assert out.tolist() == expected


def test_full_of_a_large_int_is_an_ordinary_leaf():
    x = gg.full((2, 3), B, requires_grad=False)
    assert x.shape == (2, 3) and x.is_leaf and x.stride() == (3, 1)
    assert (x + 0).tolist() == [[B] * 3] * 2


def test_comparisons_reductions_and_division_stay_exact():
    x = gg.tensor([B, C])
    assert (x == B).tolist() == [True, False]
    assert (x == B - 1).tolist() == [False, False]
    assert (x > B - 1).tolist() == [True, False]
    assert x.sum().item() == B + C
    assert x.cumsum(0).tolist() == [B, B + C]
    assert (x // 7).tolist() == [B // 7, C // 7]
    assert (x % C).tolist() == [B % C, 0]
    assert (x // C).tolist() == [B // C, 1]


def test_integer_matrix_products_beyond_2_53_are_exact():
    a = gg.tensor([[B, C], [1, 2]])
    b = gg.tensor([[1, 3], [1, 5]])
    expected = [[i64(B + C), i64(3 * B + 5 * C)], [3, 13]]
    assert (a @ b).tolist() == expected
    assert gg.mm(a, b).tolist() == expected
    assert gg.bmm(a[None], b[None]).tolist() == [expected]
    assert gg.tensor([B, 3]).dot(gg.tensor([1, 1])).item() == B + 3
    assert a.mv(gg.tensor([1, 1])).tolist() == [i64(B + C), 3]
    assert (gg.tensor([[2**62, 2**62]]) @ gg.tensor([[2], [2]])).tolist() == [[0]]  # wraps, as PyTorch's int64
    small = gg.tensor([[3]], dtype=gg.int32) @ gg.tensor([[2**30]], dtype=gg.int32)
    assert small.dtype == gg.int32 and small.tolist() == [[-2**30]]  # 3 * 2**30 wrapped in int32


def test_integer_einsum_beyond_2_53_is_exact():
    a = gg.tensor([[B, C], [1, 2]])
    assert gg.einsum("i,i->", gg.tensor([B, C]), gg.tensor([1, 1])).item() == i64(B + C)
    assert gg.einsum("ij,jk->ik", a, gg.tensor([[1], [3]])).tolist() == [[i64(B + 3 * C)], [7]]
    assert gg.einsum("...j,j->...", a, gg.tensor([1, 3])).tolist() == [i64(B + 3 * C), 7]
    assert gg.einsum("i,j->ij", gg.tensor([B]), gg.tensor([1, 3])).tolist() == [[B, i64(3 * B)]]
    assert gg.einsum("ii->i", a).tolist() == [B, 2]
    small = gg.einsum("i,i->", gg.tensor([2, 3], dtype=gg.int32), gg.tensor([1, 1], dtype=gg.int32))
    assert small.dtype == gg.int32 and small.item() == 5
