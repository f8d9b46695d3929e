"""A one-element integer tensor of any dims (tensor([3]), tensor([[3]])) where PyTorch takes a
SymInt or an element of an int list is the int it holds, as PyTorch's argument parser reads it:
F.interpolate(x, size=[n, n]) and F.pad(x, [n, n]) with n = torch.randint(..., size=(1,)) (an
input-diversity attack's random resize), torch.eye(n), x.topk(k), torch.randint's bounds,
torch.randperm(n), kernel sizes, paddings and adaptive pooling's output size. A plain int
argument (a dim) still takes only a 0-d one, and a float or a several-element tensor is refused,
as PyTorch refuses them. Torch-free checks, then the same calls against PyTorch where it is
installed."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F

N = gg.tensor([3], dtype=gg.int32)
X = np.arange(4.0, dtype=np.float32).reshape(1, 1, 2, 2)


def test_interpolate_sizes_take_one_element_tensors():
    out = F.interpolate(gg.tensor(X), size=[N, N])
    want = X[:, :, [0, 0, 1]][:, :, :, [0, 0, 1]]  # nearest: source index floor(i * 2 / 3)
    np.testing.assert_array_equal(out.numpy(), want)
    assert F.interpolate(gg.tensor(X), size=N).shape == (1, 1, 3, 3)
    assert F.interpolate(gg.tensor(X), size=[gg.tensor([[4]]), 2], mode="bilinear", align_corners=False).shape == \
        (1, 1, 4, 2)


def test_pad_amounts_take_one_element_tensors():
    out = F.pad(gg.ones(2, 2), [gg.tensor([1]), gg.tensor([[0]])], value=0.0)
    np.testing.assert_array_equal(out.numpy(), [[0, 1, 1], [0, 1, 1]])


def test_symint_arguments_take_one_element_tensors():
    np.testing.assert_array_equal(gg.eye(gg.tensor([2]), gg.tensor([[3]])).numpy(), np.eye(2, 3))
    assert gg.tensor([1.0, 5.0, 3.0]).topk(gg.tensor([2])).values.tolist() == [5.0, 3.0]
    assert sorted(gg.randperm(gg.tensor([4])).tolist()) == [0, 1, 2, 3]
    draws = gg.randint(gg.tensor([2]), N, (50,))
    assert set(draws.tolist()) == {2}


def test_kernel_sizes_paddings_and_output_sizes_take_one_element_tensors():
    x = gg.tensor(np.arange(16.0, dtype=np.float32).reshape(1, 4, 4))
    np.testing.assert_array_equal(F.max_pool2d(x, gg.tensor([2])).numpy(), [[[5, 7], [13, 15]]])
    assert F.max_pool2d(x, (gg.tensor([2]), 1)).shape == (1, 2, 4)
    w = gg.ones(1, 1, 3, 3)
    assert F.conv2d(x[None], w, padding=(gg.tensor([1]), 0)).shape == (1, 1, 4, 2)
    assert F.adaptive_avg_pool2d(x, (gg.tensor([[2]]), None)).shape == (1, 2, 4)


def test_what_pytorch_refuses_stays_refused():
    with pytest.raises(TypeError):
        F.pad(gg.ones(2, 2), [gg.tensor([1, 1])])  # two elements
    with pytest.raises(TypeError):
        F.pad(gg.ones(2, 2), [gg.tensor([1.0]), 1])  # a float
    with pytest.raises(TypeError):
        gg.ones(2).unsqueeze(gg.tensor([0]))  # a dim is a plain int: a 0-d tensor only
    with pytest.raises((TypeError, ValueError)):
        F.interpolate(gg.tensor(X), size=[gg.tensor([2.0]), 2])


def test_the_same_calls_as_pytorch():
    torch = pytest.importorskip("torch")
    import torch.nn.functional as TF
    n = torch.tensor([3], dtype=torch.int32)
    np.testing.assert_array_equal(F.interpolate(gg.tensor(X), size=[N, N]).numpy(),
                                  TF.interpolate(torch.tensor(X), size=[n, n]).numpy())
    np.testing.assert_array_equal(F.pad(gg.ones(2, 2), [gg.tensor([1]), gg.tensor([[0]])]).numpy(),
                                  TF.pad(torch.ones(2, 2), [torch.tensor([1]), torch.tensor([[0]])]).numpy())
    np.testing.assert_array_equal(gg.eye(gg.tensor([2]), gg.tensor([[3]])).numpy(),
                                  torch.eye(torch.tensor([2]), torch.tensor([[3]])).numpy())
    with pytest.raises(TypeError):
        torch.ones(2).unsqueeze(torch.tensor([0]))
