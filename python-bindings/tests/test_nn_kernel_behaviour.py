"""Behaviours of the pooling, batch-norm and softmax kernels that the op table's random inputs
do not pin down: tie and NaN rules, padding that never wins, stability at extreme values, and
results that do not depend on the number of threads."""
import numpy as np
import pytest

from glassgrad import _C
from glassgrad import kernels as K


def test_max_pool_gradient_goes_to_the_first_maximum_of_a_tie():
    x = np.array([[[[1.0, 5.0], [5.0, 5.0]]]])
    (dx,) = K.run_numpy("MaxPool2DBackward", np.ones((1, 1, 1, 1)), x, kernel=[2, 2])
    np.testing.assert_array_equal(dx[0, 0], [[0.0, 1.0], [0.0, 0.0]])


def test_max_pool_padding_never_wins_over_negative_values():
    x = -np.arange(1.0, 10.0).reshape(1, 1, 3, 3)
    (y,) = K.run_numpy("MaxPool2D", x, kernel=[2, 2], stride=[2, 2], padding=[1, 1])
    np.testing.assert_array_equal(y[0, 0], [[-1.0, -2.0], [-4.0, -5.0]])
    (dx,) = K.run_numpy("MaxPool2DBackward", np.ones_like(y), x, kernel=[2, 2], stride=[2, 2], padding=[1, 1])
    assert dx.sum() == 4.0  # every window's gradient lands on a real element


def test_max_pool_propagates_nan_like_pytorch():
    x = np.array([[[[1.0, np.nan], [3.0, 2.0]]]], np.float32)
    (y,) = K.run_numpy("MaxPool2D", x, kernel=[2, 2])
    assert np.isnan(y[0, 0, 0, 0])


def test_avg_pool_divisor_with_and_without_padding():
    x = np.ones((1, 1, 2, 2))
    (inc,) = K.run_numpy("AvgPool2D", x, kernel=[2, 2], stride=[1, 1], padding=[1, 1])
    (exc,) = K.run_numpy("AvgPool2D", x, kernel=[2, 2], stride=[1, 1], padding=[1, 1], count_include_pad=False)
    np.testing.assert_allclose(inc[0, 0], [[0.25, 0.5, 0.25], [0.5, 1.0, 0.5], [0.25, 0.5, 0.25]])
    np.testing.assert_allclose(exc[0, 0], np.ones((3, 3)))


def test_softmax_of_huge_logits_is_finite_and_sums_to_one():
    x = np.array([[1e4, 1e4 + 1.0, -1e4], [-1e30, 0.0, 1e30]], np.float32)
    (y,) = K.run_numpy("Softmax", x)
    assert np.all(np.isfinite(y))
    np.testing.assert_allclose(y.sum(axis=1), 1.0, rtol=1e-6)
    (ls,) = K.run_numpy("LogSoftmax", x)
    assert np.all(np.isfinite(ls[0]))


def test_cross_entropy_of_a_confident_correct_prediction_is_zero_not_nan():
    logits = np.array([[1e4, -1e4, 0.0]], np.float32)
    (loss,) = K.run_numpy("CrossEntropy", logits, np.array([0], np.int64))
    assert loss == 0.0


def test_batchnorm_variance_of_large_offset_float32_data_is_accurate():
    rng = np.random.default_rng(0)
    x = (1e4 + rng.standard_normal((64, 2, 8, 8))).astype(np.float32)
    _, mean, var = K.run_numpy("BatchNorm2DTrain", x, np.ones(2, np.float32), np.zeros(2, np.float32))
    np.testing.assert_allclose(var, x.astype(np.float64).var(axis=(0, 2, 3)), rtol=1e-5)


@pytest.fixture
def threads():
    before = _C.get_num_threads()
    yield
    _C.set_num_threads(0)
    assert _C.get_num_threads() == before


@pytest.mark.parametrize("op,make", [
    ("BatchNorm2DTrain", lambda r: [r.standard_normal((8, 4, 33, 33)).astype(np.float32),
                                    np.ones(4, np.float32), np.zeros(4, np.float32)]),
    ("CrossEntropy", lambda r: [r.standard_normal((4096, 17)).astype(np.float32),
                                r.integers(0, 17, 4096).astype(np.int64)]),
    ("MaxPool2D", lambda r: [r.standard_normal((8, 16, 17, 17)).astype(np.float32)]),
])
def test_results_do_not_depend_on_the_thread_count(op, make, threads):
    arrays = make(np.random.default_rng(3))
    attrs = {"kernel": [2, 2]} if op == "MaxPool2D" else {}
    _C.set_num_threads(1)
    one = K.run_numpy(op, *arrays, **attrs)
    _C.set_num_threads(4)
    four = K.run_numpy(op, *arrays, **attrs)
    for a, b in zip(one, four):
        np.testing.assert_array_equal(a, b)


def test_max_pool_matches_reference_over_many_window_geometries():
    """Interior windows take an unrolled path and border windows a clipped one; across window
    sizes, strides, paddings and input sizes both must pick the reference's element."""
    from op_specs.pool import max_pool2d_backward_ref, max_pool2d_ref
    rng = np.random.default_rng(11)
    for kh, kw in [(1, 1), (2, 2), (3, 3), (2, 3), (4, 4)]:
        for sh, sw in [(1, 1), (2, 2), (3, 1)]:
            for ph, pw in {(0, 0), (kh // 2, kw // 2)}:
                for h, w in [(kh, kw + 1), (kh + 4, kw + 5)]:
                    x = rng.integers(-2, 3, size=(2, 2, h, w)).astype(np.float64)  # many ties
                    attrs = {"kernel": [kh, kw], "stride": [sh, sw], "padding": [ph, pw]}
                    want = max_pool2d_ref(x, **attrs)
                    (got,) = K.run_numpy("MaxPool2D", x, **attrs)
                    np.testing.assert_array_equal(got, want, err_msg=str(attrs))
                    g = rng.standard_normal(want.shape)
                    (dx,) = K.run_numpy("MaxPool2DBackward", g, x, **attrs)
                    np.testing.assert_allclose(dx, max_pool2d_backward_ref(g, x, **attrs), rtol=1e-12, atol=1e-12,
                                               err_msg=str(attrs))
