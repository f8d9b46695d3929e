"""The debug aids on the GPU: anomaly mode, hooks, statistics, gradient checks and clipping,
the memory limit and the allocation log with CUDA tensors. Runs on the GPU machine:
pytest -m cuda python-bindings/tests/test_debug_cuda.py"""
import re

import numpy as np
import pytest

import glassgrad
from glassgrad import debug

pytestmark = pytest.mark.cuda


class Net(glassgrad.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = glassgrad.Conv2D(1, 4, 3, device="cuda")
        self.fc = glassgrad.Linear(4 * 6 * 6, 3, device="cuda")

    def forward(self, x):
        return self.fc(glassgrad.flatten(glassgrad.max_pool2d(glassgrad.relu(self.conv1(x)), 2)))


@pytest.fixture
def data(rng):
    glassgrad.manual_seed(0)
    x = glassgrad.tensor(rng.standard_normal((4, 1, 14, 14)).astype(np.float32), device="cuda")
    y = glassgrad.tensor(np.array([0, 1, 2, 0]), device="cuda")
    return Net(), x, y


def test_anomaly_mode_stops_at_a_cuda_op_with_its_input_statistics():
    x = glassgrad.tensor(np.array([1.0, 0.0, -1.0], np.float32), device="cuda")
    with debug.detect_anomaly():
        with pytest.raises(debug.NonFiniteError) as e:
            glassgrad.log(x * 1.0).cpu().numpy()
    msg = str(e.value)
    assert msg.startswith("NaN/Inf detected: Log (forward) produced 1 NaN and 1 Inf in its output 'out' "
                          "[3] float32 cuda:0")
    assert "input 'x' [3] float32 cuda:0 <- MulScalar.out: min -1 max 1 mean 0" in msg


def test_anomaly_mode_stops_at_a_cuda_backward_node():
    x = glassgrad.tensor(np.array([1.0, 0.0, 4.0], np.float32), device="cuda", requires_grad=True)
    with debug.detect_anomaly():
        glassgrad.sqrt(x).sum().backward()
        with pytest.raises(debug.NonFiniteError, match=r"\(backward\) produced 1 Inf .* cuda:0"):
            x.grad.cpu().numpy()


def test_hooks_receive_numpy_copies_of_cuda_tensors(data):
    model, x, y = data
    seen = []
    with debug.register_hook(model.conv1, lambda n, i, o: seen.append((i, o))):
        out = model.conv1(x)
        ref = out.detach().cpu().numpy()
    ins, outs = seen[0]
    assert all(isinstance(a, np.ndarray) for a in ins + outs)
    np.testing.assert_array_equal(outs[0], ref)
    np.testing.assert_array_equal(ins[0], x.cpu().numpy())


def test_stats_and_nan_gradients_of_cuda_tensors(data, capsys):
    model, x, y = data
    t = glassgrad.tensor(np.array([1.0, np.nan, 3.0, np.inf], np.float32), device="cuda")
    glassgrad.print_tensor_stats(t, name="t")
    assert capsys.readouterr().out.strip() == ("t: [4] float32 cuda:0  min 1 max 3 mean 2 std 1  "
                                               "nan 1 inf 1 (+inf 1, -inf 0)")
    glassgrad.cross_entropy(model(x), y).backward()
    assert glassgrad.check_nan_gradients(model) == 4


def test_clip_grad_norm_on_cuda_matches_numpy(data):
    model, x, y = data
    glassgrad.cross_entropy(model(x), y).backward()
    grads = [p.grad.cpu().numpy().astype(np.float64) for p in model.parameters()]
    norm = glassgrad.clip_grad_norm_(model.parameters(), 1e-2)
    ref = np.sqrt(sum((g ** 2).sum() for g in grads))
    np.testing.assert_allclose(norm.item(), ref, rtol=1e-4)
    for g, p in zip(grads, model.parameters()):
        np.testing.assert_allclose(p.grad.cpu().numpy(), g * min(1.0, 1e-2 / (ref + 1e-6)), rtol=1e-4, atol=1e-9)


def test_a_cuda_step_over_the_limit_is_refused_before_running(data):
    model, x, y = data
    opt = glassgrad.SGD(model.parameters(), lr=0.1)
    glassgrad.cuda.empty_cache()
    glassgrad.set_memory_limit(glassgrad.cuda.memory_stats()["current"] + 4096, device="cuda")
    try:
        glassgrad.cross_entropy(model(x), y).backward()
        with pytest.raises(glassgrad.OutOfMemoryError) as e:
            opt.step()
        msg = str(e.value)
        assert "largest buffers without checkpointing:" in msg
        assert re.search(r"conv1/Conv2D\.out  \[4, 4, 12, 12\] float32  <- arena from Conv2D 'conv1'", msg)
    finally:
        glassgrad.set_memory_limit(None, device="cuda")
    opt.zero_grad()
    glassgrad.cross_entropy(model(x), y).backward()
    opt.step()  # the model trains on after the refused step


def test_the_allocation_log_names_cuda_buffers(data):
    model, x, y = data
    opt = glassgrad.SGD(model.parameters(), lr=0.1)
    with debug.allocation_log("cuda") as log:
        glassgrad.cross_entropy(model(x), y).backward()
        opt.step()
    names = [e["name"] for e in log.allocations()]
    assert all(names) and all(e["device"] == "cuda:0" for e in log.events)
    assert "conv1.weight.grad" in names and "lr" in names
