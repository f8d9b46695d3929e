"""A NumPy array as an operator's operand, as PyTorch treats it: x + a, x * a, x @ a, ... leave
the array to NumPy's reflected operator, which computes on np.asarray(x) with NumPy's promotion
and hands back a tensor (bool results as uint8); a + x and x < a are TypeErrors; x == a compares."""
import numpy as np
import pytest

import glassgrad as gg


def test_numpy_promotion_decides_the_dtype():
    x = gg.tensor([1.5, 2.5])
    assert (x + np.array([1, 2])).dtype == gg.float64  # float32 with int64 is float64 in NumPy
    assert (x + np.array([1.0, 2.0], np.float32)).dtype == gg.float32
    assert (x + np.array(2.0)).dtype == gg.float64  # a 0-d array is no weak scalar
    assert (x + np.float64(2.0)).dtype == gg.float32  # a NumPy scalar is one
    assert (x.to(gg.int8) + np.array([1, 2], np.uint8)).dtype == gg.int16
    assert (gg.tensor([1, 2]) + np.array([1.0, 2.0], np.float32)).dtype == gg.float64
    assert (x.half() + np.array([True, False])).dtype == gg.float16


def test_values_of_each_operator():
    x = gg.tensor([1.5, 2.5])
    a = np.array([1.0, 2.0])
    assert (x - a).tolist() == [0.5, 0.5]
    assert (x * a).tolist() == [1.5, 5.0]
    assert (x / a).tolist() == [1.5, 1.25]
    assert (x // a).tolist() == [1.0, 1.0]
    assert (x % a).tolist() == [0.5, 0.5]
    assert (x ** a).tolist() == [1.5, 6.25]
    y = x @ a
    assert y.dtype == gg.float64 and y.shape == () and y.item() == 6.5
    b = gg.tensor([True, False]) | np.array([True, True])
    assert b.dtype == gg.uint8 and b.tolist() == [1, 1]
    assert (gg.tensor([1, 2]) << np.array([1, 1])).tolist() == [2, 4]
    assert (x.reshape(2, 1) + a).tolist() == [[2.5, 3.5], [3.5, 4.5]]


def test_array_on_the_left_and_ordering_are_type_errors():
    x = gg.tensor([1.5, 2.5])
    a = np.array([1.0, 2.0])
    with pytest.raises(TypeError):
        a + x
    with pytest.raises(TypeError):
        a * x
    with pytest.raises(TypeError):
        x < a
    with pytest.raises(TypeError):
        x >= a
    assert (x == a).tolist() == [False, False] and (x != a).dtype == gg.bool
    # PyTorch's reflected division is self.reciprocal() * other
    r = a / x
    assert r.dtype == gg.float64
    np.testing.assert_allclose(r.numpy(), np.array([1.0, 2.0]) * (1 / np.array([1.5, 2.5], np.float32)), rtol=0)


def test_requires_grad_is_refused_and_augmented_assignment_rebinds():
    w = gg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="requires grad"):
        w + np.array([1.0, 2.0])
    x = gg.tensor([1.5, 2.5])
    y = x
    x += np.array([1.0, 2.0])  # not in place: Python falls back to x = x + a
    assert x.dtype == gg.float64 and x.tolist() == [2.5, 4.5]
    assert y.tolist() == [1.5, 2.5] and y.dtype == gg.float32


@pytest.mark.parametrize("expr", ["x + a", "x - ai", "x * a32", "x / ai", "x ** a", "x @ a", "x.half() + ai",
                                  "i + a32", "i // ai", "b | bb", "x == a", "a / x", "x + np.array(2.0)"])
def test_as_torch(expr):
    torch = pytest.importorskip("torch")
    arrays = {"a": np.array([1.0, 2.0]), "ai": np.array([1, 2]), "a32": np.array([1.0, 2.0], np.float32),
              "bb": np.array([True, False])}
    got, want = (eval(expr, {"np": np, **arrays, "x": lib.tensor([1.5, 2.5]), "i": lib.tensor([3, 4]),
                             "b": lib.tensor([False, True])}) for lib in (gg, torch))
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=0)


@pytest.mark.parametrize("expr", ["a + x", "a * x", "x < a", "a > x"])
def test_type_errors_as_torch(expr):
    torch = pytest.importorskip("torch")
    for lib in (gg, torch):
        with pytest.raises(TypeError):
            eval(expr, {"a": np.array([1.0, 2.0]), "x": lib.tensor([1.5, 2.5])})


@pytest.mark.parametrize("name", ["uint16", "uint32", "uint64", "complex64", "cfloat", "complex128", "cdouble",
                                  "chalf", "view_as_real", "view_as_complex", "polar", "complex"])
def test_left_out_dtypes_say_so(name):
    import glassgrad.torch as gt
    for module in (gg, gt):
        with pytest.raises(AttributeError, match=f"has no attribute '{name}': glassgrad has no"):
            getattr(module, name)
        assert not hasattr(module, name)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'$"):
        gg.no_such_name
