"""Tensor.reshape(shape=...) and Tensor.permute(dims=...), the keywords PyTorch's signatures name
(reshape(*shape), permute(*dims)), and Tensor.imag / torch.imag of a real tensor, which PyTorch
refuses with a RuntimeError ('imag is not implemented for tensors with non-complex dtypes.')."""
import pytest

import glassgrad as gg


def test_reshape_takes_shape_keyword():
    x = gg.arange(6.0).view(2, 3)
    assert x.reshape(shape=(3, 2)).tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    assert x.reshape(shape=[-1]).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    with pytest.raises(TypeError, match="reshape"):
        x.reshape(6, shape=(6,))


def test_permute_takes_dims_keyword():
    x = gg.arange(6.0).view(2, 3)
    assert x.permute(dims=(1, 0)).tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    assert x.permute(dims=[-1, 0]).shape == (3, 2)
    with pytest.raises(TypeError, match="permute"):
        x.permute(1, 0, dims=(1, 0))


def test_imag_of_real_tensor_raises_runtime_error():
    x = gg.ones(2)
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex dtypes"):
        x.imag
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex dtypes"):
        gg.imag(x)
    assert x.real is x


def test_as_torch():
    torch = pytest.importorskip("torch")
    for lib in (torch, gg):
        x = lib.arange(24.0).view(2, 3, 4)
        assert x.reshape(shape=(4, -1)).shape == (4, 6)
        assert x.permute(dims=(2, 0, 1)).shape == (4, 2, 3)
        with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex dtypes"):
            lib.imag(x)
