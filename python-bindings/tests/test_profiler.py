"""glassgrad.profiler and glassgrad.autograd.profiler (docs/debugging.md, "Profiling with
torch.profiler's names"): what is recorded (each executed op step, each record_function block),
how events nest (self time = total - children), the schedule's cycles, the Chrome trace, and the
columns glassgrad does not measure (they raise or warn, they are never zero-filled)."""
import gzip
import json
import os

import pytest

import glassgrad as gg
from glassgrad.autograd import profiler as legacy
from glassgrad.profiler import ProfilerActivity, profile, record_function, schedule, tensorboard_trace_handler


def _model():
    gg.manual_seed(0)
    return gg.nn.Sequential(gg.nn.Linear(6, 5), gg.nn.ReLU(), gg.nn.Linear(5, 2))


def _step(model, opt, x):
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
    return loss.item()


def _ops(events):
    return [e for e in events if not e.is_user_annotation]


def test_each_executed_step_is_an_event_with_its_role_layer_and_shapes():
    model, x = _model(), gg.randn(4, 6)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True, with_stack=True) as prof:
        with record_function("forward"):
            model(x).sum().item()
    ops = _ops(prof.events())
    assert [e.name for e in ops if e.name == "MatMul"] == ["MatMul", "MatMul"]
    first = ops[0]
    # a Linear's MatMul adds its bias as it stores the product (the fusion pass fuse_matmul_bias): its
    # inputs are x, W^T and the bias
    assert first.name == "MatMul" and first.input_shapes == [[4, 6], [6, 5], [5]] and first.role == "forward"
    assert first.layer == "0" and first.stack and first.stack[0].startswith(os.path.basename(__file__))
    assert all(isinstance(e.cpu_time_total, float) for e in prof.events())
    (block,) = [e for e in prof.events() if e.is_user_annotation]
    assert block.name == "forward" and {id(c) for c in block.cpu_children} == {id(e) for e in ops}
    assert all(e.cpu_parent is block for e in ops)
    assert block.self_cpu_time_total == pytest.approx(block.cpu_time_total - sum(e.cpu_time_total for e in ops))


def test_key_averages_sum_counts_and_times_by_name_and_by_shape():
    model, x = _model(), gg.randn(4, 6)
    opt = gg.optim.SGD(model.parameters(), lr=0.1)
    with profile(record_shapes=True) as prof:
        _step(model, opt, x)
    events = prof.events()
    avg = {a.key: a for a in prof.key_averages()}
    for name in {e.name for e in events}:
        mine = [e for e in events if e.name == name]
        assert avg[name].count == len(mine)
        assert avg[name].cpu_time_total == pytest.approx(sum(e.cpu_time_total for e in mine))
        assert avg[name].cpu_time == pytest.approx(avg[name].cpu_time_total / len(mine))
    roles = {e.role for e in events}
    assert {"forward", "backward", "optimizer"} <= roles
    by_shape = prof.key_averages(group_by_input_shape=True)
    assert sum(a.count for a in by_shape if a.key == "MatMul") == avg["MatMul"].count
    assert len({str(a.input_shapes) for a in by_shape if a.key == "MatMul"}) > 1


def test_table_columns_totals_and_sorting():
    model, x = _model(), gg.randn(4, 6)
    with profile(record_shapes=True) as prof:
        with record_function("block"):
            model(x).sum().item()
    text = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=3)
    lines = text.splitlines()
    assert lines[1].split() == ["Name", "Self", "CPU", "%", "Self", "CPU", "CPU", "total", "%", "CPU", "total",
                                "CPU", "time", "avg", "#", "of", "Calls"]
    assert len(lines) == 3 + 3 + 1 + 1 and lines[-1].startswith("Self CPU time total: ")
    selfs = [a.self_cpu_time_total for a in sorted(prof.key_averages(), key=lambda a: -a.self_cpu_time_total)]
    assert lines[3].split()[0] == sorted(prof.key_averages(), key=lambda a: -a.self_cpu_time_total)[0].key
    assert sum(selfs) == pytest.approx(prof.key_averages().self_cpu_time_total)
    assert "Input Shapes" in prof.key_averages(group_by_input_shape=True).table()
    wide = prof.key_averages().table(max_name_column_width=None, row_limit=-1)  # torch's "no limit" values
    assert len(wide.splitlines()) == 3 + len(prof.key_averages()) + 2
    with pytest.raises(ValueError, match="fix: sort_by one of"):
        prof.key_averages().table(sort_by="nonsense")
    with pytest.warns(UserWarning, match="no device"):
        prof.key_averages().table(sort_by="cuda_time_total")


