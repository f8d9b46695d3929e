"""MatMul beyond the op table: strided views read in place, and the messages of its errors."""
import numpy as np
import pytest

import glassgrad
from glassgrad import _C
import glassgrad.kernels as K


def _run(a, b, scope=""):
    return _C.run_op("MatMul", [a, b], {}, scope)[0].numpy()


def test_matmul_reads_transposed_expanded_and_sliced_views():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((40, 33))
    b = rng.standard_normal((40, 57))
    ta = _C.Tensor.from_numpy(a).transpose(0, 1)          # [33, 40], strides (1, 33)
    tb = _C.Tensor.from_numpy(b)
    assert not ta.is_contiguous()
    np.testing.assert_allclose(_run(ta, tb), a.T @ b, rtol=1e-12, atol=1e-12)
    # A batch axis stretched by expand has stride 0: every product reuses the same matrix.
    eb = tb.expand([3, 40, 57])
    assert eb.strides[0] == 0
    np.testing.assert_allclose(_run(ta, eb), np.broadcast_to(a.T @ b, (3, 33, 57)), rtol=1e-12, atol=1e-12)
    # Every other column: no unit stride anywhere in b.
    sb = _C.Tensor.from_numpy(b).slice(1, 0, 57, 2)
    np.testing.assert_allclose(_run(ta, sb), a.T @ b[:, ::2], rtol=1e-12, atol=1e-12)


def test_matmul_large_product_matches_numpy_in_float32():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((300, 257)).astype(np.float32)
    b = rng.standard_normal((257, 1000)).astype(np.float32)
    (got,) = K.run_numpy("MatMul", a, b)
    want = (a.astype(np.float64) @ b.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)


def _error(a_shape, b_shape, a_dtype=np.float32, b_dtype=np.float32, scope="fc1"):
    a = np.zeros(a_shape, a_dtype)
    b = np.zeros(b_shape, b_dtype)
    with pytest.raises(glassgrad.GlassgradError) as info:
        K.run_numpy("MatMul", a, b) if not scope else _C.run_op(
            "MatMul", [_C.Tensor.from_numpy(a), _C.Tensor.from_numpy(b)], {}, scope)
    return info


def test_matmul_inner_size_mismatch_suggests_transposing_b():
    info = _error((4, 3), (5, 3))
    assert info.type is glassgrad.ShapeError and issubclass(info.type, ValueError)
    msg = str(info.value)
    assert msg.startswith("MatMul 'fc1': inner sizes differ: a is [4, 3] and b is [5, 3]")
    assert "a: [4, 3] float32 cpu" in msg and "b: [5, 3] float32 cpu" in msg
    assert "fix: did you mean b.T?" in msg


def test_matmul_inner_size_mismatch_suggests_transposing_a():
    msg = str(_error((2, 7, 3), (2, 7, 5)).value)
    assert "inner sizes differ: a is [..., 7, 3] and b is [..., 7, 5]" in msg
    assert "fix: did you mean a.T?" in msg


def test_matmul_inner_size_mismatch_without_a_transpose_that_fits():
    msg = str(_error((4, 3), (5, 6)).value)
    assert "a @ b needs a's last size (3) to equal b's second-to-last size (5)" in msg
    assert "fix: reshape or transpose one side" in msg


def test_matmul_rejects_vectors_with_the_reshape_that_fixes_them():
    msg = str(_error((4,), (4, 3)).value)
    assert "needs matrices (rank >= 2), but a has shape [4]" in msg
    assert "fix: a.reshape(1, -1)" in msg
    msg = str(_error((2, 4), (4,)).value)
    assert "fix: b.reshape(-1, 1)" in msg


def test_matmul_batch_axes_that_do_not_broadcast():
    msg = str(_error((2, 4, 3), (3, 3, 2)).value)
    assert "batch axes [2] and [3] cannot be broadcast together" in msg
    assert "fix:" in msg


def test_matmul_mixed_dtypes_are_a_dtype_error():
    info = _error((2, 3), (3, 2), np.float32, np.float64)
    assert info.type is glassgrad.DTypeError and issubclass(info.type, TypeError)
    assert "different dtypes: float32 and float64" in str(info.value)


def test_matmul_integer_inputs_are_a_dtype_error():
    info = _error((2, 3), (3, 2), np.int64, np.int64)
    assert info.type is glassgrad.DTypeError
    assert "expected a float32 or float64 tensor, got int64" in str(info.value)
