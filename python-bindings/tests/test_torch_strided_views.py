"""torch.as_strided (a view where the strides have a block structure, a copy otherwise, with
PyTorch's values and gradients either way), Tensor.as_strided_, as_strided_copy,
as_strided_scatter, diagonal_scatter and the view-copy functions (view_copy, permute_copy, ...),
each against PyTorch on random float64 data of odd sizes."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.torch as gtorch
from torch_compare import compare

torch = pytest.importorskip("torch")

# (size, stride, storage_offset) over a storage of 23 elements: re-stridings, transposes, a
# diagonal, overlapping windows, stride 0, size 1 and size 0 dims, blocks past the end
CASES = [((3, 4), (4, 1), 0), ((4, 3), (1, 4), 0), ((3,), (5,), 0), ((5,), (5,), 2), ((2, 2), (1, 4), 1),
         ((3, 2), (2, 1), 0), ((5, 3), (2, 1), 0), ((2, 3, 2), (6, 1, 3), 0), ((2, 3), (0, 1), 2),
         ((1, 3), (7, 2), 1), ((3, 1, 2), (4, 9, 1), 1), ((0, 3), (1, 1), 0), ((), (), 5), ((2, 2, 2), (4, 2, 1), 3),
         ((7,), (3,), 3), ((3, 3), (3, 1), 14), ((2, 5), (9, 2), 4), (( 4, 4), (5, 1), 1), ((3, 7), (1, 1), 0)]


@pytest.mark.parametrize("size,stride,offset", CASES)
def test_as_strided_matches_torch(size, stride, offset):
    a = np.random.default_rng(len(CASES)).standard_normal(23)
    compare(lambda x: gtorch.as_strided(x, size, stride, offset), lambda x: torch.as_strided(x, size, stride, offset),
            [a], (0,))
    compare(lambda x: x.as_strided(size, stride, offset), lambda x: x.as_strided(size, stride, offset), [a], (0,))
    compare(lambda x: gtorch.as_strided_copy(x, size, stride, offset),
            lambda x: torch.as_strided_copy(x, size, stride, offset), [a], (0,))


@pytest.mark.parametrize("view", ["rows", "columns", "transpose", "step"])
@pytest.mark.parametrize("grad", [False, True])
def test_as_strided_of_a_view_reads_the_base_storage(view, grad):
    a = np.random.default_rng(4).standard_normal((4, 5))
    pick = {"rows": lambda z: z[1:], "columns": lambda z: z[:, 1:], "transpose": lambda z: z.t(),
            "step": lambda z: z[::2]}[view]
    x, t = gg.tensor(a, requires_grad=grad), torch.tensor(a, requires_grad=grad)
    for size, stride, offset in (((2, 2), (3, 1), None), ((3,), (6,), 2)):
        y, u = pick(x).as_strided(size, stride, offset), pick(t).as_strided(size, stride, offset)
        np.testing.assert_array_equal(y.detach().numpy(), u.detach().numpy())
    if grad:
        (y * gg.tensor([1.0, 2.0, 3.0])).sum().backward()
        (u * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())


def test_writes_reach_the_input_through_a_block_view():
    for lib in (gg, torch):
        x = lib.arange(12.0)
        x.as_strided((2, 3), (1, 2)).fill_(-1.0)  # columns of a transposed (3, 2) block
        x.as_strided((3,), (5,)).mul_(10.0)       # a diagonal of the (3, 4) matrix ... and past
        if lib is gg:
            ours = x.numpy()
        else:
            np.testing.assert_array_equal(ours, x.numpy())


def test_as_strided_in_place():
    for lib in (gg, torch):
        y = lib.arange(12.0).reshape(3, 4)
        assert y.as_strided_((2, 2), (1, 4), 1) is y
        assert tuple(y.shape) == (2, 2)
        if lib is gg:
            ours = y.numpy()
        else:
            np.testing.assert_array_equal(ours, y.numpy())
    with pytest.raises(RuntimeError, match="leaf Variable"):
        gg.randn(3, requires_grad=True).as_strided_((3,), (1,))


@pytest.mark.parametrize("lib", [gtorch, torch], ids=["glassgrad", "torch"])
def test_as_strided_errors(lib):
    x = lib.arange(12.0)
    for call, text in ((lambda: lib.as_strided(x, (3, 5), (4, 1)), "out of bounds for storage of size 48"),
                       (lambda: lib.as_strided(x, (3,), (-1,)), "Negative strides"),
                       (lambda: lib.as_strided(x, (3, 2), (1,)), "mismatch in length"),
                       (lambda: lib.as_strided(x, (3,), (1,), -1), "invalid storage offset")):
        with pytest.raises(RuntimeError, match=text):
            call()
    with pytest.raises(TypeError, match="tuple of ints"):
        lib.as_strided(x, (2, 2), (2.5, 1))


def test_as_strided_scatter_matches_torch():
    """Values and src's gradient are PyTorch's. input's gradient is the gradient with the written
    positions zeroed (they no longer depend on input), as diagonal_scatter's and slice_scatter's
    are in PyTorch; torch 2.14's as_strided_scatter gives input the gradient at exactly those
    positions instead, so input's is checked against NumPy."""
    rng = np.random.default_rng(8)
    a, s = rng.standard_normal((3, 5)), rng.standard_normal((3, 2))
    for stride, offset in (((4, 1), 1), ((5, 2), 0), ((1, 3), 2)):
        compare(lambda x, y: gtorch.as_strided_scatter(x, y, (3, 2), stride, offset),
                lambda x, y: torch.as_strided_scatter(x, y, (3, 2), stride, offset), [a, s], (1,))
        x, y = gg.tensor(a, requires_grad=True), gg.tensor(s, requires_grad=True)
        g = rng.standard_normal((3, 5))
        (x.as_strided_scatter(y, (3, 2), stride, offset) * gg.tensor(g)).sum().backward()
        written = np.zeros(15, dtype=bool)
        written[offset + np.add.outer(np.arange(3) * stride[0], np.arange(2) * stride[1]).ravel()] = True
        np.testing.assert_array_equal(x.grad.numpy(), np.where(written.reshape(3, 5), 0.0, g))
    compare(lambda x, y: gtorch.as_strided_scatter(x, y, (3, 3), (4, 1)),
            lambda x, y: torch.as_strided_scatter(x, y, (3, 3), (4, 1)), [a, s], (0, 1))


