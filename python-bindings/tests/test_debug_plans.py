"""Plan introspection: explain() before running, last_plan() after, Graphviz DOT."""
import numpy as np
import pytest

import glassgrad
from glassgrad import debug


class Small(glassgrad.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = glassgrad.Conv2D(1, 2, 3)
        self.fc = glassgrad.Linear(2 * 4 * 4, 3)

    def forward(self, x):
        return self.fc(glassgrad.flatten(glassgrad.relu(self.conv1(x))))


@pytest.fixture
def step(rng):
    glassgrad.manual_seed(0)
    model = Small()
    x = glassgrad.tensor(rng.standard_normal((2, 1, 6, 6)).astype(np.float32))
    y = glassgrad.tensor(np.array([0, 2]))
    return model, x, y


def test_explain_compiles_without_running_and_lists_layers_shapes_and_buffers(step):
    model, x, y = step
    loss = glassgrad.cross_entropy(model(x), y)
    before = glassgrad.cache_stats()["realizes"]
    plan = debug.explain(loss)
    assert glassgrad.cache_stats()["realizes"] == before and not loss._h.realized
    text = str(plan)
    assert text.startswith(f"Plan: {plan.num_steps} steps, ")
    assert "cpu: predicted peak" in text and "arena" in text
    # the ReLU runs inside the conv (fusion: Conv2D+ReLU), the fc's bias inside its product (MatMul+Add)
    assert [s["op"] for s in plan.steps] == ["Conv2D", "MatMul", "CrossEntropy"]
    assert plan.steps[1]["attrs"].get("fused") == "MatMul+Add"
    assert plan.steps[0]["attrs"].get("activation") == "relu"
    assert "#0    Conv2D                   conv1" in text
    assert "out  $" in text and "conv1/Conv2D.out [2, 2, 4, 4] float32  arena @" in text
    assert "conv1.weight [2, 1, 3, 3] float32" in text  # inputs by name
    assert "test_debug_plans.py:" in text  # source lines
    assert "buffers:" in text and "workspace of Conv2D 'conv1'" in text
    assert loss.item() > 0  # explaining changed nothing: the loss still computes


def test_a_training_steps_plan_shows_backward_and_optimizer_roles(step):
    model, x, y = step
    opt = glassgrad.SGD(model.parameters(), lr=0.1)
    glassgrad.cross_entropy(model(x), y).backward()
    opt.step()
    plan = debug.last_plan()
    roles = {s["role"] for s in plan.steps}
    assert roles == {"forward", "backward", "optimizer"}
    assert "(backward)" in str(plan) and "(optimizer)" in str(plan)
    big = plan.largest_buffers(3)
    assert len(big) == 3 and big[0]["bytes"] >= big[1]["bytes"] >= big[2]["bytes"]
    assert plan.predicted_peak_bytes() == plan.predicted_peak_bytes("cpu") > 0


def test_to_dot_writes_graphviz(step, tmp_path):
    model, x, y = step
    plan = debug.explain(glassgrad.cross_entropy(model(x), y))
    path = tmp_path / "step.dot"
    text = plan.to_dot(str(path))
    assert path.read_text() == text
    assert text.startswith("digraph plan {") and text.rstrip().endswith("}")
    assert "Conv2D\\nconv1" in text and "->" in text


def test_explain_a_step_function_returns_the_plans_it_ran(step):
    model, x, y = step
    opt = glassgrad.SGD(model.parameters(), lr=0.1)

    def train_step():
        loss = glassgrad.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss.item()

    plans = debug.explain(train_step)
    assert len(plans) == 1 and plans[0].num_steps > 5
    assert str(plans).startswith("--- plan 1 of 1 ---\nPlan: ")


def test_explain_of_a_computed_tensor_points_to_last_plan(step):
    model, x, y = step
    loss = glassgrad.cross_entropy(model(x), y)
    loss.item()
    with pytest.raises(glassgrad.InvalidArgumentError, match=r"(?s)already computed.*last_plan\(\)"):
        debug.explain(loss)


def test_the_engine_listing_is_still_available(step):
    model, x, y = step
    plan = debug.explain(model(x))
    assert plan.raw().startswith("Plan: ") and "buffers:" in plan.raw() and "buffers:" not in plan.raw(False)
    assert repr(plan).startswith("<PlanView: ")
