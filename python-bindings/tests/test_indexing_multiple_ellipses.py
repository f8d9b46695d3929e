"""Indexing with more than one ellipsis, as PyTorch takes it (NumPy refuses it; PyTorch keeps it,
pytorch/pytorch#59787): every '...' stands for the dims the other items leave unnamed, so the
first one skips them all and the later ones skip past the last dim, which is dropped:
x[..., 1, ...] is x[..., 1], x[1, ..., ...] is x[1], x[..., None, ...] is x[..., None]. An item
after an ellipsis that would reach beyond the last dim is an IndexError (x[..., 1, ..., 2] on a
3-d tensor). Expected values are NumPy's single-ellipsis equivalents."""
import numpy as np
import pytest

import glassgrad as gg

E = Ellipsis
X = np.arange(120.0).reshape(2, 3, 4, 5)
# (key with several ellipses, the single-ellipsis key PyTorch reads it as)
SAME_AS = [((E, 1, E), (E, 1)), ((E, E), (E,)), ((1, E, E), (1,)), ((E, None, E), (E, None)),
           ((E, 0, 0, E), (E, 0, 0)), ((E, slice(1, 3), E), (E, slice(1, 3))), ((E, [0, 1], E), (E, [0, 1])),
           ((E, 1, E, 1, E, 1, E, 1), (1, 1, 1, 1))]
REACH_TOO_FAR = [(E, 1, E, 2), (E, 0, E, 0, E), (0, E, E, 1), (E, E, E, E, 0)]


@pytest.mark.parametrize("key,single", SAME_AS)
def test_several_ellipses_read_as_one(key, single):
    got = gg.tensor(X)[key]
    np.testing.assert_array_equal(got.numpy(), X[single])


@pytest.mark.parametrize("key", REACH_TOO_FAR)
def test_item_beyond_the_last_dim_is_an_index_error(key):
    with pytest.raises(IndexError, match="ellipses"):
        gg.tensor(X)[key]


def test_write_and_gradient_through_several_ellipses():
    x = gg.zeros(2, 3)
    x[..., 1, ...] = 5.0
    np.testing.assert_array_equal(x.numpy(), [[0, 5, 0], [0, 5, 0]])
    w = gg.zeros(2, 3, requires_grad=True)
    (w[..., 1, ...] * gg.tensor([2.0, 3.0])).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [[0, 2, 0], [0, 3, 0]])


@pytest.mark.parametrize("key", [k for k, _ in SAME_AS] + REACH_TOO_FAR)
def test_matches_torch(key):
    torch = pytest.importorskip("torch")
    try:
        want = torch.tensor(X)[key].numpy()
    except IndexError:
        with pytest.raises(IndexError):
            gg.tensor(X)[key]
        return
    np.testing.assert_array_equal(gg.tensor(X)[key].numpy(), want)
