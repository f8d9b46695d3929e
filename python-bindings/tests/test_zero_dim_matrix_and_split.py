"""A 0-d tensor's .mT, .mH and .H are itself with PyTorch's deprecation warning, a 1-d tensor's
.mT/.mH raise PyTorch's RuntimeError; chunk, split, tensor_split and narrow refuse a 0-d tensor
with PyTorch's messages (they raised a bare IndexError, or chunk returned the tensor)."""
import pytest

import glassgrad as gg


@pytest.mark.parametrize("attr, note", [("mT", "identity"), ("mH", "conj"), ("H", "conj")])
def test_zero_d_transposes_are_the_tensor_with_a_warning(attr, note):
    x = gg.tensor(2.5)
    with pytest.warns(UserWarning, match=rf"Tensor.{attr} is deprecated on 0-D tensors.*{note}"):
        y = getattr(x, attr)
    assert y.shape == () and y.item() == 2.5


@pytest.mark.parametrize("attr", ["mT", "mH"])
def test_one_d_matrix_transposes_raise(attr):
    with pytest.raises(RuntimeError, match=rf"tensor.{attr} is only supported on matrices or batches of matrices. "
                                            r"Got 1-D tensor."):
        getattr(gg.ones(3), attr)


def test_matrix_transposes_of_batches():
    assert tuple(gg.ones(2, 3, 4).mT.shape) == (2, 4, 3) and tuple(gg.ones(2, 3).mH.shape) == (3, 2)


@pytest.mark.parametrize("call, message", [
    (lambda x: x.chunk(1), "chunk expects at least a 1-dimensional tensor"),
    (lambda x: gg.split(x, 1), "split expects at least a 1-dimensional tensor"),
    (lambda x: x.split([1]), "split expects at least a 1-dimensional tensor"),
    (lambda x: x.tensor_split(2), "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"),
    (lambda x: x.narrow(0, 0, 1), r"narrow\(\) cannot be applied to a 0-dim tensor."),
])
def test_splitting_a_zero_d_tensor_raises(call, message):
    with pytest.raises(RuntimeError, match=message):
        call(gg.tensor(1.0))


def test_against_torch():
    torch = pytest.importorskip("torch")
    for call in (lambda L, x: x.chunk(1), lambda L, x: L.split(x, 1), lambda L, x: x.narrow(0, 0, 1),
                 lambda L, x: x.tensor_split(2), lambda L, x: L.ones(3).mT, lambda L, x: L.ones(3).mH):
        with pytest.raises(RuntimeError) as want:
            call(torch, torch.tensor(1.0))
        with pytest.raises(RuntimeError) as got:
            call(gg, gg.tensor(1.0))
        assert str(got.value).splitlines()[0] == str(want.value).splitlines()[0]
