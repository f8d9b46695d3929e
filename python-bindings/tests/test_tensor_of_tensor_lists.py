"""torch.tensor(list) where the list's innermost items are tensors: PyTorch reads each such tensor as
one number (a tensor is not a sequence to it), so [tensor([1.]), tensor([2.])] is tensor([1., 2.])
of shape [2] (collecting one-element model outputs in a loop), not [2, 1]; a tensor of several
elements there raises its ValueError 'only one element tensors can be converted to Python
scalars'. The dtype is the items' dtypes promoted, as for a list of numbers."""
import pytest

import glassgrad as gg


def test_one_element_tensors_become_numbers():
    t = gg.tensor([gg.tensor([1.0]), gg.tensor([2.0])])
    assert t.shape == (2,) and t.tolist() == [1.0, 2.0] and t.dtype == gg.float32
    t = gg.tensor([gg.tensor([[3]]), gg.tensor(4)])
    assert t.shape == (2,) and t.tolist() == [3, 4] and t.dtype == gg.int64


def test_depth_is_the_first_chain_of_lists():
    t = gg.tensor([[gg.tensor([1.0])], [gg.tensor([[2.0]])]])
    assert t.shape == (2, 1) and t.tolist() == [[1.0], [2.0]]
    t = gg.tensor([[gg.tensor(1.0), 2.0], [3, gg.tensor([4])]])
    assert t.shape == (2, 2) and t.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    # a list first: the tensor below it is a row, as PyTorch iterates it
    t = gg.tensor([[1, 2], gg.tensor([3, 4])])
    assert t.shape == (2, 2) and t.tolist() == [[1, 2], [3, 4]]


def test_dtypes_promote_as_for_numbers():
    assert gg.tensor([gg.tensor(1, dtype=gg.int32), gg.tensor(2, dtype=gg.int32)]).dtype == gg.int32
    assert gg.tensor([gg.tensor([1], dtype=gg.int32), 2.5]).tolist() == [1.0, 2.5]
    assert gg.tensor([gg.tensor(1.0, dtype=gg.float64), 2]).dtype == gg.float64
    assert gg.tensor([gg.tensor([1.5]).half()]).dtype == gg.float16
    assert gg.tensor([gg.tensor(True), gg.tensor(False)]).tolist() == [True, False]


def test_tensor_that_requires_grad_gives_its_value():
    w = gg.tensor(1.5, requires_grad=True)
    t = gg.tensor([w * 2, gg.tensor(3.0)])
    assert t.tolist() == [3.0, 3.0] and not t.requires_grad


def test_several_elements_raise_value_error():
    with pytest.raises(ValueError, match="only one element tensors can be converted to Python scalars"):
        gg.tensor([gg.tensor([1.0, 2.0]), gg.tensor([3.0, 4.0])])


CASES = [
    lambda lib: lib.tensor([lib.tensor([1.0]), lib.tensor([2.0])]),
    lambda lib: lib.tensor([[lib.tensor([1.0])], [lib.tensor([[2.0]])]]),
    lambda lib: lib.tensor([lib.tensor(1, dtype=lib.int32), lib.tensor(2, dtype=lib.int32)]),
    lambda lib: lib.tensor([lib.tensor([1], dtype=lib.int32), 2.5]),
    lambda lib: lib.tensor([lib.tensor([1.0]).bfloat16(), 2.0]),
    lambda lib: lib.tensor([[1, 2], lib.tensor([3, 4])]),
    lambda lib: lib.tensor([lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])]),
    lambda lib: lib.tensor([[lib.tensor(1.0), 2.0], [3, lib.tensor([4])]]),
    lambda lib: lib.tensor([lib.tensor(True), lib.tensor([1], dtype=lib.uint8)]),
    lambda lib: lib.tensor([lib.tensor([2])], dtype=lib.float64),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_as_torch(i):
    pytest.importorskip("torch")
    from torch_fuzz import same
    same(CASES[i], where=f"case {i}")


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
def test_floating_tensor_item_refused_for_an_integer_dtype(dtype):
    # PyTorch reads the item through __index__ for an integer or bool dtype: its TypeError
    with pytest.raises(TypeError, match="only integer tensors of a single element can be converted to an index"):
        gg.tensor([gg.tensor(1.5), 2], dtype=getattr(gg, dtype))
    with pytest.raises(TypeError, match="only integer tensors"):
        gg.tensor([[gg.tensor([1.0]).half()]], dtype=getattr(gg, dtype))
    with pytest.raises(TypeError, match="only integer tensors"):
        gg.ones(2, dtype=getattr(gg, dtype)).new_tensor([gg.tensor(1.0)])


def test_integer_and_bool_tensor_items_convert_to_any_dtype():
    assert gg.tensor([gg.tensor(True), gg.tensor(3)], dtype=gg.int64).tolist() == [1, 3]
    assert gg.tensor([gg.tensor(3)], dtype=gg.float32).tolist() == [3.0]
    assert gg.tensor([gg.tensor(1.5), 2], dtype=gg.float64).tolist() == [1.5, 2.0]
    assert gg.tensor([1.5, 2.7], dtype=gg.int64).tolist() == [1, 2]  # Python floats truncate


def test_integer_dtype_refusal_matches_pytorch():
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match="only integer tensors"):
        torch.tensor([torch.tensor(1.5), 2], dtype=torch.int32)
    assert torch.tensor([torch.tensor(True), torch.tensor(3)], dtype=torch.int64).tolist() == [1, 3]
