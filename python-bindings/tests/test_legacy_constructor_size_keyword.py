"""The legacy constructors take the shape as the keyword `size`, as PyTorch's torch.Tensor(size=
(2, 3), device=d) and torch.FloatTensor(size=[4]) (d2l-pytorch's RNN from scratch builds its
parameters as `torch.Tensor(size=shape, device=ctx).normal_(std=0.01)`). size=() is the 0-d
shape; size= with other arguments, or an int, is PyTorch's TypeError."""
import pytest

import glassgrad as gg


def test_tensor_size_keyword_makes_that_shape():
    x = gg.Tensor(size=(2, 3), device="cpu")
    assert x.shape == (2, 3) and x.dtype == gg.float32 and x.device.type == "cpu"
    assert gg.Tensor(size=[4]).normal_(std=0.01).shape == (4,)
    assert gg.Tensor(size=()).shape == ()  # the 0-d shape, where Tensor() is the empty [0]
    assert gg.Tensor().shape == (0,)


def test_typed_constructors_take_size_keyword():
    assert gg.FloatTensor(size=(2,)).shape == (2,) and gg.FloatTensor(size=(2,)).dtype == gg.float32
    y = gg.LongTensor(size=[3, 1])
    assert y.shape == (3, 1) and y.dtype == gg.int64


@pytest.mark.parametrize("make", [lambda: gg.Tensor(2, size=(2,)), lambda: gg.Tensor(size=3),
                                  lambda: gg.Tensor([1.0, 2.0], size=(2,)), lambda: gg.LongTensor(1, size=(1,))])
def test_size_keyword_alone_and_a_sequence(make):
    with pytest.raises(TypeError, match="size="):
        make()


def test_matches_pytorch():
    torch = pytest.importorskip("torch")
    assert tuple(torch.Tensor(size=(2, 3)).shape) == tuple(gg.Tensor(size=(2, 3)).shape)
    assert tuple(torch.Tensor(size=()).shape) == tuple(gg.Tensor(size=()).shape)
    for bad in (lambda t: t.Tensor(size=3), lambda t: t.Tensor(2, size=(2,))):
        with pytest.raises(TypeError):
            bad(torch)
