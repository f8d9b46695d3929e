"""The rest of PyTorch's tensor surface (issue 31, part 2) beyond what torch_surface_table.py
compares value by value: bad input raises where PyTorch's raises, with glassgrad's message naming
the op and a fix; in-place forms and views alias as PyTorch's; Python protocol behaviour
(iteration, `in`, reversed, @=) as PyTorch's."""
from __future__ import annotations

import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

# (name, fn of the module, inputs as arrays): PyTorch raises; glassgrad must raise too, saying fix:
BAD = [
    ("addcdiv-integers", lambda t, a: t.addcdiv(a.float(), a, a), [np.array([1, 2])]),
    ("quantile-int", lambda t, a: t.quantile(a, 0.5), [np.array([1, 2])]),
    ("quantile-q-out-of-range", lambda t, a: t.quantile(a, 1.5), [np.array([1.0, 2.0])]),
    ("quantile-bad-interpolation", lambda t, a: t.quantile(a, 0.5, interpolation="cubic"), [np.array([1.0, 2.0])]),
    ("cross-no-size-3", lambda t, a: t.cross(a, a), [np.ones((2, 4))]),
    ("cross-dims-differ", lambda t, a, b: t.cross(a, b, dim=-1), [np.ones((2, 3)), np.ones(3)]),
    ("cdist-1d", lambda t, a: t.cdist(a, a), [np.ones(3)]),
    ("cdist-columns", lambda t, a, b: t.cdist(a, b), [np.ones((2, 3)), np.ones((2, 4))]),
    ("unfold-too-large", lambda t, a: a.unfold(0, 5, 1), [np.ones(3)]),
    ("sum_to_size-not-expandable", lambda t, a: a.sum_to_size(3, 1), [np.ones((2, 3))]),
    ("scatter_reduce-bad-reduce", lambda t, a, i: a.scatter_reduce(0, i, a, "median"), [np.ones(3), np.array([0, 1, 2])]),
    ("scatter_reduce-dtypes", lambda t, a, i: a.scatter_reduce(0, i, a.double(), "sum"),
     [np.ones(3, np.float32), np.array([0, 1, 2])]),
    ("index_reduce-sum", lambda t, a, i: a.index_reduce(0, i, a, "sum"), [np.ones(3), np.array([0, 1, 2])]),
    ("index_copy-dtypes", lambda t, a, i: a.index_copy(0, i, a.double()), [np.ones(3, np.float32),
                                                                            np.array([0, 1, 2])]),
    ("masked_scatter-not-bool", lambda t, a, m: a.masked_scatter(m, a), [np.ones(3), np.array([1, 0, 1])]),
    ("put-sizes", lambda t, a, i: a.put(i, a), [np.ones(3), np.array([0, 1])]),
    ("fill_diagonal_-1d", lambda t, a: a.fill_diagonal_(1), [np.ones(3)]),
    ("fill_diagonal_-not-cube", lambda t, a: a.fill_diagonal_(1), [np.ones((2, 3, 3))]),
    ("bincount-negative", lambda t, a: t.bincount(a), [np.array([0, -1])]),
    ("bincount-2d", lambda t, a: t.bincount(a), [np.array([[0, 1]])]),
    ("histc-int", lambda t, a: t.histc(a), [np.array([0, 1])]),
    ("H-3d", lambda t, a: a.H, [np.ones((2, 2, 2))]),
    ("float << int", lambda t, a: a << 1, [np.ones(2)]),
    ("in-string", lambda t, a: "a" in a, [np.ones(2)]),
    ("iter-0d", lambda t, a: list(a), [np.array(1.0)]),
    ("renorm-p0", lambda t, a: a.renorm(0, 0, 1.0), [np.ones((2, 2))]),
    ("heaviside-dtypes", lambda t, a: t.heaviside(a, a.long()), [np.ones(2)]),
    ("hsplit-not-divisible", lambda t, a: t.hsplit(a, 2), [np.ones((2, 3))]),
    ("vsplit-1d", lambda t, a: t.vsplit(a, 1), [np.ones(3)]),
    ("rot90-same-dims", lambda t, a: t.rot90(a, 1, (1, 1)), [np.ones((2, 2))]),
    ("inner-mismatch", lambda t, a, b: t.inner(a, b), [np.ones((2, 3)), np.ones((2, 2))]),
    ("vdot-2d", lambda t, a: t.vdot(a, a), [np.ones((2, 2))]),
    ("is_nonzero-two", lambda t, a: a.is_nonzero(), [np.ones(2)]),
    ("resize-elements", lambda t, a: a.resize(4), [np.ones(6)]),
    ("resize_-requires-grad", lambda t, a: a.requires_grad_().resize_(3), [np.ones(2)]),
]