def test_diagonal_scatter_matches_torch():
    rng = np.random.default_rng(9)
    a = rng.standard_normal((3, 5, 4))
    for offset, d1, d2 in ((0, 0, 1), (1, 1, 2), (-2, 2, 0), (2, -1, -3)):
        n = torch.tensor(a).diagonal(offset, d1, d2).shape
        s = rng.standard_normal(tuple(n))
        compare(lambda x, y: gtorch.diagonal_scatter(x, y, offset, d1, d2),
                lambda x, y: torch.diagonal_scatter(x, y, offset, d1, d2), [a, s], (0, 1))
        compare(lambda x, y: x.diagonal_scatter(y, offset, d1, d2),
                lambda x, y: x.diagonal_scatter(y, offset, d1, d2), [a, s], (0, 1))
    with pytest.raises(RuntimeError, match="size equal"):
        gtorch.diagonal_scatter(gg.tensor(a), gg.ones(7))


SINGLE = [("view_copy", ((5, 6),)), ("permute_copy", ((2, 0, 1),)), ("transpose_copy", (0, 2)), ("t_copy", None),
          ("expand_copy", ((2, 3, 5, 2),)), ("diagonal_copy", (1, 1, 2)), ("select_copy", (1, -2)),
          ("slice_copy", (2, 0, None, 2)), ("squeeze_copy", ()), ("unsqueeze_copy", (1,)),
          ("unfold_copy", (1, 2, 1)), ("alias_copy", ()), ("detach_copy", ())]


@pytest.mark.parametrize("name,args", SINGLE, ids=[n for n, _ in SINGLE])
def test_view_copies_match_torch(name, args):
    a = np.random.default_rng(10).standard_normal((3, 5, 2) if args is not None else (3, 5))
    if name == "squeeze_copy":
        a = a.reshape(3, 1, 5, 2)
    grads = () if name == "detach_copy" else (0,)
    compare(lambda x: getattr(gtorch, name)(x, *(args or ())), lambda x: getattr(torch, name)(x, *(args or ())), [a],
            grads)
    x = gg.tensor(a)
    y = getattr(gtorch, name)(x, *(args or ()))
    y.add_(1.0)  # a buffer of its own: input is unchanged
    np.testing.assert_array_equal(x.numpy(), a)


@pytest.mark.parametrize("name,args", [("split_copy", (2, 1)), ("split_with_sizes_copy", ([1, 3, 1], 1)),
                                       ("unbind_copy", (1,))])
def test_piecewise_copies_match_torch(name, args):
    a = np.random.default_rng(12).standard_normal((3, 5))
    ours, theirs = getattr(gtorch, name)(gg.tensor(a), *args), getattr(torch, name)(torch.tensor(a), *args)
    assert isinstance(ours, tuple) and len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        np.testing.assert_array_equal(o.numpy(), t.numpy())
    for i in range(len(theirs)):
        compare(lambda x: getattr(gtorch, name)(x, *args)[i], lambda x: getattr(torch, name)(x, *args)[i], [a], (0,))


def test_top_level_as_strided_():
    y = gg.arange(12.0)
    assert gtorch.as_strided_(y, (3, 2), (4, 1), 1) is y and y.tolist() == [[1.0, 2.0], [5.0, 6.0], [9.0, 10.0]]
