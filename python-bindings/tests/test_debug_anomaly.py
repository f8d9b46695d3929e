"""Anomaly mode: the first step producing NaN/Inf stops the run, naming the op, the layer,
forward or backward, the recording line and the inputs' statistics."""
import os
import subprocess
import sys

import numpy as np
import pytest

import glassgrad
from glassgrad import debug


class LogHead(glassgrad.Module):
    """A layer computing log(x): log(0) = -inf, log(-1) = nan."""

    def forward(self, x):
        return glassgrad.log(x)


class Net(glassgrad.Module):
    def __init__(self):
        super().__init__()
        self.head = LogHead()

    def forward(self, x):
        return self.head(x * 1.0)


def _line_of(text):
    with open(__file__) as f:
        for i, line in enumerate(f, 1):
            if text in line:
                return i
    raise AssertionError(text)


def test_anomaly_mode_stops_at_the_forward_op_naming_layer_line_and_input_stats():
    net = Net()
    x = glassgrad.tensor(np.array([1.0, 0.0, -1.0, 4.0], np.float32))
    with debug.detect_anomaly():
        with pytest.raises(debug.NonFiniteError) as e:
            net(x).sum().item()
    msg = str(e.value)
    assert msg.startswith("NaN/Inf detected: Log 'head' (forward) produced 1 NaN and 1 Inf in its output 'out' "
                          "[4] float32 cpu")
    assert f"recorded at: test_debug_anomaly.py:{_line_of('return glassgrad.log(x)')}" in msg
    assert "input 'x' [4] float32 cpu" in msg and "min -1 max 4 mean 1 " in msg and "nan 0 inf 0" in msg
    assert "cause: Log(0) is -Inf" in msg and "fix:" in msg and "log_softmax" in msg


def test_anomaly_error_is_a_floating_point_error_and_a_glassgrad_error():
    assert issubclass(debug.NonFiniteError, FloatingPointError)
    assert issubclass(debug.NonFiniteError, glassgrad.GlassgradError)


def test_anomaly_mode_stops_at_a_backward_node():
    x = glassgrad.tensor(np.array([1.0, 0.0, 4.0], np.float32), requires_grad=True)
    with debug.detect_anomaly():
        y = glassgrad.sqrt(x).sum()  # d sqrt(x)/dx = 0.5 / sqrt(x): Inf at 0
        y.backward()
        with pytest.raises(debug.NonFiniteError) as e:
            x.grad.numpy()
    msg = str(e.value)
    assert "(backward) produced 1 Inf" in msg
    assert f"recorded at: test_debug_anomaly.py:{_line_of('y = glassgrad.sqrt(x).sum()  # d sqrt')}" in msg
    assert "this is a backward node" in msg
    assert "min 0 max 2" in msg  # the forward sqrt values feeding the division
    assert "division by zero in a gradient" in msg


def test_anomaly_mode_blames_the_input_when_nan_came_in_with_the_data():
    a = glassgrad.tensor(np.array([np.nan, 1.0, 2.0], np.float32), name="images")
    with debug.detect_anomaly():
        with pytest.raises(debug.NonFiniteError) as e:
            (a * 2.0).numpy()
    msg = str(e.value)
    assert "MulScalar (forward) produced 1 NaN" in msg
    assert "<- plan input 'images': min 1 max 2 mean 1.5 std 0.5  nan 1 inf 0" in msg
    assert "already held NaN/Inf when this step ran" in msg and "print_tensor_stats" in msg


def test_anomaly_mode_is_off_by_default_and_restored_after_the_block():
    assert not debug.is_anomaly_enabled()
    with debug.detect_anomaly():
        assert debug.is_anomaly_enabled()
        with debug.detect_anomaly(enabled=False):
            assert not debug.is_anomaly_enabled()
        assert debug.is_anomaly_enabled()
    assert not debug.is_anomaly_enabled()
    out = glassgrad.log(glassgrad.tensor(np.array([0.0], np.float32))).numpy()
    assert np.isneginf(out[0])  # without anomaly mode the value simply is -inf


