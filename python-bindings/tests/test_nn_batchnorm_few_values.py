"""BatchNorm in training on fewer than 2 values per channel, as PyTorch documents and does: an
empty batch gives an empty output (counted in num_batches_tracked, running statistics kept,
zero gradients for weight and bias); one value per channel is a ValueError naming the size."""
import numpy as np
import pytest

import glassgrad as torch
import glassgrad.nn.functional as F
from glassgrad import nn


@pytest.mark.parametrize("layer, shape", [(nn.BatchNorm1d, (0, 3)), (nn.BatchNorm1d, (0, 3, 5)),
                                          (nn.BatchNorm2d, (0, 3, 4, 4)), (nn.BatchNorm3d, (0, 3, 2, 2, 2)),
                                          (nn.BatchNorm1d, (4, 3, 0))])
def test_an_empty_training_batch_returns_an_empty_output_and_counts_the_batch(layer, shape):
    m = layer(3)
    x = torch.zeros(*shape, requires_grad=True)
    y = m(x)
    assert tuple(y.shape) == shape
    assert int(m.num_batches_tracked) == 1
    np.testing.assert_array_equal(m.running_mean.numpy(), np.zeros(3, np.float32))
    np.testing.assert_array_equal(m.running_var.numpy(), np.ones(3, np.float32))
    y.sum().backward()
    assert tuple(x.grad.shape) == shape
    np.testing.assert_array_equal(m.weight.grad.numpy(), np.zeros(3, np.float32))
    np.testing.assert_array_equal(m.bias.grad.numpy(), np.zeros(3, np.float32))


def test_an_empty_batch_with_momentum_none_and_without_affine():
    m = nn.BatchNorm2d(2, momentum=None, affine=False)
    assert tuple(m(torch.zeros(0, 2, 3, 3)).shape) == (0, 2, 3, 3)
    assert int(m.num_batches_tracked) == 1
    m(torch.arange(16.0).reshape(2, 2, 2, 2))  # the next real batch: factor 1/2 of the cumulative average
    np.testing.assert_allclose(m.running_mean.numpy(), [5.5 / 2, 9.5 / 2])


def test_functional_batch_norm_on_an_empty_batch():
    rm, rv = torch.zeros(3), torch.ones(3)
    y = F.batch_norm(torch.zeros(0, 3), rm, rv, training=True)
    assert tuple(y.shape) == (0, 3)
    np.testing.assert_array_equal(rm.numpy(), np.zeros(3, np.float32))


@pytest.mark.parametrize("layer, shape", [(nn.BatchNorm1d, (1, 3)), (nn.BatchNorm1d, (1, 3, 1)),
                                          (nn.BatchNorm2d, (1, 3, 1, 1)), (nn.BatchNorm3d, (1, 3, 1, 1, 1))])
def test_one_value_per_channel_in_training_is_pytorchs_value_error(layer, shape):
    with pytest.raises(ValueError, match=r"Expected more than 1 value per channel when training, got input size") as e:
        layer(3)(torch.ones(*shape))
    assert str(list(shape)) in str(e.value) and "model.eval()" in str(e.value)
    with pytest.raises(ValueError, match=r"Expected more than 1 value per channel when training"):
        F.batch_norm(torch.ones(*shape), None, None, training=True)


def test_one_value_per_channel_is_fine_in_eval_and_with_more_positions():
    m = nn.BatchNorm1d(3)
    assert tuple(m(torch.ones(1, 3, 2)).shape) == (1, 3, 2)  # two values per channel
    m.eval()
    np.testing.assert_allclose(m(torch.ones(1, 3)).detach().numpy(), np.full((1, 3), 0.9 / np.sqrt(0.9 + 1e-5)), rtol=1e-6)
