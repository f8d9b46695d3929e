"""Adaptive average pooling of empty sizes, as PyTorch's kernels check them: 2-d (and 1-d) need
their last two sizes nonzero, a batched input of 0 channels pools but its backward raises;
3-d needs every size after the first; an output of ones is a mean and takes anything; an output
size of 0 pools to an empty result whose backward raises (the 2-d and 3-d average and max
pools, and interpolate's area mode; the 1-d pools' squeeze of it). The adaptive max poolings need every size after the first (an unbatched
input may have 0 channels)."""
import math

import pytest

import glassgrad.torch as torch
import glassgrad.torch.nn.functional as F


def test_zero_channels_pool_but_their_backward_raises():
    for run, shape in ((lambda x: F.adaptive_avg_pool2d(x, 2), (1, 0, 4, 4)),
                       (lambda x: F.adaptive_avg_pool2d(x, 3), (0, 0, 4, 4)),
                       (lambda x: F.adaptive_avg_pool1d(x, 2), (2, 0, 4)),
                       (lambda x: torch.nn.AdaptiveAvgPool2d((2, 2))(x), (1, 0, 4, 4))):
        x = torch.ones(shape, requires_grad=True)
        y = run(x)
        assert y.numel() == 0
        with pytest.raises(RuntimeError, match=r"adaptive_avg_pool2d_backward\(\): Expected grad_output to have "
                                               r"non-zero size for non-batch dimensions"):
            y.sum().backward()


def test_unbatched_zero_channels_and_a_mean_output_backward():
    for run, shape in ((lambda x: F.adaptive_avg_pool2d(x, 2), (0, 4, 4)),
                       (lambda x: F.adaptive_avg_pool1d(x, 2), (0, 4)),
                       (lambda x: F.adaptive_avg_pool2d(x, 1), (1, 0, 4, 4)),
                       (lambda x: F.adaptive_avg_pool3d(x, 2), (0, 2, 4, 4))):
        x = torch.ones(shape, requires_grad=True)
        run(x).sum().backward()
        assert tuple(x.grad.shape) == shape


@pytest.mark.parametrize("run,shape,where,dim", [
    (lambda x: F.adaptive_avg_pool2d(x, 2), (1, 2, 0, 4), "adaptive_avg_pool2d", 2),
    (lambda x: F.adaptive_avg_pool2d(x, 2), (2, 0, 4), "adaptive_avg_pool2d", 1),
    (lambda x: F.adaptive_avg_pool1d(x, 2), (1, 2, 0), "adaptive_avg_pool2d", 3),
    (lambda x: F.adaptive_avg_pool3d(x, 2), (1, 0, 2, 4, 4), "adaptive_avg_pool3d", 1),
    (lambda x: F.adaptive_avg_pool3d(x, 2), (1, 2, 0, 4, 4), "adaptive_avg_pool3d", 2),
    (lambda x: F.adaptive_avg_pool3d(x, 2), (2, 0, 4, 4), "adaptive_avg_pool3d", 1),
])
def test_empty_sizes_after_the_batch_are_refused(run, shape, where, dim):
    with pytest.raises(RuntimeError, match=rf"{where}\(\): Expected input to have non-zero size for non-batch "
                                           rf"dimensions, but input has sizes .* with dimension {dim} being empty"):
        run(torch.ones(shape))


def test_a_mean_output_of_empty_sizes_is_nan():
    y = F.adaptive_avg_pool3d(torch.ones(1, 2, 0, 4, 4), 1)
    assert tuple(y.shape) == (1, 2, 1, 1, 1) and math.isnan(y[0, 0, 0, 0, 0].item())
    assert tuple(F.adaptive_avg_pool3d(torch.ones(1, 0, 2, 4, 4), (1, 1, 1)).shape) == (1, 0, 1, 1, 1)


@pytest.mark.parametrize("run,shape,where,dim", [
    (lambda x: F.adaptive_max_pool2d(x, 2), (1, 0, 4, 4), "adaptive_max_pool2d", 1),
    (lambda x: F.adaptive_max_pool2d(x, 2), (1, 2, 0, 4), "adaptive_max_pool2d", 2),
    (lambda x: F.adaptive_max_pool1d(x, 2), (2, 0, 4), "adaptive_max_pool1d", 1),
    (lambda x: F.adaptive_max_pool3d(x, 2), (1, 0, 2, 4, 4), "adaptive_max_pool3d", 1),
])
def test_adaptive_max_pools_refuse_empty_sizes_after_the_first(run, shape, where, dim):
    with pytest.raises(RuntimeError, match=rf"{where}\(\): Expected input to have non-zero size for non-batch "
                                           rf"dimensions, but input has sizes .* with dimension {dim} being empty"):
        run(torch.ones(shape))


