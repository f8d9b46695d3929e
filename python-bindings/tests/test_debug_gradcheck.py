"""gradcheck: backward() gradients against central finite differences in float64."""
import numpy as np
import pytest

import glassgrad
from glassgrad import debug


def test_gradcheck_accepts_a_correct_layer_with_a_tensor_output(rng):
    def layer(x, w, b):  # a small conv layer with a smooth activation
        return glassgrad.tanh(glassgrad.conv2d(x, w, b, padding=1))

    inputs = [rng.standard_normal((2, 2, 4, 4)), rng.standard_normal((3, 2, 3, 3)), rng.standard_normal(3)]
    assert debug.gradcheck(layer, inputs) is True


def test_gradcheck_accepts_a_scalar_function_of_float32_inputs(rng):
    # float32 inputs are checked in float64: fn receives float64 tensors.
    seen = []

    def fn(a, b):
        seen.append((a.dtype, b.dtype))
        return (a @ b.T).sigmoid().mean()

    assert debug.gradcheck(fn, [rng.standard_normal((3, 4)).astype(np.float32),
                                glassgrad.tensor(rng.standard_normal((5, 4)).astype(np.float32))])
    assert set(seen) == {("float64", "float64")}


def test_gradcheck_finds_a_wrong_gradient_and_names_the_worst_element(rng):
    # A "custom layer" with a bug: detach() hides one factor from backward, so the gradient of
    # sum(x * x) comes out as x instead of 2 x.
    def square(x):
        return (x.detach() * x).sum()

    x = np.array([[0.5, -2.0], [1.0, 3.0]])
    with pytest.raises(debug.GradcheckError) as e:
        debug.gradcheck(square, [x])
    msg = str(e.value)
    assert msg.startswith("gradcheck: the gradient of input 0 [2, 2] differs from finite differences at 4 of 4 "
                          "elements")
    assert "worst element [1, 1]: backward() gives 3, finite differences give 6" in msg
    assert "cause:" in msg and "fix:" in msg
    assert isinstance(e.value, AssertionError) and isinstance(e.value, glassgrad.GlassgradError)


def test_gradcheck_checks_only_the_requested_inputs(rng):
    def fn(x, y):
        return (x.detach() * x).sum() + (y * y).sum()

    x, y = rng.standard_normal(3), rng.standard_normal(3)
    assert debug.gradcheck(fn, [x, y], wrt=[1])
    with pytest.raises(debug.GradcheckError, match="input 0"):
        debug.gradcheck(fn, [x, y])


def test_gradcheck_refuses_integer_inputs_and_non_float64_results(rng):
    with pytest.raises(glassgrad.DTypeError, match=r"input of dtype int64 \[3\] cannot be differentiated"):
        debug.gradcheck(lambda y: y.sum(), [np.arange(3)])
    with pytest.raises(glassgrad.DTypeError, match=r"fn returned glassgrad.float32"):
        debug.gradcheck(lambda x: x.float().sum(), [rng.standard_normal(3)])
