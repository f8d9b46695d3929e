"""Breakpoint hooks: callbacks on a layer or an op name, forward or backward, receiving the
node's inputs and outputs as NumPy arrays."""
import gc

import numpy as np
import pytest

import glassgrad
from glassgrad import debug


class Block(glassgrad.Module):
    def __init__(self, cin):
        super().__init__()
        self.conv1 = glassgrad.Conv2D(cin, 3, 3, padding=1)

    def forward(self, x):
        return glassgrad.relu(self.conv1(x))


class Net(glassgrad.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = glassgrad.Sequential(Block(2), Block(3))
        self.fc = glassgrad.Linear(3 * 4 * 4, 2)

    def forward(self, x):
        x = self.layer1(x)
        return self.fc(glassgrad.flatten(x))


@pytest.fixture
def setup(rng):
    # A hook sees every node of the plans it runs in, and a realize computes everything pending:
    # values another test of this worker left pending (alive in a reference cycle not yet
    # collected) are collected or computed first, so that the hooks see this test's nodes only.
    gc.collect()
    glassgrad.realize()
    glassgrad.manual_seed(1)
    net = Net()
    x = glassgrad.tensor(rng.standard_normal((2, 2, 4, 4)).astype(np.float32))
    return net, x


def test_a_forward_hook_on_a_layer_sees_its_inputs_and_outputs(setup):
    net, x = setup
    seen = []
    with debug.register_hook(net.layer1[1].conv1, lambda n, i, o: seen.append((n, i, o))):
        out1 = net.layer1[0](x)
        net(x).sum().item()
    assert len(seen) == 1
    node, ins, outs = seen[0]
    assert (node.op, node.scope, node.role) == ("Conv2D", "layer1.1.conv1", "forward")
    assert node.source.startswith("test_debug_hooks.py:")
    assert [a.shape for a in ins] == [(2, 3, 4, 4), (3, 3, 3, 3), (3,)]
    np.testing.assert_array_equal(ins[0], out1.detach().numpy())  # the input is block 0's output
    np.testing.assert_array_equal(ins[1], net.layer1[1].conv1.weight.detach().numpy())
    ref = glassgrad.conv2d(glassgrad.tensor(ins[0]), glassgrad.tensor(ins[1]), glassgrad.tensor(ins[2]), padding=1)
    np.testing.assert_allclose(outs[0], ref.numpy(), rtol=1e-6)


def test_a_hook_on_a_parent_layer_sees_its_sub_layers_nodes(setup):
    net, x = setup
    ops = []
    with debug.register_hook(net.layer1, lambda n, i, o: ops.append((n.op, n.scope))):
        net(x).sum().item()
    assert ops == [("Conv2D", "layer1.0.conv1"), ("ReLU", "layer1.0"), ("Conv2D", "layer1.1.conv1"),
                   ("ReLU", "layer1.1")]


def test_a_backward_hook_by_op_name_sees_gradient_nodes(setup):
    net, x = setup
    seen = []
    handle = debug.register_hook("Conv2DBackwardWeight", lambda n, i, o: seen.append((n, i, o)), when="backward")
    loss = net(x).sum()
    loss.backward()
    grad = net.layer1[0].conv1.weight.grad.numpy()
    handle.remove()
    scopes = [n.scope for n, _, _ in seen]
    assert sorted(scopes) == ["layer1.0.conv1", "layer1.1.conv1"]
    node, ins, outs = next(s for s in seen if s[0].scope == "layer1.0.conv1")
    assert node.role == "backward" and [a.shape for a in ins] == [(2, 2, 4, 4), (2, 3, 4, 4)]
    np.testing.assert_array_equal(outs[0], grad)


def test_forward_hooks_do_not_fire_for_backward_nodes_and_the_reverse(setup):
    net, x = setup
    fwd, bwd = [], []
    h1 = debug.register_hook(net.fc, lambda n, i, o: fwd.append(n.op))
    h2 = debug.register_hook(net.fc, lambda n, i, o: bwd.append(n.op), when="backward")
    loss = net(x).sum()
    loss.backward()
    glassgrad.realize(loss, net.fc.weight.grad)
    h1.remove()
    h2.remove()
    assert fwd == ["MatMul", "Add"]
    assert "MatMul" in bwd and "Sum" in bwd  # dW = g^T x, db = sum of g over the batch


def test_hooks_fire_only_for_nodes_that_run(setup):
    net, x = setup
    fwd = []
    with debug.register_hook(net.fc, lambda n, i, o: fwd.append(n.op)):
        net(x).sum().backward()
        net.fc.weight.grad.numpy()  # the loss itself is not needed for dW, so fc's forward is dead code
    assert fwd == []


def test_a_hook_by_layer_path_string(setup):
    net, x = setup
    ops = []
    with debug.register_hook("layer1.0", lambda n, i, o: ops.append(n.scope)):
        net(x).sum().item()
    assert ops == ["layer1.0.conv1", "layer1.0"]


def test_removing_a_hook_stops_the_calls(setup):
    net, x = setup
    calls = []
    h = debug.register_hook("ReLU", lambda n, i, o: calls.append(1))
    net(x).sum().item()
    assert len(calls) == 2 and h.active
    h.remove()
    assert not h.active
    net(x * 2.0).sum().item()
    assert len(calls) == 2


def test_an_exception_in_a_hook_stops_the_run_like_a_breakpoint(setup):
    net, x = setup

    def stop(node, inputs, outputs):
        if outputs[0].max() > 0:
            raise RuntimeError(f"stop at {node.op} '{node.scope}'")

    with debug.register_hook("ReLU", stop):
        with pytest.raises(RuntimeError, match=r"stop at ReLU 'layer1.0'"):
            net(x).sum().item()
    assert net(x).sum().item() == net(x).sum().item()  # no hook left behind, the model still runs


def test_register_hook_validates_its_arguments(setup):
    net, _ = setup
    with pytest.raises(glassgrad.InvalidArgumentError, match=r"when must be one of"):
        debug.register_hook(net, print, when="after")
    with pytest.raises(TypeError, match=r"layer \(glassgrad.Module\), an op name"):
        debug.register_hook(42, print)


def test_inputs_are_what_the_node_read_even_when_it_wrote_over_them(setup):
    net, x = setup
    seen = []
    with debug.register_hook("ReLU", lambda n, i, o: seen.append((i[0], o[0]))):
        net.layer1[0](x).sum().item()
    plan = debug.last_plan()
    relu = next(s for s in plan.steps if s["op"] == "ReLU")
    assert plan.buffers[relu["outputs"][0]]["kind"] == "view"  # the planner reused the conv output's buffer
    inp, out = seen[0]
    assert inp.min() < 0 and out.min() == 0
    np.testing.assert_array_equal(out, np.maximum(inp, 0))


def test_hooks_and_anomaly_mode_compile_without_fusion_and_restore_it(setup):
    net, x = setup
    assert glassgrad._C.fusion_enabled()
    ops = []
    h = debug.register_hook("Mul", lambda n, i, o: ops.append(n.op), when="any")
    with debug.detect_anomaly():
        assert not glassgrad._C.fusion_enabled()
        (glassgrad.relu(x * 2.0 * x) + 1.0).numpy()  # an elementwise chain: one fused step otherwise
    assert not glassgrad._C.fusion_enabled()  # the hook still holds it off
    h.remove()
    assert glassgrad._C.fusion_enabled()
    assert ops == ["Mul"]