@pytest.mark.parametrize("run,shape,out", [
    (lambda x: F.adaptive_max_pool2d(x, 2), (0, 4, 4), (0, 2, 2)),
    (lambda x: F.adaptive_max_pool1d(x, 2), (0, 4), (0, 2)),
    (lambda x: F.adaptive_max_pool3d(x, 2), (0, 2, 4, 4), (0, 2, 2, 2)),
])
def test_adaptive_max_pools_of_unbatched_zero_channels_run(run, shape, out):
    x = torch.ones(shape, requires_grad=True)
    y = run(x)
    assert tuple(y.shape) == out
    y.sum().backward()
    assert tuple(x.grad.shape) == shape


@pytest.mark.parametrize("run,shape,out,kernel", [
    (lambda x: F.adaptive_avg_pool3d(x, (1, 1, 0)), (1, 2, 4, 5, 3), (1, 2, 1, 1, 0), "adaptive_avg_pool3d"),
    (lambda x: F.adaptive_avg_pool3d(x, (0, 2, 2)), (2, 4, 5, 3), (2, 0, 2, 2), "adaptive_avg_pool3d"),
    (lambda x: torch.nn.AdaptiveAvgPool3d((2, 0, 1))(x), (1, 2, 4, 5, 3), (1, 2, 2, 0, 1), "adaptive_avg_pool3d"),
    (lambda x: F.interpolate(x, scale_factor=0.3, mode="area"), (1, 2, 4, 5, 3), (1, 2, 1, 1, 0),
     "adaptive_avg_pool3d"),
    (lambda x: F.interpolate(x, scale_factor=(0.3, 0.1), mode="area"), (2, 4, 5, 3), (2, 4, 1, 0),
     "adaptive_avg_pool2d"),
    (lambda x: F.adaptive_max_pool3d(x, (1, 0, 2)), (1, 2, 4, 5, 3), (1, 2, 1, 0, 2), "adaptive_max_pool3d"),
    (lambda x: F.adaptive_avg_pool2d(x, 0), (2, 3, 4, 5), (2, 3, 0, 0), "adaptive_avg_pool2d"),
    (lambda x: F.adaptive_avg_pool2d(x, (None, 0)), (3, 4, 5), (3, 4, 0), "adaptive_avg_pool2d"),
    (lambda x: torch.nn.AdaptiveAvgPool2d((0, 2))(x), (2, 3, 4, 5), (2, 3, 0, 2), "adaptive_avg_pool2d"),
    (lambda x: F.adaptive_max_pool2d(x, (2, 0)), (2, 3, 4, 5), (2, 3, 2, 0), "adaptive_max_pool2d"),
    (lambda x: F.adaptive_max_pool3d(x, (0, 2, 2), return_indices=True)[0], (2, 4, 5, 3), (2, 0, 2, 2),
     "adaptive_max_pool3d"),
])
def test_an_output_size_of_zero_pools_but_its_backward_raises(run, shape, out, kernel):
    """PyTorch's average pools to an empty output and names its node, and its backward kernel
    refuses the empty grad_output (interpolate's area mode is that pool)."""
    x = torch.ones(shape, requires_grad=True)
    y = run(x)
    assert tuple(y.shape) == out and type(y.grad_fn).__name__.startswith("Adaptive")
    with pytest.raises(RuntimeError, match=kernel + r"_backward\(\): Expected grad_output to have non-zero size"):
        y.sum().backward()
    with torch.no_grad():
        assert tuple(run(x).shape) == out


@pytest.mark.parametrize("run,out,kernel", [
    (lambda x: F.adaptive_avg_pool1d(x, 0), (3, 4, 0), "adaptive_avg_pool2d"),
    (lambda x: F.adaptive_max_pool1d(x, 0), (3, 4, 0), "adaptive_max_pool2d"),
    (lambda x: F.adaptive_max_pool1d(x, 0, return_indices=True)[0], (3, 4, 0), "adaptive_max_pool2d"),
])
def test_a_1d_output_size_of_zero_is_the_2d_pools_squeeze(run, out, kernel):
    x = torch.ones(3, 4, 5, requires_grad=True)
    y = run(x)
    assert tuple(y.shape) == out and type(y.grad_fn).__name__ == "SqueezeBackward1"
    with pytest.raises(RuntimeError, match=kernel + r"_backward\(\): Expected grad_output to have non-zero size"):
        y.sum().backward()


def test_a_negative_output_size_is_refused():
    x = torch.ones(2, 3, 4, 5)
    for run in (lambda: F.adaptive_avg_pool2d(x, -1), lambda: F.adaptive_avg_pool1d(x[0], -1),
                lambda: F.adaptive_max_pool2d(x, (2, -1))):
        with pytest.raises(RuntimeError):
            run()
