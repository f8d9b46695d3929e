"""torch.diag_embed with dim1/dim2 anywhere in the result (rows along dim1, columns along dim2,
either order, negative dims) and any offset: values and gradients as PyTorch's; identical dims
and dims out of range raise as PyTorch's. Skipped when torch is not importable."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

_X = np.random.default_rng(9).standard_normal((2, 3, 5))


def _embed(lib, offset, dims):
    x = lib.tensor(_X, requires_grad=True)
    y = lib.diag_embed(x, offset, *dims)
    (y * lib.tensor(np.linspace(-1.0, 1.0, y.numel()).reshape(tuple(y.shape)))).sum().backward()
    return y.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("offset", [0, 2, -1])
@pytest.mark.parametrize("dims", [(-2, -1), (-1, -2), (0, 1), (1, 0), (0, 3), (2, 0), (1, -1)])
def test_diag_embed_dims_match_torch(offset, dims):
    for got, want in zip(_embed(gg, offset, dims), _embed(torch, offset, dims)):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dims", [(1, 1), (0, -4), (0, 4)])
def test_diag_embed_bad_dims_raise_as_torch(dims):
    with pytest.raises(Exception) as want:
        torch.diag_embed(torch.tensor(_X), 0, *dims)
    expected = IndexError if isinstance(want.value, IndexError) else RuntimeError
    with pytest.raises(expected):
        gg.diag_embed(gg.tensor(_X), 0, *dims)
