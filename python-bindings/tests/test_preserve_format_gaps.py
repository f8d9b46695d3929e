"""clone, the *_like factories and Tensor.to(dtype) of a tensor with gaps or expanded (stride 0)
dims lay the copy out as PyTorch's infer_dense_strides does: dims sorted by stride as
TensorIterator sorts them, an expanded dim keeping its place (docs/porting.md, "Memory formats").
So the copy of an expand, and x.unsqueeze(1).repeat(...) (a clone of an expanded view), are
row-major and .view() takes them, as PyTorch's; a transposed slice stays transposed. Torch-free:
strides PyTorch gives, written out."""
import numpy as np

import glassgrad as gg

X = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)


def test_a_repeat_of_an_unsqueezed_tensor_is_row_major_and_views():
    r = gg.tensor(X).unsqueeze(1).repeat(1, 2, 1, 1)
    assert r.stride() == (24, 12, 4, 1) and r.is_contiguous()
    np.testing.assert_array_equal(r.view(4, 3, 4).numpy(), np.repeat(X, 2, axis=0))


def test_the_copy_of_an_expand_is_row_major():
    e = gg.tensor(X[:, :1]).expand(2, 3, 4)
    assert e.stride() == (4, 0, 1)
    for copy in (e.clone(), gg.empty_like(e), gg.zeros_like(e), e.to(gg.float64)):
        assert copy.stride() == (12, 4, 1)
    np.testing.assert_array_equal(e.clone().numpy(), np.broadcast_to(X[:, :1], (2, 3, 4)))
    assert gg.tensor(X[0, :1]).expand(3, 4).t().clone().stride() == (3, 1)


def test_a_transposed_slice_stays_transposed():
    m = gg.tensor(X[0]).t()[::2]  # (2, 3), strides (2, 4)
    c = m.clone()
    assert c.stride() == (1, 2)
    np.testing.assert_array_equal(c.numpy(), X[0].T[::2])