def test_anomaly_mode_leaves_finite_training_steps_unchanged(rng):
    def run(anomaly):
        glassgrad.manual_seed(3)
        model = glassgrad.Sequential(glassgrad.Conv2D(1, 4, 3), glassgrad.BatchNorm2D(4), glassgrad.ReLU(),
                                     glassgrad.Flatten(), glassgrad.Linear(4 * 6 * 6, 3))
        opt = glassgrad.SGD(model.parameters(), lr=0.1, momentum=0.9)
        x = glassgrad.tensor(np.linspace(-1, 1, 2 * 64, dtype=np.float32).reshape(2, 1, 8, 8))
        y = glassgrad.tensor(np.array([0, 2]))
        with debug.detect_anomaly(anomaly):
            for _ in range(2):
                loss = glassgrad.cross_entropy(model(x), y)
                loss.backward()
                opt.step()
                opt.zero_grad()
        return loss.item(), model.state_dict()
    (l1, s1), (l2, s2) = run(False), run(True)
    assert l1 == l2
    for k in s1:
        np.testing.assert_array_equal(s1[k], s2[k])


def test_after_an_anomaly_other_tensors_still_compute():
    bad = glassgrad.log(glassgrad.tensor(np.array([-1.0], np.float32)))
    good = glassgrad.tensor(np.array([2.0], np.float32)) * 3.0
    with debug.detect_anomaly():
        with pytest.raises(debug.NonFiniteError):
            bad.numpy()
        assert good.numpy()[0] == 6.0  # the failed plan's values are no longer pending
        with pytest.raises(debug.NonFiniteError):
            bad.numpy()  # reading the bad value again reports it again


def test_the_failed_plan_is_what_last_plan_shows():
    with debug.detect_anomaly():
        with pytest.raises(debug.NonFiniteError):
            glassgrad.sqrt(glassgrad.tensor(np.array([-1.0], np.float32)) + 0.5).numpy()
    ops = [s["op"] for s in debug.last_plan().steps]
    assert ops == ["AddScalar", "Sqrt"]


def test_environment_variable_turns_anomaly_mode_on():
    code = ("import numpy as np, glassgrad\n"
            "print(glassgrad.debug.is_anomaly_enabled())\n"
            "try:\n"
            "    glassgrad.log(glassgrad.tensor(np.array([0.0], np.float32))).numpy()\n"
            "except glassgrad.debug.NonFiniteError as e:\n"
            "    print(str(e).splitlines()[0])\n")
    env = dict(os.environ, GLASSGRAD_DETECT_ANOMALY="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["True", "NaN/Inf detected: Log (forward) produced 1 Inf in its output 'out' "
                                        "[1] float32 cpu"]


def test_anomaly_mode_checks_optimizer_updates():
    w = glassgrad.nn.Parameter(np.array([1.0, 2.0], np.float32), name="w")
    opt = glassgrad.SGD([w], lr=1e38)
    loss = (w * glassgrad.tensor(np.array([1e38, 1.0], np.float32))).sum()
    loss.backward()
    with debug.detect_anomaly():
        with pytest.raises(debug.NonFiniteError) as e:
            opt.step()
    msg = str(e.value)
    assert "SGDUpdate 'optimizer' (optimizer) produced 1 Inf" in msg
    # The observer sees the step's inputs as it read them (a copy of w taken before the update).
    assert "<- plan input 'w': min 1 max 2 mean 1.5" in msg and "lower the learning rate" in msg


def test_after_an_anomaly_stop_parameters_are_still_trainable_leaves():
    w = glassgrad.nn.Parameter(np.array([1.0, 2.0], np.float32), name="w")
    opt = glassgrad.SGD([w], lr=1e38)
    (w * glassgrad.tensor(np.array([1e38, 1.0], np.float32))).sum().backward()
    with debug.detect_anomaly():
        with pytest.raises(debug.NonFiniteError):
            opt.step()
    # The check runs after each step, so the stopping update did run, but the step is all or
    # nothing: its buffer was restored, and w holds its value from before the step.
    assert w.is_leaf and w.requires_grad
    np.testing.assert_array_equal(w.detach().numpy(), np.array([1.0, 2.0], np.float32))
    opt.zero_grad()
    (w * 3.0).sum().backward()  # still differentiable: a leaf, not a pending failed update
    np.testing.assert_array_equal(w.grad.numpy(), [3.0, 3.0])
