"""print_tensor_stats and check_nan_gradients (docs/debugging.md section 2)."""
import numpy as np
import pytest

import glassgrad
from glassgrad import debug


def test_print_tensor_stats_prints_shape_dtype_device_moments_and_nonfinite_counts(capsys):
    t = glassgrad.tensor(np.array([[1.0, 2.0, np.nan], [3.0, np.inf, -np.inf]], np.float32), name="acts")
    stats = glassgrad.print_tensor_stats(t)
    line = capsys.readouterr().out.strip()
    assert line == "acts: [2, 3] float32 cpu  min 1 max 3 mean 2 std 0.816497  nan 1 inf 2 (+inf 1, -inf 1)"
    assert stats["nan"] == 1 and stats["pos_inf"] == 1 and stats["neg_inf"] == 1 and stats["finite"] == 3
    assert stats["min"] == 1.0 and stats["max"] == 3.0 and stats["mean"] == 2.0


def test_tensor_stats_matches_numpy_on_a_computed_non_contiguous_tensor(rng):
    a = rng.standard_normal((5, 7))
    t = (glassgrad.tensor(a) * 2.0).T  # float64, a pending computation, then a transposed view
    s = debug.tensor_stats(t)
    ref = (2 * a).T
    assert s["shape"] == (7, 5) and s["dtype"] == "float64" and s["device"] == "cpu"
    np.testing.assert_allclose([s["min"], s["max"], s["mean"], s["std"]],
                               [ref.min(), ref.max(), ref.mean(), ref.std()], rtol=1e-12)


def test_print_tensor_stats_of_int32_labels_shows_the_dtype_glassgrad_refuses(capsys):
    y = np.array([3, 1, 4, 1, 5], np.int32)
    glassgrad.print_tensor_stats(y, name="y")
    assert capsys.readouterr().out.strip() == "y: [5] int32 cpu (numpy)  min 1 max 5 mean 2.8 std 1.6  nan 0 inf 0"


def test_print_tensor_stats_of_an_empty_tensor(capsys):
    glassgrad.print_tensor_stats(glassgrad.zeros(0, 3), name="e")
    assert capsys.readouterr().out.strip() == "e: [0, 3] float32 cpu  empty  nan 0 inf 0"


class TwoLayers(glassgrad.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = glassgrad.Linear(3, 4)
        self.fc2 = glassgrad.Linear(4, 2)

    def forward(self, x):
        return self.fc2(glassgrad.relu(self.fc1(x)))


def test_check_nan_gradients_passes_for_finite_gradients_and_counts_them():
    model = TwoLayers()
    loss = model(glassgrad.ones(2, 3)).sum()
    loss.backward()
    assert glassgrad.check_nan_gradients(model.parameters()) == 4
    assert debug.check_nan_gradients(model) == 4


def test_check_nan_gradients_names_each_bad_parameter_with_its_counts():
    model = glassgrad.Sequential(glassgrad.Linear(3, 4), glassgrad.Linear(4, 2))
    x = glassgrad.tensor(np.array([[1.0, 2.0, 3.0], [np.nan, 0.0, 0.0]], np.float32))
    model(x).sum().backward()
    with pytest.raises(debug.NonFiniteError) as e:
        glassgrad.check_nan_gradients(model.parameters())
    lines = str(e.value).splitlines()
    # h = x W1^T + b1 has a NaN row, so dW2 = g^T h is all NaN and dW1 = (g W2)^T x has a NaN
    # column (x's NaN feature); the biases' gradients sum g and g W2 only: finite.
    assert lines[0] == "non-finite gradients in 2 of 4 parameters"
    assert lines[1] == "  0.weight [4, 3] float32 cpu: 4 NaN, 0 Inf of 12 gradient values; the finite ones: " + \
        lines[1].split("the finite ones: ")[1]
    assert lines[2].startswith("  1.weight [2, 4] float32 cpu: 8 NaN, 0 Inf of 8 gradient values")
    assert lines[3].startswith("  cause:") and lines[4].startswith("  fix:")
    assert "detect_anomaly" in lines[4] and "clip_grad_norm_" in lines[4]


def test_check_nan_gradients_counts_match_numpy():
    w = glassgrad.nn.Parameter(np.ones(4, np.float32), name="w")
    scale = glassgrad.tensor(np.array([np.inf, 1.0, np.nan, 2.0], np.float32))
    (w * scale).sum().backward()
    with pytest.raises(FloatingPointError, match=r"w \[4\] float32 cpu: 1 NaN, 1 Inf of 4 gradient values; "
                                                 r"the finite ones: min 1 max 2"):
        glassgrad.check_nan_gradients([w])


def test_check_nan_gradients_says_when_the_parameter_itself_is_already_nan():
    w = glassgrad.nn.Parameter(np.array([np.nan, 1.0], np.float32), name="w")
    (w * 2.0).sum().backward()
    (w * w).sum().backward()
    with pytest.raises(debug.NonFiniteError, match=r"the parameter itself already holds 1 NaN, 0 Inf"):
        glassgrad.check_nan_gradients(dict(w=w).items())