def test_unmeasured_columns_raise_instead_of_reading_zero():
    with profile() as prof:
        gg.ones(3).sum().item()
    avg = prof.key_averages()[0]
    for name in ("cuda_time_total", "self_cpu_memory_usage", "flops"):
        with pytest.raises(AttributeError, match="not measured"):
            getattr(avg, name)
    # as PyTorch: without record_shapes, grouping by shape groups by name and shows no shapes
    assert [a.key for a in prof.key_averages(group_by_input_shape=True)] == [a.key for a in prof.key_averages()]
    assert "Input Shapes" not in prof.key_averages(group_by_input_shape=True).table()


def test_schedule_cycles_call_on_trace_ready_with_that_cycle_only():
    model, x = _model(), gg.randn(4, 6)
    opt = gg.optim.SGD(model.parameters(), lr=0.1)
    seen = []

    def ready(p):
        seen.append((p.step_num, sorted({e.trace_name for e in p.events() if e.name == "ProfilerStep*"})))

    with profile(schedule=schedule(wait=1, warmup=1, active=2, repeat=2), on_trace_ready=ready) as prof:
        for _ in range(10):
            _step(model, opt, x)
            prof.step()
    assert seen == [(4, ["ProfilerStep#2", "ProfilerStep#3"]), (8, ["ProfilerStep#6", "ProfilerStep#7"])]


def test_profile_without_schedule_calls_on_trace_ready_once_at_the_end():
    calls = []
    with profile(on_trace_ready=lambda p: calls.append(len(p.events()))) as prof:
        gg.ones(3).sum().item()
        prof.step()
        gg.ones(3).sum().item()
    assert calls == [2] and not any(e.name.startswith("ProfilerStep") for e in prof.events())


def test_record_function_as_decorator_and_outside_a_profile():
    @record_function("helper")
    def helper(n):
        return helper(n - 1) if n else gg.ones(2).sum().item()

    helper(2)  # no profile: nothing recorded, nothing fails
    with profile() as prof:
        helper(2)
    names = [e.name for e in prof.events() if e.is_user_annotation]
    assert names == ["helper"] * 3
    depth = [e for e in prof.events() if e.is_user_annotation and e.cpu_parent is None]
    assert len(depth) == 1 and len(depth[0].cpu_children) == 1


def test_one_profile_at_a_time():
    with profile():
        with pytest.raises(RuntimeError, match="already recording"):
            with profile():
                pass


def test_chrome_trace_is_valid_json_with_complete_events(tmp_path):
    with profile(record_shapes=True) as prof:
        with record_function("outer"):
            (gg.ones(4, 4) @ gg.ones(4, 4)).sum().item()
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    spans = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(spans) == len(prof.events())
    outer = next(e for e in spans if e["name"] == "outer")
    assert outer["cat"] == "user_annotation"
    for e in spans:
        assert e["dur"] >= 0 and isinstance(e["ts"], float) and e["pid"] == os.getpid()
        if e["name"] != "outer":
            assert outer["ts"] <= e["ts"] and e["ts"] + e["dur"] <= outer["ts"] + outer["dur"] + 1e-3
    assert next(e for e in spans if e["name"] == "MatMul")["args"]["Input Dims"] == [[4, 4], [4, 4]]


def test_tensorboard_trace_handler_writes_one_file_per_cycle(tmp_path):
    with profile(schedule=schedule(wait=0, warmup=1, active=1, repeat=2),
                 on_trace_ready=tensorboard_trace_handler(str(tmp_path / "log"), worker_name="w",
                                                          use_gzip=True)) as prof:
        for _ in range(5):
            gg.ones(2).sum().item()
            prof.step()
    files = sorted(os.listdir(tmp_path / "log"))
    assert len(files) == 2 and all(f.startswith("w.") and f.endswith(".pt.trace.json.gz") for f in files)
    with gzip.open(tmp_path / "log" / files[0], "rt") as f:
        assert json.load(f)["traceEvents"]


