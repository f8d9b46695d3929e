"""Tensor methods that take their sequence argument spread over the call, as PyTorch's do
(x.squeeze(0, 2), x.count_nonzero(0, 1), x.hsplit(1, 3), x.vsplit(1), x.dsplit(1, 2),
x.broadcast_to(2, 3), besides x.flip(0, 1) and x.tile(2, 1)), or as one sequence or by keyword;
and the empty-input rules of split (an empty dim is one empty piece) and quantile (an empty input
is PyTorch's RuntimeError). Torch-free checks first, then the same calls against PyTorch where it
is installed."""
import numpy as np
import pytest

import glassgrad as gg


def test_squeeze_takes_dims_spread_over_the_call():
    x = gg.ones(1, 2, 1, requires_grad=True)
    assert x.squeeze(0, 2).shape == (2,) and x.squeeze((0, 2)).shape == (2,) and x.squeeze(dim=(0, 2)).shape == (2,)
    assert type(x.squeeze(0, 2).grad_fn).__name__ == "SqueezeBackward2"
    assert type(x.squeeze(0).grad_fn).__name__ == "SqueezeBackward1"
    assert x.squeeze().shape == (2,)
    y = gg.ones(1, 2, 1)
    assert y.squeeze_(0, 2) is y and y.shape == (2,)
    with pytest.raises(RuntimeError, match="appears multiple times"):
        x.squeeze(0, -3)
    with pytest.raises(TypeError, match="multiple values for argument 'dim'"):
        x.squeeze(0, dim=2)


def test_count_nonzero_takes_dims_spread_over_the_call():
    x = gg.tensor([[0.0, 1.0, 2.0], [3.0, 0.0, 5.0]])
    assert x.count_nonzero(0, 1).item() == 4 and x.count_nonzero((0, 1)).item() == 4
    assert x.count_nonzero(0).tolist() == [1, 1, 2] and x.count_nonzero(dim=1).tolist() == [2, 2]
    assert x.count_nonzero().item() == 4
    with pytest.raises(RuntimeError):
        x.count_nonzero(0, -2)


def test_hsplit_vsplit_dsplit_take_indices_spread_over_the_call():
    x = gg.tensor(np.arange(16.0).reshape(4, 4))
    pieces = x.hsplit(1, 3)
    assert [p.shape for p in pieces] == [(4, 1), (4, 2), (4, 1)]
    assert pieces[1].tolist() == np.arange(16.0).reshape(4, 4)[:, 1:3].tolist()
    assert [p.shape for p in x.hsplit((1, 3))] == [(4, 1), (4, 2), (4, 1)]
    assert [p.shape for p in x.hsplit(indices=[1])] == [(4, 1), (4, 3)]
    assert [p.shape for p in x.hsplit(sections=2)] == [(4, 2), (4, 2)]
    assert [p.shape for p in x.vsplit(1, 2)] == [(1, 4), (1, 4), (2, 4)]
    assert [p.shape for p in gg.ones(2, 2, 4).dsplit(1, 2)] == [(2, 2, 1), (2, 2, 1), (2, 2, 2)]
    with pytest.raises(RuntimeError, match="at least 3 dimension"):
        x.dsplit(1, 2)
    with pytest.raises(RuntimeError, match="at least 1 dimension"):
        gg.tensor(1.0).hsplit(1, 2)
    with pytest.raises(TypeError, match="multiple values"):
        x.hsplit(1, sections=2)


def test_broadcast_to_takes_sizes_spread_over_the_call():
    t = gg.tensor([1.0, 2.0, 3.0])
    assert t.broadcast_to(2, 3).tolist() == [[1.0, 2.0, 3.0]] * 2
    assert t.broadcast_to((2, 3)).shape == (2, 3) and t.broadcast_to(size=[2, 3]).shape == (2, 3)
    assert gg.tensor(1.0).broadcast_to(2, 1).shape == (2, 1)
    with pytest.raises(RuntimeError):
        t.broadcast_to(2, 2)


def test_flip_and_tile_keep_their_forms():
    x = gg.tensor([[1, 2], [3, 4]])
    assert x.flip(0, 1).tolist() == [[4, 3], [2, 1]] == x.flip((0, 1)).tolist() == x.flip(dims=[0, 1]).tolist()
    assert x.tile(2, 1).shape == (4, 2) and x.tile((1, 2)).shape == (2, 4)
    with pytest.raises(TypeError):
        x.flip()


