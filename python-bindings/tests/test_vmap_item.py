"""A Python number read inside torch.func.vmap from a mapped tensor (item(), float(), int(), a
tensor in an `if`) is refused with PyTorch's RuntimeError: the batch has no single value. A
number read from a tensor the vmap does not map is fine, as in PyTorch."""
import pytest

import glassgrad as gg
from glassgrad.func import vmap

X = gg.ones(2, 3)


@pytest.mark.parametrize("func", [lambda x: x.sum().item(), lambda x: x * float(x.sum()),
                                  lambda x: x * int(x[0]), lambda x: x[1].item() * x],
                         ids=["item", "float", "int", "slice-item"])
def test_a_number_from_a_mapped_tensor_is_refused(func):
    with pytest.raises(RuntimeError, match=r"vmap: It looks like you're calling \.item\(\) on a Tensor"):
        vmap(func)(X)


def test_a_mapped_tensor_in_control_flow_is_refused():
    with pytest.raises(RuntimeError, match="vmap: It looks like you're attempting to use a Tensor in some "
                                           "data-dependent control flow"):
        vmap(lambda x: x if x.sum() > 0 else -x)(X)


def test_numbers_from_other_tensors_are_read():
    scale = gg.tensor(3.0)
    assert vmap(lambda x: x * scale.item())(X).tolist() == [[3.0] * 3] * 2
    assert vmap(lambda x: x * gg.ones(2).sum().item())(X).tolist() == [[2.0] * 3] * 2
    assert vmap(lambda x, s: x * s.item(), in_dims=(0, None))(X, scale).tolist() == [[3.0] * 3] * 2


def test_the_inner_vmap_of_nested_calls_refuses_too_and_item_works_after():
    with pytest.raises(RuntimeError, match="calling .item"):
        vmap(lambda x: vmap(lambda y: y * y.sum().item())(x))(gg.ones(2, 2, 3))
    assert X.sum().item() == 6.0  # outside vmap again


def test_as_torch():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as theirs:
        torch.func.vmap(lambda x: x.sum().item())(torch.ones(2, 3))
    with pytest.raises(RuntimeError) as ours:
        vmap(lambda x: x.sum().item())(X)
    assert str(ours.value) == str(theirs.value)
