"""torch.cat and torch.stack as one Concat node (families/movement.def): values, gradients,
promotion, many pieces, and a new tensor every time (PyTorch's documented behaviour)."""
import numpy as np
import pytest

import glassgrad as gg


def test_cat_of_pieces_of_different_lengths_matches_numpy_and_each_piece_gets_its_gradient():
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((2, n, 3)) for n in (4, 1, 3)]
    xs = [gg.tensor(a, requires_grad=True) for a in arrays]
    y = gg.cat(xs, dim=1)
    np.testing.assert_array_equal(y.detach().numpy(), np.concatenate(arrays, axis=1))
    w = rng.standard_normal(y.shape)
    (y * gg.tensor(w)).sum().backward()
    start = 0
    for a, x in zip(arrays, xs):
        np.testing.assert_array_equal(x.grad.numpy(), w[:, start:start + a.shape[1]])
        start += a.shape[1]


def test_cat_records_one_node_for_many_pieces():
    xs = [gg.full((2, 3), float(i)) for i in range(64)]
    gg.realize(*xs)
    y = gg.cat(xs, 0)
    ops = [step["op"] for step in gg.debug.explain(y).steps]
    assert ops == ["Concat"], ops
    np.testing.assert_array_equal(y.numpy(), np.repeat(np.arange(64.0), 2)[:, None].repeat(3, 1).astype(np.float32))


def test_more_pieces_than_one_node_takes_join_in_groups_with_gradients():
    arrays = [np.full((1, 2), float(i)) for i in range(600)]
    xs = [gg.tensor(a, requires_grad=True) for a in arrays]
    y = gg.cat(xs)
    np.testing.assert_array_equal(y.detach().numpy(), np.concatenate(arrays))
    (y * gg.arange(600.0, dtype=gg.float64).reshape(600, 1)).sum().backward()
    for i in (0, 255, 256, 599):
        np.testing.assert_array_equal(xs[i].grad.numpy(), [[float(i), float(i)]])


def test_stack_of_many_rows_matches_numpy_along_each_dim():
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal((3, 4)).astype(np.float32) for _ in range(40)]
    for dim in (0, 1, 2, -1):
        np.testing.assert_array_equal(gg.stack([gg.tensor(a) for a in arrays], dim).numpy(),
                                      np.stack(arrays, axis=dim))


@pytest.mark.parametrize("dtypes, want", [
    (("int64", "float32"), "float32"),
    (("bool", "int64"), "int64"),
    (("bool", "bool"), "bool"),
    (("float32", "float64"), "float64"),
    (("uint8", "int64"), "int64"),
])
def test_cat_promotes_as_torch_cat(dtypes, want):
    xs = [gg.ones(2, dtype=getattr(gg, d)) for d in dtypes]
    y = gg.cat(xs)
    assert str(y.dtype).endswith(want)
    np.testing.assert_array_equal(y.numpy(), np.ones(4, dtype=want))


def test_cat_of_one_piece_is_a_new_tensor():
    x = gg.zeros(3)
    y = gg.cat([x])
    y.add_(1.0)
    np.testing.assert_array_equal(x.numpy(), np.zeros(3, dtype=np.float32))
    np.testing.assert_array_equal(y.numpy(), np.ones(3, dtype=np.float32))


def test_cat_with_empty_pieces_keeps_their_dtype_in_the_result():
    y = gg.cat([gg.ones(2, 0, dtype=gg.float64), gg.ones(2, 3)], dim=1)
    assert y.dtype == gg.float64 and tuple(y.shape) == (2, 3)
    y = gg.cat([gg.ones(2, 2), gg.zeros(0)])  # a 1-d empty tensor joins any shape, as nothing
    assert tuple(y.shape) == (2, 2)


def test_cat_refuses_shapes_that_differ_outside_dim_naming_both():
    with pytest.raises(gg.ShapeError, match=r"tensor 1 has shape \[2, 4\].*\[2, 3\]"):
        gg.cat([gg.ones(2, 3), gg.ones(2, 4)], 0)


def test_cat_writes_into_out():
    out = gg.empty(4)
    gg.cat([gg.ones(2), gg.zeros(2)], out=out)
    np.testing.assert_array_equal(out.numpy(), [1, 1, 0, 0])


@pytest.mark.cuda
def test_cat_and_stack_on_cuda_match_the_cpu_with_gradients():
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal((3, n, 5)).astype(np.float32) for n in (7, 1, 300)]
    for device in ("cpu", "cuda"):
        xs = [gg.tensor(a, device=device, requires_grad=True) for a in arrays]
        y = gg.cat([x[:, :, 1:4] for x in xs], dim=1)  # strided pieces
        s = gg.stack([x[:, :1] for x in xs], dim=-1)
        (y.sum() + (s * 2).sum()).backward()
        if device == "cpu":
            want = (y.detach().cpu().numpy(), s.detach().cpu().numpy(), [x.grad.cpu().numpy() for x in xs])
    np.testing.assert_array_equal(y.detach().cpu().numpy(), want[0])
    np.testing.assert_array_equal(s.detach().cpu().numpy(), want[1])
    for g, w in zip([x.grad.cpu().numpy() for x in xs], want[2]):
        np.testing.assert_array_equal(g, w)


@pytest.mark.cuda
def test_cat_refuses_pieces_on_two_devices():
    with pytest.raises(gg.DeviceError, match="one device"):
        gg.cat([gg.ones(2, device="cpu"), gg.ones(2, device="cuda")])


# ---- the gradient of a value cut into pieces: one Concat (gradients.cpp, join_placed) ----------
def _backward_ops(t):
    return [step["op"] for step in gg.debug.explain(t).steps]


def test_the_gradient_of_split_pieces_is_one_concat_of_their_gradients():
    rng = np.random.default_rng(4)
    X, A, B, C = (rng.standard_normal((3, 6)) for _ in range(4))
    x = gg.tensor(X, requires_grad=True)
    q, k, v = x.split(2, dim=1)
    ((q * gg.tensor(A[:, :2])).sum() + (k * gg.tensor(B[:, 2:4])).sum() + (v * gg.tensor(C[:, 4:])).sum()).backward()
    ops = _backward_ops(x.grad)
    assert "Concat" in ops and "SliceBackward" not in ops, ops
    np.testing.assert_array_equal(x.grad.numpy(), np.concatenate([A[:, :2], B[:, 2:4], C[:, 4:]], axis=1))


def test_pieces_with_gaps_between_them_get_zeros_there():
    x = gg.tensor(np.ones((2, 7)), requires_grad=True)
    (x[:, 0:2].sum() * 2 + x[:, 5:6].sum() * 3).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[2, 2, 0, 0, 0, 3, 0]] * 2)


def test_overlapping_and_strided_pieces_still_add():
    x = gg.tensor(np.ones((2, 6)), requires_grad=True)
    (x[:, 0:4].sum() + x[:, 2:6].sum() * 10 + x[:, ::2].sum() * 100).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[101, 1, 111, 11, 110, 10]] * 2)


def test_chunk_and_unbind_gradients_match_finite_differences():
    def f(x):
        a, b, c, d = x.chunk(4, dim=-1)  # an LSTM's gates
        rows = x.unbind(0)
        return (a.sigmoid() * c.tanh() + b * d).sum() + (rows[0] * rows[2]).sum()
    assert gg.debug.gradcheck(f, [np.random.default_rng(6).standard_normal((3, 8))])