def test_legacy_profiler_table_lists_events_and_nvtx_is_a_no_op():
    with legacy.profile(use_cuda=True, record_shapes=True) as prof:
        with legacy.record_function("block"):
            gg.ones(3).exp().sum().item()
    assert {e.name for e in prof.function_events} >= {"block"}
    assert str(prof) == prof.table() and "block" in prof.table()
    assert prof.self_cpu_time_total == pytest.approx(prof.total_average().self_cpu_time_total)
    with legacy.profile(enabled=False) as off:
        gg.ones(3).sum().item()
    assert len(off.function_events) == 0
    with legacy.emit_nvtx():
        assert gg.ones(2).sum().item() == 2.0


def test_a_hook_computing_with_glassgrad_leaves_the_op_rows_intact():
    # The hook's own plan runs between two steps: its steps are rows of their own, never children
    # of the step before, and every op row's self time is its whole time.
    from glassgrad.debug import register_hook
    seen = []
    with register_hook("MatMul", lambda node, ins, outs: seen.append(gg.tensor(outs[0]).abs().sum().item()),
                       when="any"):
        with profile() as prof:
            (gg.ones(3, 3) @ gg.ones(3, 3)).exp().sum().item()
    assert seen
    for e in prof.events():
        assert not e.cpu_children and e.self_cpu_time_total == e.cpu_time_total


def test_trace_metadata_is_json_escaped(tmp_path):
    with profile() as prof:
        prof.add_metadata("run", 'a "quoted" name')
    prof.export_chrome_trace(str(tmp_path / "t.json"))
    assert json.loads((tmp_path / "t.json").read_text())["run"] == 'a "quoted" name'
    with pytest.raises(ValueError):
        prof.add_metadata_json("bad", "{not json")


def test_the_profiler_recipe_runs_as_written(tmp_path):
    # PyTorch's profiler recipe, step by step, on glassgrad's resnet18 (a smaller input).
    import warnings
    from glassgrad.vision import models
    model = models.resnet18()
    inputs = gg.randn(2, 3, 32, 32)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("model_inference"):
            model(inputs).sum().item()
    assert "model_inference" in prof.key_averages().table(sort_by="cpu_time_total", row_limit=10)
    assert "Input Shapes" in prof.key_averages(group_by_input_shape=True).table(sort_by="cpu_time_total",
                                                                               row_limit=10)
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True, record_shapes=True) as prof:
        model(inputs).sum().item()
    with pytest.warns(UserWarning, match="per-op memory"):
        prof.key_averages().table(sort_by="self_cpu_memory_usage", row_limit=10)
    prof.export_chrome_trace(str(tmp_path / "trace.json"))
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], with_stack=True) as prof:
        model(inputs).sum().item()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert "Source Location" in prof.key_averages(group_by_stack_n=5).table(sort_by="self_cuda_time_total",
                                                                                 row_limit=2)
    traces = []

    def trace_handler(p):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p.key_averages().table(sort_by="self_cuda_time_total", row_limit=10)
        p.export_chrome_trace(str(tmp_path / f"test_trace_{p.step_num}.json"))
        traces.append(p.step_num)

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=1, warmup=1, active=2), on_trace_ready=trace_handler) as p:
        for _ in range(10):
            model(inputs).sum().item()
            p.step()
    # as torch: the third cycle is still recording when the profile stops, and is handed over too
    assert traces == [4, 8, 10] and all((tmp_path / f"test_trace_{n}.json").exists() for n in traces)


def test_cuda_nvtx_ranges_are_no_ops_that_return_what_nvtx_returns():
    import glassgrad.cuda.nvtx as nvtx
    assert gg.cuda.nvtx is nvtx
    assert nvtx.range_push("outer") == 0 and nvtx.range_push("inner") == 1
    assert nvtx.range_pop() == 1 and nvtx.range_pop() == 0 and nvtx.range_pop() == -1
    rid = nvtx.range_start("async")
    assert isinstance(rid, int) and nvtx.range_end(rid) is None and nvtx.mark("here") is None
    with nvtx.range("step {}", 3):
        assert gg.ones(2).sum().item() == 2.0
    assert nvtx.range_pop() == -1  # the with block closed its range
