"""Layers and their tensors are named by their path in the module tree when they are assigned,
whatever the call style afterwards: errors say Conv2D 'conv1' (not Conv2D 'Conv2D') and
check_nan_gradients says conv1.weight (not weight) when the model is called as model.forward(x),
as the seed's script does, as well as model(x)."""
import numpy as np
import pytest

import glassgrad as gg


class Net(gg.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = gg.Conv2D(1, 2, 3)
        self.block = gg.Sequential(gg.Conv2D(2, 2, 3, padding=1), gg.BatchNorm2D(2))
        self.fc = gg.Linear(2 * 3 * 3, 2)

    def forward(self, x):
        x = self.block(gg.relu(self.conv1(x)))
        return self.fc(gg.flatten(x))


PATHS = ["conv1.weight", "conv1.bias", "block.0.weight", "block.0.bias", "block.1.weight", "block.1.bias",
         "fc.weight", "fc.bias"]


def test_parameters_and_buffers_are_named_by_path_before_any_call():
    net = Net()
    assert [p.name for p in net.parameters()] == PATHS
    assert [name for name, _ in net.named_parameters()] == PATHS
    assert net.block[1].running_mean.name == "block.1.running_mean"
    assert [m._scope for _, m in net.named_modules()] == ["", "conv1", "block", "block.0", "block.1", "fc"]


@pytest.mark.parametrize("call", ["model(x)", "model.forward(x)"])
def test_shape_errors_name_the_layer_by_path_whatever_the_call_style(call):
    net = Net()
    x = gg.tensor(np.ones((1, 3, 5, 5), np.float32))  # 3 channels, conv1 takes 1
    with pytest.raises(gg.ShapeError, match="Conv2D 'conv1'"):
        net(x) if call == "model(x)" else net.forward(x)


@pytest.mark.parametrize("call", ["model(x)", "model.forward(x)"])
def test_check_nan_gradients_names_parameters_by_path(call):
    net = Net()
    x = gg.tensor(np.ones((2, 1, 5, 5), np.float32))
    out = net(x) if call == "model(x)" else net.forward(x)
    out.sum().backward()
    for p in net.parameters():
        p.grad = gg.tensor(np.full(p.shape, np.nan, np.float32))
    with pytest.raises(gg.debug.NonFiniteError) as e:
        gg.check_nan_gradients(net.parameters())
    for path in PATHS:
        assert f"  {path} [" in str(e.value), str(e.value)


def test_a_model_placed_inside_another_is_renamed_under_its_new_path():
    inner = Net()
    outer = gg.Sequential(inner)
    assert inner.conv1.weight.name == "0.conv1.weight"
    assert inner.block[0]._scope == "0.block.0"
    with pytest.raises(gg.ShapeError, match="Conv2D '0.conv1'"):
        outer.forward(gg.tensor(np.ones((1, 3, 5, 5), np.float32)))


def test_a_replaced_layer_and_a_late_parameter_take_their_paths():
    net = Net()
    net.conv1 = gg.Conv2D(1, 2, 3)
    assert net.conv1.weight.name == "conv1.weight"
    net.block[0].extra = gg.Parameter(np.ones(2, np.float32))
    assert net.block[0].extra.name == "block.0.extra"


def test_hooks_on_a_layer_see_its_nodes_when_the_model_is_called_through_forward():
    net = Net()
    seen = []
    with gg.debug.register_hook(net.conv1, lambda node, i, o: seen.append((node.op, node.scope))):
        net.forward(gg.tensor(np.ones((1, 1, 5, 5), np.float32))).sum().item()
    assert seen and all(scope == "conv1" for _, scope in seen)