def test_split_of_an_empty_dim_is_one_empty_piece():
    e = gg.zeros(0, 3, requires_grad=True)
    pieces = e.split(2)
    assert [p.shape for p in pieces] == [(0, 3)]
    assert type(pieces[0].grad_fn).__name__ == "SplitBackward0"
    assert [p.shape for p in gg.split(e, 2)] == [(0, 3)] and [p.shape for p in e.unsafe_split(2)] == [(0, 3)]
    assert [p.shape for p in e.split(0)] == [(0, 3)]
    assert [p.shape for p in e.split(2, 1)] == [(0, 2), (0, 1)]
    with pytest.raises(RuntimeError, match="split_size can only be 0 if dimension size is 0, but got dimension size "
                                           "of 2"):
        gg.ones(2).split(0)
    with pytest.raises(RuntimeError, match="split expects split_size be non-negative, but got split_size=-1"):
        gg.ones(2).split(-1)


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
def test_quantile_of_an_empty_input_is_refused(name):
    with pytest.raises(RuntimeError, match=r"quantile\(\) input tensor must be non-empty"):
        getattr(gg.zeros(0, 3), name)(0.5, 1)
    with pytest.raises(RuntimeError, match=r"quantile\(\) input tensor must be non-empty"):
        getattr(gg, name)(gg.zeros(0, dtype=gg.int64), 0.5)  # before the dtype check, as PyTorch


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
def test_quantile_of_a_0d_input_keeps_no_dim(name):
    # PyTorch: keepdim keeps the input's dims, and a 0-d input has none (q's dim stays)
    assert getattr(gg, name)(gg.tensor(3.0), 0.5, dim=0, keepdim=True).shape == ()
    assert getattr(gg, name)(gg.tensor(3.0), gg.tensor([0.5, 0.7]), dim=0, keepdim=True).shape == (2,)
    assert getattr(gg, name)(gg.ones(2, 3), gg.tensor([0.5, 0.7]), dim=1, keepdim=True).shape == (2, 2, 1)


CASES = {
    "squeeze(0, 2)": lambda m: m.ones(1, 2, 1).squeeze(0, 2),
    "squeeze(0, -3)": lambda m: m.ones(1, 2, 1).squeeze(0, -3),
    "squeeze_(0, 2)": lambda m: m.ones(1, 2, 1).squeeze_(0, 2),
    "count_nonzero(0, 1)": lambda m: m.tensor([[0.0, 1.0], [2.0, 0.0]]).count_nonzero(0, 1),
    "count_nonzero(0, 0)": lambda m: m.tensor([[0.0, 1.0], [2.0, 0.0]]).count_nonzero(0, 0),
    "hsplit(1, 3)": lambda m: m.arange(16.0).reshape(4, 4).hsplit(1, 3),
    "hsplit(2, 1)": lambda m: m.arange(16.0).reshape(4, 4).hsplit(2, 1),
    "vsplit(1, 2)": lambda m: m.arange(16.0).reshape(4, 4).vsplit(1, 2),
    "dsplit(1, 2)": lambda m: m.arange(16.0).reshape(2, 2, 4).dsplit(1, 2),
    "dsplit of 2-d": lambda m: m.ones(2, 2).dsplit(1, 2),
    "broadcast_to(2, 3)": lambda m: m.tensor([1.0, 2.0, 3.0]).broadcast_to(2, 3),
    "broadcast_to(2, 2)": lambda m: m.tensor([1.0, 2.0, 3.0]).broadcast_to(2, 2),
    "split of empty": lambda m: m.zeros(0, 3).split(2),
    "split(0) of empty": lambda m: m.zeros(0, 3).split(0),
    "split(0)": lambda m: m.ones(2).split(0),
    "quantile of empty": lambda m: m.zeros(0, 3).quantile(0.5, 1),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_same_outcome_as_pytorch(case):
    torch = pytest.importorskip("torch")
    from sweep_outcomes import assert_same_outcome
    assert_same_outcome(CASES[case], gg, torch)
