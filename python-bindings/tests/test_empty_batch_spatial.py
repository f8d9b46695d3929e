"""A batch of 0 through unfold / fold, grid_sample (every mode, 4-D and 5-D) and max_unpool: PyTorch
returns the empty result of the batch's shape (and empty gradients), as a batch of 0 through a
convolution does (docs/porting.md, "What maps to what"); a reshape with -1 is ambiguous there."""
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F


def test_unfold_and_fold_of_an_empty_batch():
    assert F.unfold(gg.zeros(0, 3, 4, 4), 2).shape == (0, 12, 9)
    assert F.unfold(gg.zeros(0, 3, 4, 4), 2, padding=1, stride=2).shape == (0, 12, 9)
    assert F.fold(gg.zeros(0, 12, 9), (4, 4), 2).shape == (0, 3, 4, 4)
    assert F.fold(gg.zeros(0, 12, 25), (4, 4), 2, padding=1).shape == (0, 3, 4, 4)


def test_unfold_and_fold_gradients_of_an_empty_batch():
    x = gg.zeros(0, 3, 4, 4, requires_grad=True)
    F.unfold(x, 2).sum().backward()
    assert x.grad.shape == (0, 3, 4, 4)
    cols = gg.zeros(0, 12, 9, requires_grad=True)
    F.fold(cols, (4, 4), 2).sum().backward()
    assert cols.grad.shape == (0, 12, 9)


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_grid_sample_of_an_empty_batch(mode):
    x = gg.zeros(0, 3, 4, 4, requires_grad=True)
    grid = gg.zeros(0, 2, 5, 2, requires_grad=True)
    out = F.grid_sample(x, grid, mode=mode, align_corners=False)
    assert out.shape == (0, 3, 2, 5)
    out.sum().backward()
    assert x.grad.shape == (0, 3, 4, 4) and grid.grad.shape == (0, 2, 5, 2)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_grid_sample_of_an_empty_grid(mode):
    assert F.grid_sample(gg.ones(2, 3, 4, 4), gg.zeros(2, 0, 2, 2), mode=mode, align_corners=False).shape == (2, 3, 0, 2)


def test_grid_sample_5d_of_an_empty_batch():
    assert F.grid_sample(gg.zeros(0, 3, 4, 4, 4), gg.zeros(0, 2, 2, 2, 3), align_corners=False).shape == (0, 3, 2, 2, 2)


def test_grid_sample_values_are_unchanged():
    x = gg.arange(32.).reshape(2, 1, 4, 4)
    grid = gg.tensor([[[[0.1, 0.2]]], [[[-0.5, 0.7]]]])
    # PyTorch's values for this input and grid
    assert F.grid_sample(x, grid, align_corners=True).flatten().tolist() == pytest.approx([8.85, 26.95], abs=1e-4)
    assert F.grid_sample(x, grid, mode="bicubic", align_corners=False).flatten().tolist() == pytest.approx(
        [9.114, 32.5872], abs=1e-3)


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_max_unpool_of_an_empty_batch(dims):
    shape = (0, 3) + (4,) * dims
    pool = getattr(gg.nn, f"MaxPool{dims}d")(2, return_indices=True)
    unpool = getattr(gg.nn, f"MaxUnpool{dims}d")(2)
    assert unpool(*pool(gg.zeros(shape))).shape == shape


def test_torch_agrees():
    torch = pytest.importorskip("torch")
    assert tuple(torch.nn.functional.unfold(torch.zeros(0, 3, 4, 4), 2).shape) == (0, 12, 9)
    assert tuple(torch.nn.functional.grid_sample(torch.zeros(0, 3, 4, 4), torch.zeros(0, 2, 5, 2),
                                                 align_corners=False).shape) == (0, 3, 2, 5)
    pooled = torch.nn.MaxPool2d(2, return_indices=True)(torch.zeros(0, 3, 4, 4))
    assert tuple(torch.nn.MaxUnpool2d(2)(*pooled).shape) == (0, 3, 4, 4)
