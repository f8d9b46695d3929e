"""nn.Module.type(dst_type) as PyTorch's (Tensor.type applied to every parameter, buffer and
gradient): CS231n's GAN notebook builds `D = discriminator().type(torch.FloatTensor)`, which
refused the typed tensor class; and double()/half()/to(dtype) converting the gradients with the
parameters. Expected values are PyTorch 2.x's documented behaviour."""
import pytest

import glassgrad as gg
from glassgrad import nn


@pytest.mark.parametrize("dst", [gg.DoubleTensor, "torch.DoubleTensor", "glassgrad.DoubleTensor", gg.float64])
def test_typed_class_name_or_dtype_converts_parameters_and_integer_buffers(dst):
    m = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    assert m.type(dst) is m
    assert m[0].weight.dtype == gg.float64 and m[1].running_mean.dtype == gg.float64
    # PyTorch's _apply casts every buffer, the integer count too
    assert m[1].num_batches_tracked.dtype == gg.float64
    assert isinstance(m[0].weight, nn.Parameter) and m[0].weight.requires_grad
    assert m(gg.ones(4, 2, dtype=gg.float64)).dtype == gg.float64


def test_float_tensor_keeps_training_with_the_same_parameter_objects():
    m = nn.Linear(2, 1)
    weight = m.weight
    opt = gg.optim.SGD(m.parameters(), lr=0.5)
    assert m.type(gg.FloatTensor) is m and m.weight is weight
    m(gg.ones(1, 2)).sum().backward()
    before = m.weight.detach().clone()
    opt.step()
    assert gg.allclose(m.weight.detach(), before - 0.5)


def test_gradients_are_converted_with_their_parameters():
    m = nn.Linear(2, 3)
    m(gg.ones(1, 2)).sum().backward()
    m.type(gg.DoubleTensor)
    assert m.weight.grad.dtype == gg.float64 and m.weight.grad.tolist() == [[1.0, 1.0]] * 3


def test_integer_type_of_a_trainable_parameter_raises_and_converts_nothing():
    m = nn.Linear(2, 3)
    with pytest.raises(RuntimeError, match="requires gradients must be floating point"):
        m.type(gg.LongTensor)
    assert m.weight.dtype == gg.float32 and m.bias.dtype == gg.float32


def test_integer_type_of_frozen_parameters():
    m = nn.Linear(2, 3).requires_grad_(False)
    m.type(gg.LongTensor)
    assert m.weight.dtype == gg.int64 and isinstance(m.weight, nn.Parameter)


def test_matches_pytorch():
    torch = pytest.importorskip("torch")
    for lib in (gg, torch):
        m = lib.nn.BatchNorm1d(3).type(lib.HalfTensor)
        assert str(m.weight.dtype).split(".")[-1] == "float16"
        assert str(m.num_batches_tracked.dtype).split(".")[-1] == "float16"


@pytest.mark.parametrize("convert, dtype", [(lambda m: m.double(), gg.float64), (lambda m: m.half(), gg.float16),
                                            (lambda m: m.to(gg.float64), gg.float64),
                                            (lambda m: m.bfloat16(), gg.bfloat16)])
def test_dtype_conversions_keep_gradients_converted(convert, dtype):
    # PyTorch's Module._apply converts param.grad with the parameter (they were dropped)
    m = nn.Linear(2, 3)
    m(gg.tensor([[1.0, 2.0]])).sum().backward()
    convert(m)
    assert m.weight.grad.dtype == dtype and m.bias.grad.dtype == dtype
    assert m.weight.grad.float().tolist() == [[1.0, 2.0]] * 3 and m.bias.grad.float().tolist() == [1.0] * 3
