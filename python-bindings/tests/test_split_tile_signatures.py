"""Signatures PyTorch's overloads accept, found by a differential sweep: Tensor.tile takes its
dims as separate ints too (x.tile(2, 1)); tensor_split takes sections=, indices= and
tensor_indices_or_sections= keywords; chunk of an empty dim returns a tuple like every other
chunk. Expected values are PyTorch's."""
import pytest

import glassgrad as gg


def test_tile_method_takes_separate_ints():
    x = gg.arange(3)
    assert x.tile(2, 1).tolist() == [[0, 1, 2], [0, 1, 2]]
    assert x.tile(2).tolist() == [0, 1, 2, 0, 1, 2]
    assert x.tile((2, 1)).shape == (2, 3) and x.tile(dims=[2]).shape == (6,)
    assert gg.tile(x, (2, 1)).shape == (2, 3)
    with pytest.raises(TypeError):
        gg.tile(x, 2, 1)   # torch.tile takes one sequence


@pytest.mark.parametrize("call,expected", [
    (lambda x: x.tensor_split(sections=2), [[0, 1, 2], [3, 4, 5]]),
    (lambda x: x.tensor_split(indices=[1]), [[0], [1, 2, 3, 4, 5]]),
    (lambda x: gg.tensor_split(x, indices=(2, 4), dim=0), [[0, 1], [2, 3], [4, 5]]),
    (lambda x: gg.tensor_split(x, tensor_indices_or_sections=gg.tensor(3)), [[0, 1], [2, 3], [4, 5]]),
    (lambda x: gg.tensor_split(x.reshape(2, 3), sections=3, dim=1), [[[0], [3]], [[1], [4]], [[2], [5]]]),
])
def test_tensor_split_keywords(call, expected):
    pieces = call(gg.arange(6))
    assert isinstance(pieces, tuple) and [p.tolist() for p in pieces] == expected


def test_tensor_split_takes_its_pieces_once():
    with pytest.raises(TypeError):
        gg.arange(6).tensor_split()
    with pytest.raises(TypeError):
        gg.arange(6).tensor_split(2, sections=2)


def test_chunk_of_an_empty_dim_is_a_tuple():
    pieces = gg.chunk(gg.arange(0), 2)
    assert isinstance(pieces, tuple) and len(pieces) == 2 and all(p.shape == (0,) for p in pieces)
    pieces = gg.zeros(2, 0).chunk(3, 1)
    assert isinstance(pieces, tuple) and [p.shape for p in pieces] == [(2, 0)] * 3


def test_against_torch():
    torch = pytest.importorskip("torch")
    for fw in (torch, gg):
        x = fw.arange(6)
        assert x.tile(2, 1).tolist() == [[0, 1, 2, 3, 4, 5]] * 2
        assert [p.tolist() for p in x.tensor_split(sections=4)] == [[0, 1], [2, 3], [4], [5]]
        assert [p.tolist() for p in x.tensor_split(indices=[1, 5])] == [[0], [1, 2, 3, 4], [5]]
        assert type(fw.chunk(fw.arange(0), 2)) is tuple
