"""glassgrad.Tensor: creation, dtypes, views, indexing, arithmetic and reductions against NumPy."""
import numpy as np
import pytest

import glassgrad as gg


def test_tensor_from_python_numbers_uses_float32_and_int64():
    assert gg.tensor([1.5, 2.0]).dtype == "float32"
    assert gg.tensor([1, 2]).dtype == "int64"
    assert gg.tensor(np.zeros(3, np.float64)).dtype == "float64"
    assert gg.tensor([True, False]).dtype == "bool"


def test_int32_arrays_keep_their_dtype_as_in_pytorch():
    t = gg.tensor(np.arange(4, dtype=np.int32))
    assert t.dtype == gg.int32 and t.numpy().dtype == np.int32 and t.tolist() == [0, 1, 2, 3]


def test_explicit_dtype_converts():
    t = gg.tensor(np.arange(4, dtype=np.int32), dtype="int64")
    assert t.dtype == "int64" and t.numpy().tolist() == [0, 1, 2, 3]


def test_batch_slice_is_a_view_sharing_storage():
    x = gg.tensor(np.arange(100 * 3, dtype=np.float32).reshape(100, 3))
    b = x[32:64]
    assert b.shape == (32, 3)
    raw, base = b._raw(), x._raw()
    assert raw.storage_ptr == base.storage_ptr
    assert raw.offset == 32 * 3
    assert b.is_leaf  # taken eagerly: no graph node, no copy
    np.testing.assert_array_equal(b.numpy(), x.numpy()[32:64])


def test_short_last_batch_is_clamped_like_python():
    x = gg.tensor(np.zeros((10, 2), np.float32))
    assert x[8:8 + 32].shape == (2, 2)


@pytest.mark.parametrize("index", [np.s_[1], np.s_[-1, 2], np.s_[:, ::2], np.s_[1:3, None, 1], np.s_[..., 0],
                                   np.s_[::3, 1:]])
def test_indexing_matches_numpy(index):
    a = np.arange(4 * 5, dtype=np.float32).reshape(4, 5)
    np.testing.assert_array_equal(gg.tensor(a)[index].numpy(), a[index])


def test_index_out_of_range_names_size_and_fix():
    with pytest.raises(IndexError) as e:
        gg.tensor(np.zeros((3, 2), np.float32))[5]
    assert "size 3" in str(e.value) and "fix:" in str(e.value)


def test_negative_step_reverses_like_numpy():
    x = np.arange(5, dtype=np.float32)
    np.testing.assert_array_equal(gg.tensor(x)[::-1].numpy(), x[::-1])
    np.testing.assert_array_equal(gg.tensor(x)[3:0:-2].numpy(), x[3:0:-2])


def test_arithmetic_with_broadcasting_matches_numpy(rng):
    a = rng.standard_normal((4, 1, 3)).astype(np.float32)
    b = rng.standard_normal((2, 3)).astype(np.float32)
    ta, tb = gg.tensor(a), gg.tensor(b)
    for got, want in [(ta + tb, a + b), (ta - tb, a - b), (ta * tb, a * b), (ta / (tb.abs() + 1), a / (np.abs(b) + 1)),
                      (2 - ta, 2 - a), (ta * 3, a * 3), (1 / (ta.abs() + 1), 1 / (np.abs(a) + 1)),
                      (ta ** 2, a ** 2), (-ta, -a)]:
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1e-6)


def test_comparisons_give_bool_and_mean_of_float_is_accuracy():
    pred = gg.tensor(np.array([1, 2, 3, 4]))
    labels = gg.tensor(np.array([1, 0, 3, 0]))
    eq = pred == labels
    assert eq.dtype == "bool"
    assert eq.float().mean().item() == pytest.approx(0.5)


def test_reductions_match_numpy(rng):
    a = rng.standard_normal((3, 4, 5)).astype(np.float32)
    t = gg.tensor(a)
    np.testing.assert_allclose(t.sum().item(), a.sum(), rtol=1e-5)
    np.testing.assert_allclose(t.mean(dim=1).numpy(), a.mean(1), rtol=1e-5)
    np.testing.assert_allclose(t.var(dim=(0, 2)).numpy(), a.var((0, 2), ddof=1), rtol=1e-5)
    np.testing.assert_array_equal(t.argmax(dim=2).numpy(), a.argmax(2))
    values, indices = t.max(dim=1)
    np.testing.assert_allclose(values.numpy(), a.max(1))
    np.testing.assert_array_equal(indices.numpy(), a.argmax(1))
    assert t.argmax().item() == a.argmax()


def test_shape_ops_match_numpy(rng):
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    t = gg.tensor(a)
    np.testing.assert_array_equal(t.reshape(6, -1).numpy(), a.reshape(6, -1))
    np.testing.assert_array_equal(t.permute(2, 0, 1).numpy(), a.transpose(2, 0, 1))
    np.testing.assert_array_equal(t.T.numpy(), a.T)
    np.testing.assert_array_equal(gg.flatten(t).numpy(), a.reshape(2, 12))
    np.testing.assert_array_equal(t.transpose(0, 2).reshape(-1).numpy(), a.transpose(2, 1, 0).reshape(-1))


def test_reshape_with_wrong_size_names_both_shapes():
    with pytest.raises(gg.ShapeError) as e:
        gg.tensor(np.zeros((2, 3), np.float32)).reshape(4, 2)
    assert "[2, 3]" in str(e.value) and "[4, 2]" in str(e.value)


def test_item_on_many_elements_explains():
    with pytest.raises(gg.GlassgradError) as e:
        gg.tensor(np.zeros(3, np.float32)).item()
    assert "mean().item()" in str(e.value)


def test_mixed_dtypes_promote_as_pytorch_does():
    # PyTorch's type promotion (docs/porting.md): the wider float wins, integers never truncate a float
    assert (gg.tensor(np.zeros(3, np.float32)) + gg.tensor(np.zeros(3, np.float64))).dtype == "float64"
    assert (gg.tensor([1, 2]) / 2).tolist() == [0.5, 1.0]
    assert (gg.tensor([1, 2]) * 2.5).dtype == "float32"


def test_shapes_are_known_before_anything_runs():
    x = gg.tensor(np.zeros((8, 3), np.float32))
    y = (x * 2).sum(dim=1, keepdim=True)
    assert y.shape == (8, 1) and not y._h.realized


def test_repr_realizes_and_prints_values():
    assert "1.5" in repr(gg.tensor([1.5, 2.0]))


def test_repr_says_requires_grad_for_a_leaf_and_grad_fn_for_a_computed_tensor():
    leaf = gg.tensor([1.0, 2.0], requires_grad=True)
    assert repr(leaf) == "tensor([1., 2.], requires_grad=True)"
    assert repr(leaf * leaf) == "tensor([1., 4.], grad_fn=<MulBackward0>)"
    assert repr((leaf * leaf).detach()) == "tensor([1., 4.])"
    with gg.no_grad():
        assert repr(leaf * leaf) == "tensor([1., 4.])"
