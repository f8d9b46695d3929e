"""glassgrad.sparse (torch.sparse's COO layout) against a NumPy reference, float64 finite
differences for the values and the dense operand of sparse.mm, and PyTorch when installed."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.torch as torch_like
from glassgrad._finite_differences import central_differences

pytestmark = pytest.mark.usefixtures("on_the_cpu")

IDX = np.array([[0, 1, 1, 2, 0, 3], [2, 0, 2, 1, 2, 3]], dtype=np.int64)  # (0, 2) twice
SIZE = (4, 4)


def dense_of(idx, vals, size):
    out = np.zeros(size, dtype=np.float64)
    np.add.at(out, tuple(idx), vals)
    return out


def test_construction_coalesce_and_to_dense_match_numpy():
    vals = np.arange(1.0, 7.0)
    s = torch_like.sparse_coo_tensor(IDX, vals, SIZE, dtype=gg.float64)
    assert s.is_sparse and s.layout is gg.sparse_coo and s._nnz() == 6 and not s.is_coalesced()
    np.testing.assert_array_equal(s.to_dense().numpy(), dense_of(IDX, vals, SIZE))
    with pytest.raises(RuntimeError, match="coalesce"):
        s.values()
    c = s.coalesce()
    assert c.is_coalesced() and c._nnz() == 5
    np.testing.assert_array_equal(c.indices().numpy(), [[0, 1, 1, 2, 3], [2, 0, 2, 1, 3]])
    np.testing.assert_array_equal(c.values().numpy(), [6.0, 2, 3, 4, 6])
    np.testing.assert_array_equal(s.t().to_dense().numpy(), dense_of(IDX, vals, SIZE).T)
    d = gg.tensor(dense_of(IDX, vals, SIZE))
    assert d.layout is gg.strided and not d.is_sparse
    np.testing.assert_array_equal(d.to_sparse().to_dense().numpy(), d.numpy())
    assert torch_like.sparse.sum(s).item() == 21.0
    np.testing.assert_array_equal(torch_like.sparse.sum(s, 1).to_dense().numpy(), dense_of(IDX, vals, SIZE).sum(1))


def test_mm_spmm_matmul_and_at_match_numpy():
    rng = np.random.default_rng(0)
    vals, x = rng.standard_normal(6), rng.standard_normal((4, 3))
    s = gg.sparse_coo_tensor(IDX, gg.tensor(vals), SIZE)
    want = dense_of(IDX, vals, SIZE) @ x
    for got in (gg.sparse.mm(s, gg.tensor(x)), gg.spmm(s, gg.tensor(x)), gg.mm(s, gg.tensor(x)),
                gg.matmul(s, gg.tensor(x)), s @ gg.tensor(x)):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    dense_s = dense_of(IDX, vals, SIZE)
    np.testing.assert_allclose((gg.tensor(x.T) @ s).numpy(), x.T @ dense_s, rtol=1e-12)
    np.testing.assert_allclose(gg.mm(s, s).numpy(), dense_s @ dense_s, rtol=1e-12)
    np.testing.assert_allclose((gg.eye(4, dtype=gg.float64) + s).numpy(), np.eye(4) + dense_s)
    np.testing.assert_allclose((s + s).to_dense().numpy(), 2 * dense_s)
    with pytest.raises(NotImplementedError, match="to_dense"):
        s.exp()


def test_mm_gradients_for_values_and_dense_are_finite_differences():
    rng = np.random.default_rng(1)
    vals, x, w = rng.standard_normal(6), rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    v_t, x_t = gg.tensor(vals, requires_grad=True), gg.tensor(x, requires_grad=True)
    (gg.sparse.mm(gg.sparse_coo_tensor(IDX, v_t, SIZE), x_t) * gg.tensor(w)).sum().backward()

    def value(arrays):
        return float(((dense_of(IDX, arrays[0], SIZE) @ arrays[1]) * w).sum())
    np.testing.assert_allclose(v_t.grad.numpy(), central_differences(value, [vals, x], 0, 1e-6), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(x_t.grad.numpy(), central_differences(value, [vals, x], 1, 1e-6), rtol=1e-6, atol=1e-8)


def test_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    vals, x = rng.standard_normal(6), rng.standard_normal((4, 3))
    ts = torch.sparse_coo_tensor(torch.from_numpy(IDX), torch.from_numpy(vals), SIZE).coalesce()
    gs = gg.sparse_coo_tensor(IDX, gg.tensor(vals), SIZE).coalesce()
    np.testing.assert_array_equal(gs.indices().numpy(), ts.indices().numpy())
    np.testing.assert_allclose(gs.values().numpy(), ts.values().numpy())
    np.testing.assert_allclose(gg.sparse.mm(gs, gg.tensor(x)).numpy(),
                               torch.sparse.mm(ts, torch.from_numpy(x)).numpy(), rtol=1e-12)


def test_legacy_sparse_constructors_warn_and_build_coo_tensors():
    # torch.sparse.FloatTensor(indices, values, shape), as graph scripts build an adjacency
    vals = np.arange(1.0, 7.0, dtype=np.float32)
    with pytest.warns(UserWarning, match=r"torch.sparse.SparseTensor\(indices, values, shape, \*, device=\) is "
                                         r"deprecated.  Please use torch.sparse_coo_tensor"):
        s = torch_like.sparse.FloatTensor(torch_like.from_numpy(IDX), torch_like.from_numpy(vals), torch_like.Size(SIZE))
    assert s.is_sparse and s.dtype == gg.float32 and tuple(s.shape) == SIZE and not s.is_coalesced()
    np.testing.assert_array_equal(s.to_dense().numpy(), dense_of(IDX, vals, SIZE))
    np.testing.assert_allclose(torch_like.spmm(s, gg.ones(4, 2)).numpy(), dense_of(IDX, vals, SIZE) @ np.ones((4, 2)))
    assert isinstance(s, torch_like.sparse.FloatTensor) and not isinstance(s, torch_like.sparse.DoubleTensor)
    assert not isinstance(gg.zeros(2), torch_like.sparse.FloatTensor)
    # values keep their dtype (the class names only the empty forms' dtype); size from the indices
    with pytest.warns(UserWarning, match=r"SparseTensor\(indices, values, \*, device=\)"):
        inferred = torch_like.sparse.DoubleTensor(gg.tensor(IDX), gg.tensor([1, 2, 3, 4, 5, 6]))
    assert inferred.dtype == gg.int64 and tuple(inferred.shape) == (4, 4)
    with pytest.warns(UserWarning, match=r"SparseTensor\(shape, \*, device=\)"):
        empty = torch_like.sparse.LongTensor(2, 3)
    assert empty.dtype == gg.int64 and tuple(empty.shape) == (2, 3) and empty._nnz() == 0
    with pytest.warns(UserWarning, match=r"SparseTensor\(shape, \*, device=\)"):
        assert tuple(torch_like.sparse.FloatTensor((5, 2)).shape) == (5, 2)
    with pytest.warns(UserWarning, match=r"SparseTensor\(\) is deprecated"):
        none = torch_like.sparse.FloatTensor()
    assert tuple(none.shape) == (0,) and none.dtype == gg.float32


def test_legacy_sparse_constructors_refuse_other_arguments_with_the_forms():
    with pytest.raises(TypeError, match=r"got \(list\)(.|\n)*tuple of ints size(.|\n)*fix: torch.sparse_coo_tensor"):
        torch_like.sparse.FloatTensor([[1.0, 2.0]])
    with pytest.raises(TypeError, match=r"got \(Tensor\)"):
        torch_like.sparse.FloatTensor(gg.tensor(IDX))
    with pytest.raises(TypeError, match="'size' must be a tuple of ints"):
        torch_like.sparse.FloatTensor(gg.tensor(IDX), gg.ones(6), gg.tensor([4, 4]))


class _SparseTimesDense(gg.autograd.Function):
    """A sparse [n, n] matrix built from (indices, values) times a dense one, the gradient of the
    values read back through the saved sparse tensor's _indices(), as graph attention scripts
    write it."""

    @staticmethod
    def forward(ctx, indices, values, shape, b):
        a = gg.sparse_coo_tensor(indices, values, shape)
        ctx.save_for_backward(a, b)
        ctx.N = shape[0]
        return gg.matmul(a, b)

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        edge = a._indices()[0, :] * ctx.N + a._indices()[1, :]
        grad_values = grad_output.matmul(b.t()).view(-1)[edge]
        return None, grad_values, None, a.t().matmul(grad_output)


def test_a_function_saves_a_sparse_tensor_and_reads_its_raw_indices_and_values():
    rng = np.random.default_rng(3)
    vals, x, w = rng.standard_normal(6), rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    s = gg.sparse_coo_tensor(IDX, gg.tensor(vals), SIZE)
    # _indices() and _values() are the stored entries, uncoalesced ones too (indices() refuses those)
    np.testing.assert_array_equal(s._indices().numpy(), IDX)
    np.testing.assert_array_equal(s._values().numpy(), vals)
    np.testing.assert_allclose(s.mm(gg.tensor(x)).numpy(), dense_of(IDX, vals, SIZE) @ x, rtol=1e-12)
    np.testing.assert_allclose(s.matmul(gg.tensor(x)).numpy(), dense_of(IDX, vals, SIZE) @ x, rtol=1e-12)
    v_t, x_t = gg.tensor(vals, requires_grad=True), gg.tensor(x, requires_grad=True)
    out = _SparseTimesDense.apply(gg.tensor(IDX), v_t, SIZE, x_t)
    (out * gg.tensor(w)).sum().backward()

    def value(arrays):
        return float(((dense_of(IDX, arrays[0], SIZE) @ arrays[1]) * w).sum())
    np.testing.assert_allclose(v_t.grad.numpy(), central_differences(value, [vals, x], 0, 1e-6), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(x_t.grad.numpy(), central_differences(value, [vals, x], 1, 1e-6), rtol=1e-6, atol=1e-8)


def test_save_for_backward_still_refuses_what_is_no_tensor():
    class Saves(gg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x * 2

    with pytest.raises(TypeError, match="argument 1 is of type int"):
        Saves.apply(gg.ones(2, requires_grad=True))
