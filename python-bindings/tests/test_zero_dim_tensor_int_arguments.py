"""A 0-d integer tensor where an int is expected reads as the int it holds, as PyTorch's argument
parser reads it (x.topk(k), torch.eye(n), x.sum(dim), x.view(n), torch.Size([n, 3]) with k, n, dim
tensors, e.g. a length computed as a tensor); a float tensor there is still refused (TypeError)."""
import numpy as np
import pytest

import glassgrad as gg

X = np.arange(6.0, dtype=np.float32).reshape(2, 3)
T = gg.tensor


def test_dims_and_counts():
    x = gg.tensor(X)
    assert x.sum(T(1)).tolist() == [3.0, 12.0]
    assert x.unsqueeze(T(0)).shape == (1, 2, 3)
    assert x.transpose(T(0), 1).shape == (3, 2)
    assert x.topk(T(2)).values.tolist() == [[2.0, 1.0], [5.0, 4.0]]
    assert x.select(1, T(1)).tolist() == [1.0, 4.0]
    assert x.narrow(1, T(1), 2).tolist() == [[1.0, 2.0], [4.0, 5.0]]
    assert [t.shape for t in x.chunk(T(2), 1)] == [(2, 2), (2, 1)]
    assert [t.shape for t in x.split(T(2), 1)] == [(2, 2), (2, 1)]
    assert x.roll(T(1), 1).tolist() == [[2.0, 0.0, 1.0], [5.0, 3.0, 4.0]]
    assert x.view(T(6)).shape == (6,)
    assert x.view(T(3), -1).shape == (3, 2)


def test_factories_and_sizes():
    assert gg.eye(T(2)).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert sorted(gg.randperm(T(4)).tolist()) == [0, 1, 2, 3]
    assert set(gg.randint(T(3), (20,)).tolist()) <= {0, 1, 2}
    assert gg.Size([T(2), 3]) == (2, 3) and type(gg.Size([T(2), 3])[0]) is int
    assert gg.nn.functional.pad(gg.tensor(X), (T(1), 0)).shape == (2, 4)
    assert gg.nn.functional.interpolate(gg.tensor(X)[None], size=T(5)).shape == (1, 2, 5)


def test_float_tensors_are_still_refused():
    x = gg.tensor(X)
    with pytest.raises(TypeError):
        x.topk(T(2.0))
    with pytest.raises(TypeError):
        x.sum(T(1.0))
    with pytest.raises(TypeError):
        gg.Size([T(2.0)])


CALLS = [
    lambda lib, x: x.sum(lib.tensor(1)), lambda lib, x: x.topk(lib.tensor(2)).indices,
    lambda lib, x: x.split(lib.tensor(2), 1)[1], lambda lib, x: x.roll(lib.tensor(1), lib.tensor(0)),
    lambda lib, x: lib.eye(lib.tensor(3)), lambda lib, x: x.view(lib.tensor(3), lib.tensor(2)),
    lambda lib, x: lib.nn.functional.interpolate(x[None], size=lib.tensor(4)),
    lambda lib, x: list(lib.Size([lib.tensor(2), lib.tensor(5)])),
]


@pytest.mark.parametrize("i", range(len(CALLS)))
def test_as_torch(i):
    torch = pytest.importorskip("torch")
    want, got = (CALLS[i](lib, lib.tensor(X)) for lib in (torch, gg))
    if isinstance(want, list):
        assert got == want
    else:
        np.testing.assert_array_equal(got.numpy(), want.numpy())