@pytest.mark.parametrize("name, fn, arrays", BAD, ids=[b[0] for b in BAD])
def test_bad_input_raises_as_torch_with_a_fix(name, fn, arrays):
    with pytest.raises((RuntimeError, TypeError, ValueError, IndexError)):
        fn(torch, *[torch.tensor(a) for a in arrays])
    with pytest.raises((gg.GlassgradError, TypeError)) as info:
        fn(gg, *[gg.tensor(a) for a in arrays])
    if isinstance(info.value, gg.GlassgradError):
        assert "fix:" in str(info.value), f"{name}: {info.value}"


def test_in_place_views_change_the_tensor_not_its_aliases():
    for lib in (gg, torch):
        x = lib.zeros(2, 3)
        alias = x.view(2, 3)
        assert x.t_() is x and tuple(x.shape) == (3, 2) and tuple(alias.shape) == (2, 3)
        x.swapdims_(0, 1)
        assert tuple(x.shape) == (2, 3)
        x.swapaxes_(1, 0)
        assert tuple(x.shape) == (3, 2)
        x[0, 1] = 5.0  # written through the transposed tensor: the alias sees it at [1, 0]
        assert alias[1, 0].item() == 5.0


def test_in_place_writes_reach_views_and_bases_as_torch():
    def run(lib):
        base = lib.zeros(4, 4)
        view = base[1:]
        view.fill_diagonal_(2.0)
        base.view(-1).put_(lib.tensor([0, 15]), lib.tensor([7.0, 8.0]))
        row = base[0]
        row.index_copy_(0, lib.tensor([3]), lib.tensor([9.0]))
        base.masked_scatter_(base == 0, lib.arange(1.0, 11.0))
        return base.numpy() if lib is gg else base.detach().numpy()
    np.testing.assert_array_equal(run(gg), run(torch))


def test_unfold_without_overlap_is_a_view():
    x = gg.zeros(7)
    windows = x.unfold(0, 2, 3)
    windows[1, 0] = 4.0
    assert x[3].item() == 4.0


def test_matmul_assignment_rebinds_as_torch():
    for lib in (gg, torch):
        a = lib.ones(2, 2)
        alias = a
        a @= lib.eye(2) * 2
        assert a is not alias and alias[0, 0].item() == 1.0 and a[0, 0].item() == 2.0


def test_iteration_len_reversed_and_in():
    x = gg.arange(6).reshape(2, 3)
    rows = list(x)
    assert len(rows) == len(x) == 2 and rows[1].tolist() == [3, 4, 5]
    assert reversed(x).tolist() == [[3, 4, 5], [0, 1, 2]]
    assert 4 in x and 9 not in x and gg.tensor([0, 1, 2]) in x
    assert list(reversed(gg.arange(3))) == [t for t in torch.arange(3).flip(0).tolist()]


def test_memory_attributes():
    x = gg.ones(2, 3, dtype=gg.float64)
    assert (x.nbytes, x.itemsize) == (48, 8)
    assert x.data_ptr() != 0 and x[1].data_ptr() - x.data_ptr() == 24
    assert x.is_shared() is False
    # Into shared memory on the CPU (test_shared_memory.py); a GPU tensor stays as it is, as PyTorch's.
    assert x.share_memory_() is x and x.is_shared() is (str(x.device) == "cpu")
    assert x.tolist() == [[1.0] * 3] * 2


def test_nan_to_num_in_place_top_level_and_bitwise_assignment():
    x = gg.tensor([float("nan"), 1.0])
    assert gg.nan_to_num_(x, nan=3.0) is x and x.tolist() == [3.0, 1.0]
    y = gg.tensor([3, -8])
    alias = y
    y <<= 2
    y >>= 1
    assert alias.tolist() == [6, -16]


def test_resize_and_resize_in_place_as_torch():
    def run(lib):
        x = lib.tensor(np.arange(6.0), requires_grad=True)
        with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
            y = x.resize(2, 3)
        y.sum().backward()
        z = lib.tensor(np.arange(6.0))
        alias = z.view(2, 3)
        same = z.resize_(3, 2)
        shrunk = lib.tensor(np.arange(6.0)).resize_(2, 2)
        w = lib.tensor(np.arange(6.0)).resize_as_(lib.ones(2, 3))
        return [y, x.grad, same, shrunk, w, alias.shape, same is z]
    got, want = run(gg), run(torch)
    for g, w in zip(got, want):
        if isinstance(g, gg.Tensor):
            np.testing.assert_array_equal(g.detach().numpy(), w.detach().numpy())
            assert tuple(g.shape) == tuple(w.shape)
        else:
            assert tuple(g) == tuple(w) if not isinstance(g, bool) else g == w
    grown = gg.tensor(np.arange(4.0)).resize_(2, 3)
    assert grown.shape == (2, 3) and grown.reshape(-1)[:4].tolist() == [0.0, 1.0, 2.0, 3.0]
