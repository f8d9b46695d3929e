"""memory_report: predicted before anything runs, matched by the allocator's measured peak."""
import numpy as np
import pytest

import glassgrad as gg
from training_helpers import small_resnet


def _setup(width=8, batch=8):
    model, _, step, x, y = small_resnet(width, batch)
    return model, step, x, y


def test_report_runs_nothing_and_leaves_parameters_untouched():
    model, step, x, y = _setup()
    step(x, y)  # creates the optimizer state
    before = {k: v.clone() for k, v in model.state_dict().items()}
    report = gg.memory_report(step, x, y)
    for k, v in model.state_dict().items():
        np.testing.assert_array_equal(v, before[k], err_msg=k)
    assert report.arena > 0 and report.predicted_peak > report.baseline
    text = str(report)
    assert "predicted peak" in text and "largest buffers" in text and "Conv2D" in text


def test_a_compiled_step_is_planned_without_running_under_its_memory_limit():
    model, step, x, y = _setup()
    step(x, y)
    plain = gg.memory_report(step, x, y)
    limit = int(0.75 * (plain.arena + plain.outputs))
    compiled = gg.compile(step, memory_limit=limit)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    for _ in range(3):  # the calls that would warm up, record and replay it
        report = gg.memory_report(compiled, x, y)
        assert report.plan.recomputed_steps > plain.plan.recomputed_steps
        assert report.arena + report.outputs <= limit
    for k, v in model.state_dict().items():
        np.testing.assert_array_equal(v, before[k], err_msg=k)
    assert compiled.traces == 0 and compiled.replays == 0


def test_measured_peak_is_within_5_percent_of_the_prediction():
    model, step, x, y = _setup()
    step(x, y)
    report = gg.memory_report(step, x, y)
    gg.reset_peak_memory()
    step(x, y)
    measured = gg.memory_stats()["peak"]
    assert abs(measured - report.predicted_peak) <= 0.05 * report.predicted_peak, (measured, report.predicted_peak)


def test_timeline_covers_every_step_and_plots(tmp_path):
    _, step, x, y = _setup()
    step(x, y)
    report = gg.memory_report(step, x, y)
    live = report.timeline()
    assert len(live) == len(report.plan.steps)
    assert max(live) <= report.arena + report.outputs
    pytest.importorskip("matplotlib")
    report.plot(str(tmp_path / "memory.png"))
    assert (tmp_path / "memory.png").stat().st_size > 1000


def test_report_and_memory_limit_make_one_prediction():
    # memory_report and the memory limit's check both read debug::memory_need (debug.h).
    _, step, x, y = _setup()
    step(x, y)
    report = gg.memory_report(step, x, y)
    assert report.predicted_peak == gg._C.predicted_need(report.plan, "cpu")
    need = gg._C.memory_need(report.plan, "cpu", report.baseline)
    assert need.total == need.held - min(need.held, need.arena_freed) + need.arena_new + need.outputs + need.graph_outputs
    assert need.graph_outputs == 0  # CPU plans never replay as CUDA graphs


@pytest.mark.parametrize("call", ["model(x)", "model.forward(x)"])
def test_a_function_returning_a_lazy_loss_is_planned_without_running(call):
    gg.manual_seed(0)
    model = gg.Sequential(gg.Conv2D(1, 4, 3), gg.ReLU(), gg.Flatten(), gg.Linear(4 * 6 * 6, 3))
    x = gg.tensor(np.ones((2, 1, 8, 8), np.float32))
    y = gg.tensor(np.array([0, 2]))
    before = [p.detach().numpy().copy() for p in model.parameters()]

    def loss():
        return gg.cross_entropy(model(x) if call == "model(x)" else model.forward(x), y)

    report = gg.memory_report(loss)
    assert any(b["producer"] == "Conv2D" for b in report.buffers)
    assert report.predicted_peak > 0
    for b, p in zip(before, model.parameters()):
        np.testing.assert_array_equal(b, p.detach().numpy())
    # The same function, read for real, still computes its value afterwards.
    assert np.isfinite(loss().item())


def test_a_function_that_computes_nothing_is_reported_with_the_fix():
    with pytest.raises(gg.InvalidArgumentError, match="return the result"):
        gg.memory_report(lambda: None)
