"""torch.nn.functional's refusals with PyTorch's exception kinds and words (torch-free; the words
are PyTorch 2.x's): dims read before a rank check (F.unfold of a 1-d/2-d input and F.batch_norm
training on a 0-d/1-d one: IndexError), 2-d poolings of 0 channels or an empty plane
(RuntimeError; an empty batch runs), bool input of reflect/replicate pads, integer input of prelu
and of max_pool1d without indices (NotImplementedError), and what still runs beside each."""
import numpy as np
import pytest

import glassgrad as torch

F = torch.nn.functional


@pytest.mark.parametrize("shape,words", [
    ((4, 4), "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    ((4,), "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    ((), "Dimension specified as 1 but tensor has no dimensions"),
])
def test_unfold_below_3d_is_index_error(shape, words):
    with pytest.raises(IndexError) as info:
        F.unfold(torch.zeros(shape), 2)
    assert words in str(info.value)
    assert not isinstance(info.value, RuntimeError)


def test_unfold_5d_stays_runtime_error_and_3d_runs():
    with pytest.raises(RuntimeError, match="3D or 4D"):
        F.unfold(torch.zeros(1, 1, 1, 4, 4), 2)
    assert tuple(F.unfold(torch.zeros(1, 4, 4), 2).shape) == (4, 9)


@pytest.mark.parametrize("shape,words", [
    ((4,), "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    ((), ""),  # PyTorch: 'tuple index out of range'
])
def test_batch_norm_training_below_2d_is_index_error(shape, words):
    with pytest.raises(IndexError) as info:
        F.batch_norm(torch.ones(shape), None, None, training=True)
    assert words in str(info.value)


def test_batch_norm_eval_below_2d_stays_runtime_error():
    # PyTorch: RuntimeError 'running_mean should contain 0 elements not 4'
    with pytest.raises(RuntimeError):
        F.batch_norm(torch.ones(4), torch.zeros(4), torch.ones(4))
    with pytest.raises(RuntimeError):
        F.batch_norm(torch.tensor(1.0), torch.zeros(0), torch.ones(0))


def test_batch_norm_eval_1d_with_empty_statistics_is_index_error():
    # 0 statistics pass PyTorch's size check for a 1-d input (0 channels); its kernel then reads dim 1
    with pytest.raises(IndexError, match=r"expected to be in range of \[-1, 0\], but got 1"):
        F.batch_norm(torch.ones(4), torch.zeros(0), torch.ones(0))
    with pytest.raises(IndexError):
        F.batch_norm(torch.ones(4), torch.zeros(0), torch.ones(0), torch.ones(0))


@pytest.mark.parametrize("run,shape", [
    (lambda x: F.avg_pool2d(x, 2), (1, 0, 4, 4)),
    (lambda x: F.avg_pool2d(x, 2), (0, 4, 4)),
    (lambda x: F.avg_pool2d(x, 1), (1, 2, 0, 4)),
    (lambda x: F.avg_pool2d(x.long(), 2), (1, 0, 4, 4)),
    (lambda x: F.max_pool2d(x, 2), (1, 0, 4, 4)),
    (lambda x: F.max_pool2d(x, 2, return_indices=True), (1, 0, 4, 4)),
    (lambda x: F.max_pool2d(x.long(), 2), (1, 0, 4, 4)),
    (lambda x: F.avg_pool1d(x, 2), (1, 0, 4)),
    (lambda x: F.max_pool1d(x, 2), (1, 0, 4)),
])
def test_pool2d_of_empty_planes_is_runtime_error(run, shape):
    with pytest.raises(RuntimeError, match="Expected (3D or 4D|2D or 3D)"):  # (max_pool1d's own words)
        run(torch.zeros(shape))


@pytest.mark.parametrize("run,shape", [
    (lambda x: F.avg_pool3d(x, 2), (1, 0, 4, 4, 4)),
    (lambda x: F.avg_pool3d(x, 2), (0, 4, 4, 4)),
    (lambda x: F.max_pool3d(x, 2), (1, 0, 4, 4, 4)),
    (lambda x: F.adaptive_max_pool3d(x, 2), (1, 0, 4, 4, 4)),
    (lambda x: F.adaptive_max_pool2d(x, 2), (1, 0, 4, 4)),
    (lambda x: F.adaptive_max_pool1d(x, 2), (1, 0, 4)),
])
def test_other_pools_of_0_channels_are_runtime_errors(run, shape):
    with pytest.raises(RuntimeError, match="non-batch dimension|3D or 4D"):
        run(torch.zeros(shape))


@pytest.mark.parametrize("run,shape,out", [
    (lambda x: F.avg_pool3d(x, 2), (0, 2, 4, 4, 4), (0, 2, 2, 2, 2)),
    (lambda x: F.max_pool3d(x, 2), (0, 2, 4, 4, 4), (0, 2, 2, 2, 2)),
    (lambda x: F.max_pool3d(x, 2, return_indices=True)[0], (0, 2, 4, 4, 4), (0, 2, 2, 2, 2)),
    (lambda x: F.adaptive_max_pool3d(x, 2), (0, 2, 4, 4, 4), (0, 2, 2, 2, 2)),
    (lambda x: F.adaptive_max_pool2d(x, 2), (0, 2, 4, 4), (0, 2, 2, 2)),
    (lambda x: F.adaptive_max_pool1d(x, 2), (0, 2, 4), (0, 2, 2)),
    (lambda x: F.max_pool2d(x, 2, return_indices=True)[0], (0, 2, 4, 4), (0, 2, 2, 2)),
    (lambda x: F.max_pool2d(x, 2, dilation=2), (0, 2, 5, 5), (0, 2, 2, 2)),
])
def test_pools_of_an_empty_batch_run_and_differentiate(run, shape, out):
    x = torch.zeros(shape, requires_grad=True)
    y = run(x)
    assert tuple(y.shape) == out
    y.sum().backward()
    assert tuple(x.grad.shape) == shape


def test_pool2d_of_empty_batch_runs():
    assert tuple(F.avg_pool2d(torch.zeros(0, 2, 4, 4), 2).shape) == (0, 2, 2, 2)
    assert tuple(F.max_pool2d(torch.zeros(0, 2, 4, 4), 2).shape) == (0, 2, 2, 2)


@pytest.mark.parametrize("run,shape,out", [
    (lambda x: F.adaptive_avg_pool2d(x, 2), (1, 0, 4, 4), (1, 0, 2, 2)),
    (lambda x: F.adaptive_avg_pool2d(x, 3), (1, 0, 4, 4), (1, 0, 3, 3)),
    (lambda x: F.adaptive_avg_pool2d(x, 2), (0, 4, 4), (0, 2, 2)),
    (lambda x: F.adaptive_avg_pool1d(x, 2), (1, 0, 4), (1, 0, 2)),
])
def test_adaptive_avg_pool_of_0_channels_runs(run, shape, out):
    # unlike avg_pool2d, PyTorch's adaptive average pooling takes 0 channels (forward)
    assert tuple(run(torch.zeros(shape)).shape) == out


@pytest.mark.parametrize("mode,amounts,rank,kernel", [
    ("reflect", (1, 1), 3, "reflection_pad1d"),
    ("reflect", (1, 1, 1, 1), 4, "reflection_pad2d"),
    ("reflect", (1, 1, 1, 1, 1, 1), 5, "reflection_pad3d"),
    ("replicate", (1, 1), 3, "replication_pad1d"),
    ("replicate", (1, 1, 1, 1, 1, 1), 5, "replication_pad3d"),
])
def test_pad_bool_reflect_replicate_not_implemented(mode, amounts, rank, kernel):
    x = torch.ones((2,) + (3,) * (rank - 1), dtype=torch.bool)
    with pytest.raises(NotImplementedError) as info:
        F.pad(x, amounts, mode=mode)
    assert f'"{kernel}" not implemented for \'Bool\'' in str(info.value)


def test_pad_bool_constant_circular_and_int_reflect_run():
    x = torch.tensor([[[True, False, True]]])
    np.testing.assert_array_equal(F.pad(x, (1, 1)).numpy(), [[[False, True, False, True, False]]])
    np.testing.assert_array_equal(F.pad(x, (1, 1), mode="circular").numpy(), [[[True, True, False, True, True]]])
    y = F.pad(torch.tensor([[[1, 2, 3]]]), (1, 1), mode="reflect")
    assert y.dtype == torch.int64 and y.tolist() == [[[2, 1, 2, 3, 2]]]


@pytest.mark.parametrize("dtype,name", [(torch.int64, "Long"), (torch.int32, "Int"), (torch.uint8, "Byte"),
                                        (torch.bool, "Bool")])
def test_prelu_integer_input_not_implemented(dtype, name):
    with pytest.raises(NotImplementedError) as info:
        F.prelu(torch.ones(2, 3, dtype=dtype), torch.ones(1, dtype=dtype))
    assert f'"prelu_cpu" not implemented for \'{name}\'' in str(info.value)


def test_prelu_mixed_dtypes_stay_runtime_error():
    # PyTorch checks the dtypes first: 'prelu: Type promoting not supported. Got Long and Float'
    with pytest.raises(RuntimeError, match="Type promoting not supported") as info:
        F.prelu(torch.ones(2, 3, dtype=torch.int64), torch.ones(1))
    assert not isinstance(info.value, NotImplementedError)


@pytest.mark.parametrize("dtype,name", [(torch.int64, "Long"), (torch.int32, "Int"), (torch.uint8, "Byte"),
                                        (torch.bool, "Bool")])
def test_max_pool1d_integer_input_not_implemented(dtype, name):
    with pytest.raises(NotImplementedError) as info:
        F.max_pool1d(torch.ones(1, 2, 4, dtype=dtype), 2)
    assert f'"max_pool1d_impl" not implemented for \'{name}\'' in str(info.value)
    with pytest.raises(NotImplementedError):
        torch.nn.MaxPool1d(2)(torch.ones(2, 6, dtype=dtype))


def test_max_pool1d_integer_with_indices_and_max_pool2d_integer_run():
    x = torch.tensor([[[1, 5, 3, 2]]])
    values, indices = F.max_pool1d(x, 2, return_indices=True)
    assert values.dtype == torch.int64 and values.tolist() == [[[5, 3]]] and indices.tolist() == [[[1, 2]]]
    assert F.max_pool2d(x.unsqueeze(0), (1, 2)).tolist() == [[[[5, 3]]]]
