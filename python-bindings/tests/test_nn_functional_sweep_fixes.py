"""Differences the torch.nn.functional sweep found, as PyTorch behaves: convolutions of an empty
batch (N = 0) give the empty output and zero gradients to input, weight and bias (the kernels'
rules wanted a batch >= 1: forward of the transposed ones and backward of all raised);
softmax/log_softmax/softmin refuse a dim that is not an int with a TypeError."""
import numpy as np
import pytest

import glassgrad as torch
import glassgrad.nn.functional as F
from glassgrad import nn

CONVS = [(F.conv1d, 1, False), (F.conv2d, 2, False), (F.conv3d, 3, False),
         (F.conv_transpose1d, 1, True), (F.conv_transpose2d, 2, True), (F.conv_transpose3d, 3, True)]


@pytest.mark.parametrize("fn, dims, transposed", CONVS)
def test_convolutions_of_an_empty_batch(fn, dims, transposed):
    x = torch.zeros(0, 4, *([4] * dims), requires_grad=True)
    w = torch.ones(*((4, 3) if transposed else (4, 2)), *([3] * dims), requires_grad=True)
    b = torch.ones(6 if transposed else 4, requires_grad=True)
    y = fn(x, w, b, stride=2, groups=2)
    # PyTorch's output sizes: (4 - 1) * 2 + 3 = 9 transposed, (4 - 3) // 2 + 1 = 1 otherwise
    assert tuple(y.shape) == ((0, 6) + (9,) * dims if transposed else (0, 4) + (1,) * dims)
    y.sum().backward()
    assert tuple(x.grad.shape) == tuple(x.shape)
    np.testing.assert_array_equal(w.grad.numpy(), np.zeros(w.shape, np.float32))
    np.testing.assert_array_equal(b.grad.numpy(), np.zeros(b.shape, np.float32))


def test_a_conv_net_trains_on_an_empty_batch_and_still_checks_its_arguments():
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding="same"), nn.BatchNorm2d(4), nn.ReLU(),
                          nn.ConvTranspose2d(4, 2, 2, stride=2), nn.Flatten(), nn.Linear(2 * 10 * 10, 2))
    y = model(torch.zeros(0, 3, 5, 5))
    assert tuple(y.shape) == (0, 2)
    y.sum().backward()
    assert float(model[0].weight.grad.abs().sum()) == 0.0 and float(model[3].bias.grad.abs().sum()) == 0.0
    with pytest.raises(ValueError, match="groups=2"):
        F.conv2d(torch.zeros(0, 4, 4, 4), torch.ones(3, 2, 3, 3), groups=2)
    with torch.no_grad():
        assert tuple(F.conv2d(torch.zeros(0, 2, 4, 4), torch.ones(3, 2, 3, 3)).shape) == (0, 3, 2, 2)


@pytest.mark.parametrize("call", [lambda x, d: x.softmax(d), lambda x, d: torch.softmax(x, d),
                                  lambda x, d: F.softmax(x, d), lambda x, d: F.log_softmax(x, d),
                                  lambda x, d: F.softmin(x, d), lambda x, d: x.log_softmax(d)])
def test_softmax_dims_must_be_ints(call):
    x = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    for dim in ((0, 1), 1.0, True, "a"):
        with pytest.raises(TypeError, match="dim must be an int"):
            call(x, dim)
    np.testing.assert_allclose(call(x, np.int64(1)).numpy(), call(x, 1).numpy())


FLOAT_ONLY = [F.elu, F.selu, F.celu, F.gelu, F.silu, F.mish, F.hardswish, F.hardsigmoid, F.leaky_relu, F.softplus,
              F.hardshrink, F.softshrink, F.logsigmoid, F.glu, lambda x: F.rrelu(x, training=False),
              lambda x: F.softmax(x, 0), lambda x: F.log_softmax(x, 0), lambda x: F.layer_norm(x, (4,))]


@pytest.mark.parametrize("fn", FLOAT_ONLY)
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.bool])
def test_float_only_functions_refuse_integer_input_with_pytorchs_not_implemented_error(fn, dtype):
    x = torch.tensor([[1, 0, 2, 3], [0, 1, 1, 2]]).to(dtype)
    with pytest.raises(NotImplementedError):
        fn(x)
    with pytest.raises(TypeError):  # still a DTypeError
        fn(x)
    np.testing.assert_allclose(F.softplus(torch.tensor([0.0])).numpy(), [np.log(2.0)], rtol=1e-6)
    assert F.relu(torch.tensor([-1, 2])).tolist() == [0, 2]  # relu takes integers, as PyTorch's


@pytest.mark.parametrize("fn, kernel", [(lambda x: F.adaptive_avg_pool1d(x[0], 2), "adaptive_avg_pool2d"),
                                        (lambda x: F.adaptive_avg_pool2d(x, 2), "adaptive_avg_pool2d"),
                                        (lambda x: F.adaptive_avg_pool3d(x.unsqueeze(0), 2), "adaptive_avg_pool3d_cpu"),
                                        (lambda x: F.adaptive_max_pool1d(x[0], 2), "adaptive_max_pool2d"),
                                        (lambda x: F.adaptive_max_pool2d(x, 2), "adaptive_max_pool2d"),
                                        (lambda x: F.adaptive_max_pool3d(x.unsqueeze(0), 2), "adaptive_max_pool3d_cpu"),
                                        (lambda x: F.mse_loss(x, x), "mse_cpu"),
                                        (lambda x: F.smooth_l1_loss(x, x), "smooth_l1_cpu"),
                                        (lambda x: F.huber_loss(x, x), "huber_cpu")])
def test_adaptive_pools_and_losses_of_integers_are_not_implemented(fn, kernel):
    x = torch.ones(1, 2, 4, 4, dtype=torch.int64)
    with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for 'Long'"):
        fn(x)


def test_a_loss_of_integers_and_floats_runs_in_the_promoted_dtype():
    a, b = torch.tensor([[1, 2], [3, 4]]), torch.tensor([[1.0, 0.0], [3.0, 5.0]])
    assert F.mse_loss(a, b).item() == 1.25 and F.mse_loss(b, a).item() == 1.25
    assert F.smooth_l1_loss(a, b).item() == 0.5 and F.huber_loss(b, a).item() == 0.5
