"""Fusion: fused plans compute the same numbers as unfused ones, and the printed plan shows the
fusion groups."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _C
from training_helpers import train_step


@pytest.fixture
def fusion_state():
    before = _C.fusion_enabled()
    yield
    _C.set_fusion(before)


def _mlp_step(fuse, seed=0):
    _C.set_fusion(fuse)
    gg.clear_plan_cache()
    gg.manual_seed(seed)
    rng = np.random.default_rng(seed)
    fc1, fc2 = gg.Linear(5, 7), gg.Linear(7, 3)
    x = gg.tensor(rng.standard_normal((6, 5)).astype(np.float32))
    h = (fc1(x) * 0.5 + 0.1).tanh().sigmoid()   # an elementwise chain
    loss = (fc2(h) ** 2).mean()
    loss.backward()
    return [loss.detach().numpy()] + [p.grad.detach().numpy() for p in (fc1.weight, fc1.bias, fc2.weight, fc2.bias)]


def test_fused_plan_matches_unfused_plan(fusion_state):
    fused, plain = _mlp_step(True), _mlp_step(False)
    for a, b in zip(fused, plain):
        np.testing.assert_array_equal(a, b)


def test_elementwise_chain_becomes_one_step_and_is_printed(fusion_state):
    _C.set_fusion(True)
    x = gg.tensor(np.random.rand(4, 8).astype(np.float32))
    y = ((x * 2.0 + 1.0).relu() - 0.5).tanh()
    plan = _C.plan_for([y._h])
    ops = [s["op"] for s in plan.steps]
    assert ops == ["FusedElementwise"], ops
    assert "[fusion 0: MulScalar+AddScalar+ReLU+AddScalar+Tanh]" in str(plan)
    np.testing.assert_allclose(y.numpy(), np.tanh(np.maximum(x.numpy() * 2 + 1, 0) - 0.5), rtol=1e-6)


def test_values_read_elsewhere_stay_unfused_outputs(fusion_state):
    _C.set_fusion(True)
    x = gg.tensor(np.random.rand(4, 8).astype(np.float32))
    a = x * 2.0            # read by two consumers: cannot disappear into a group
    b = a.relu() + a
    np.testing.assert_allclose(b.numpy(), np.maximum(2 * x.numpy(), 0) + 2 * x.numpy(), rtol=1e-6)


class ConvBN(gg.Module):
    def __init__(self):
        super().__init__()
        self.conv = gg.Conv2D(3, 5, 3, padding=1)
        self.bn = gg.BatchNorm2D(5)
        self.fc = gg.Linear(5 * 6 * 6, 2)

    def forward(self, x):
        return self.fc(gg.flatten(gg.relu(self.bn(self.conv(x)))))


def _train_step(model_class, fuse, seed, size):
    """The loss and gradients of one training step of model_class on (4, 3, size, size) input, with
    fusion on or off, and the plan it ran."""
    _C.set_fusion(fuse)
    gg.clear_plan_cache()
    gg.manual_seed(seed)
    model = model_class().double()
    rng = np.random.default_rng(seed + 1)
    x = gg.tensor(rng.standard_normal((4, 3, size, size)))
    y = gg.tensor(rng.integers(0, 2, 4))
    loss = gg.cross_entropy(model(x), y)
    loss.backward()
    out = [loss.detach().numpy()] + [p.grad.detach().numpy() for p in model.parameters()]
    return out, _C.last_plan()


def test_batchnorm_relu_fusion_in_training_matches_unfused(fusion_state):
    fused, plan = _train_step(ConvBN, True, 2, 6)
    plain, _ = _train_step(ConvBN, False, 2, 6)
    for a, b in zip(fused, plain):
        np.testing.assert_array_equal(a, b)
    assert "BatchNorm2DTrain+ReLU" in str(plan)
    assert not any(s["op"] == "ReLU" for s in plan.steps)


class ConvPool(gg.Module):
    """Both places a ReLU meets a max-pool: after a BatchNorm (fused as BatchNorm2DTrain+ReLU) and
    after a plain ReLU op."""

    def __init__(self):
        super().__init__()
        self.conv = gg.Conv2D(3, 4, 3, padding=1)
        self.bn = gg.BatchNorm2D(4)
        self.fc = gg.Linear(4 * 2 * 2, 2)

    def forward(self, x):
        h = gg.max_pool2d(gg.relu(self.bn(self.conv(x))), 2)
        h = gg.max_pool2d(gg.relu(h - 0.1), 2)
        return self.fc(gg.flatten(h))


def test_max_pool_backward_through_a_relu_is_one_step_and_matches_unfused(fusion_state):
    fused, plan = _train_step(ConvPool, True, 4, 8)
    plain, _ = _train_step(ConvPool, False, 4, 8)
    for a, b in zip(fused, plain):
        np.testing.assert_array_equal(a, b)
    pools = [s for s in plan.steps if s["op"] == "MaxPool2DBackward"]
    assert len(pools) == 2 and str(plan).count("MaxPool2DBackward+ReLUBackward") >= 2, str(plan)
    assert not any(s["op"] == "ReLUBackward" for s in plan.steps), str(plan)


def test_conv_batchnorm_folding_for_inference_matches_unfused(fusion_state):
    _C.set_fusion(True)
    gg.manual_seed(4)
    model = ConvBN().double()
    rng = np.random.default_rng(5)
    x = gg.tensor(rng.standard_normal((4, 3, 6, 6)))
    model(x)
    gg.realize()
    model.eval()
    with gg.no_grad():
        fused_out = model(x).numpy()
        plan = _C.last_plan()
        _C.set_fusion(False)
        gg.clear_plan_cache()
        plain_out = model(x).numpy()
    np.testing.assert_allclose(fused_out, plain_out, rtol=1e-12, atol=1e-12)
    text = str(plan)
    assert "Conv2D+BatchNorm2DInference" in text
    assert not any(s["op"] == "BatchNorm2DInference" for s in plan.steps)


class ConvReLU(gg.Module):
    def __init__(self):
        super().__init__()
        self.conv = gg.Conv2D(2, 4, 3, padding=1)
        self.fc = gg.Linear(4 * 5 * 5, 3)

    def forward(self, x):
        return self.fc(gg.flatten(gg.relu(self.conv(x))))


def test_conv_bias_relu_fusion_matches_unfused(fusion_state):
    results = []
    for fuse in (True, False):
        _C.set_fusion(fuse)
        gg.clear_plan_cache()
        gg.manual_seed(6)
        model = ConvReLU().double()
        rng = np.random.default_rng(7)
        loss = gg.cross_entropy(model(gg.tensor(rng.standard_normal((3, 2, 5, 5)))), gg.tensor(rng.integers(0, 3, 3)))
        loss.backward()
        results.append(([loss.detach().numpy()] + [p.grad.detach().numpy() for p in model.parameters()], _C.last_plan()))
    (fused, plan), (plain, _) = results
    for a, b in zip(fused, plain):
        np.testing.assert_array_equal(a, b)
    assert "Conv2D+ReLU" in str(plan)
    assert not any(s["op"] == "ReLU" for s in plan.steps)


class Residual(gg.Module):
    """A ResNet basic block with an identity shortcut and its head."""

    def __init__(self):
        super().__init__()
        self.conv1 = gg.Conv2D(4, 4, 3, padding=1, bias=False)
        self.bn1 = gg.BatchNorm2D(4)
        self.conv2 = gg.Conv2D(4, 4, 3, padding=1, bias=False)
        self.bn2 = gg.BatchNorm2D(4)
        self.fc = gg.Linear(4 * 5 * 5, 3)

    def forward(self, x):
        h = gg.relu(self.bn1(self.conv1(x)))
        h = gg.relu(self.bn2(self.conv2(h)) + x)
        return self.fc(gg.flatten(h))


def _residual_run(fuse, dtype):
    _C.set_fusion(fuse)
    gg.clear_plan_cache()
    gg.manual_seed(7)
    model = Residual() if dtype == "float32" else Residual().double()
    rng = np.random.default_rng(8)
    x = gg.tensor(rng.standard_normal((3, 4, 5, 5)).astype(dtype))
    y = gg.tensor(rng.integers(0, 3, 3))
    loss = gg.cross_entropy(model(x), y)
    loss.backward()
    return [loss.detach().numpy()] + [p.grad.detach().numpy() for p in model.parameters()], _C.last_plan()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_batchnorm_residual_add_relu_runs_as_one_pass_and_matches_unfused(fusion_state, dtype, on_the_cpu):
    # On the CPU: the CUDA BatchNorm kernel takes no residual, so the fusion pass leaves a CUDA
    # block's Add and ReLU as they are (fusion.cpp, fuse_batchnorm_residual).
    fused, plan = _residual_run(True, dtype)
    plain, _ = _residual_run(False, dtype)
    for a, b in zip(fused, plain):
        np.testing.assert_array_equal(a, b)
    assert "BatchNorm2DTrain+Add+ReLU" in str(plan)
    block = [(s["op"], s["scope"]) for s in plan.steps if s["role"] == "forward" and s["scope"] != "fc"]
    assert not any(op in ("Add", "ReLU") for op, _ in block), block  # (fc's bias Add stays)


def _batchnorm_state_step(fuse, momentum, steps=2, dtype="float64", make=None):
    """Running statistics, counters and the last loss after `steps` compiled training steps of a
    conv + two BatchNorms (one 1-d over the flattened features), and the last plan."""
    _C.set_fusion(fuse)
    gg.clear_plan_cache()
    gg.manual_seed(5)
    conv, bn = gg.Conv2D(3, 4, 3), gg.BatchNorm2D(4, momentum=momentum)
    bn1d, fc = gg.BatchNorm1D(4 * 4 * 4, momentum=momentum), gg.Linear(4 * 4 * 4, 2)
    model = gg.Sequential(conv, bn, gg.ReLU(), gg.Flatten(), bn1d, fc)
    if dtype == "float64":
        model = model.double()
    opt = gg.SGD(model.parameters(), lr=0.1)
    rng = np.random.default_rng(6)
    x = gg.tensor(rng.standard_normal((5, 3, 6, 6)).astype(dtype))
    y = gg.tensor(rng.integers(0, 2, 5))

    run = gg.compile(train_step(model, opt))
    for _ in range(steps):
        loss = run(x, y)
    state = [t.numpy() for layer in (bn, bn1d)
             for t in (layer.running_mean, layer.running_var, layer.num_batches_tracked)]
    return [loss.detach().numpy()] + state + [p.detach().numpy() for p in model.parameters()], _C.last_plan()


@pytest.mark.parametrize("momentum", [0.1, 0.0, 1.0])
def test_batchnorm_state_updates_run_in_the_batchnorm_and_match_unfused(fusion_state, momentum):
    fused, plan = _batchnorm_state_step(True, momentum, steps=3)
    plain, plain_plan = _batchnorm_state_step(False, momentum, steps=3)
    for a, b in zip(fused, plain):
        np.testing.assert_array_equal(a, b)
    ops = [s["op"] for s in plan.steps]
    assert ops.count("BatchNorm2DTrainUpdate") == 2, str(plan)
    assert "BatchNormUpdateStats" not in ops and "AddScalarInPlace" not in ops, str(plan)
    assert "BatchNorm2DTrain+ReLU+BatchNormUpdateStats+AddScalarInPlace" in str(plan)
    plain_ops = [s["op"] for s in plain_plan.steps]
    assert plain_ops.count("BatchNormUpdateStats") == 2 and plain_ops.count("AddScalarInPlace") == 2
    assert int(fused[3]) == 3 and int(fused[6]) == 3  # num_batches_tracked after three steps


def test_batchnorm_cumulative_average_keeps_its_separate_update(fusion_state):
    """momentum=None reads the incremented counter (1 / num_batches_tracked) in the graph: that
    update is composed of elementwise ops, so there is no BatchNormUpdateStats to fuse, and the
    numbers are the unfused plan's."""
    fused, plan = _batchnorm_state_step(True, None)
    plain, _ = _batchnorm_state_step(False, None)
    for a, b in zip(fused, plain):
        np.testing.assert_array_equal(a, b)
    assert "BatchNorm2DTrainUpdate" not in str(plan)


def test_a_layer_called_twice_a_step_keeps_separate_state_updates(fusion_state):
    """Two forwards of one BatchNorm layer in a step record two counter increments: neither is
    fused (the pass pairs a layer's one increment with its one update), and the numbers match."""
    def run(fuse):
        _C.set_fusion(fuse)
        gg.clear_plan_cache()
        bn = gg.BatchNorm2D(3).double()
        rng = np.random.default_rng(1)
        a = gg.tensor(rng.standard_normal((4, 3, 5, 5)))
        b = gg.tensor(rng.standard_normal((4, 3, 5, 5)) + 1.0)
        (bn(a).sum() + (bn(b) ** 2).sum()).backward()
        return [bn.running_mean.numpy(), bn.running_var.numpy(), bn.num_batches_tracked.numpy()], _C.last_plan()

    (fused, plan), (plain, _) = run(True), run(False)
    for x, y in zip(fused, plain):
        np.testing.assert_array_equal(x, y)
    assert int(fused[2]) == 2
    assert "BatchNorm2DTrainUpdate" not in str(plan)
