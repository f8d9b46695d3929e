"""glassgrad.profiler against torch.profiler: the same schedule actions, the same on_trace_ready
calls and ProfilerStep blocks for the same loop, the same parameters, the same table headings
and the same kind of Chrome trace for record_function blocks. The op rows differ by design
(glassgrad's ops, not aten's; docs/debugging.md). Skipped when torch is not importable."""
import inspect
import json
import warnings

import pytest

import glassgrad as gg
import glassgrad.autograd.profiler as gg_legacy
import glassgrad.profiler as gp

torch = pytest.importorskip("torch")
import torch.autograd.profiler as torch_legacy  # noqa: E402
import torch.profiler as tp  # noqa: E402
from torch_versions import skip_if_changed_in_2_14  # noqa: E402


@pytest.mark.parametrize("kw", [dict(wait=1, warmup=1, active=2), dict(wait=0, warmup=0, active=1, repeat=3),
                                dict(wait=2, warmup=1, active=3, repeat=2, skip_first=3),
                                dict(wait=5, warmup=2, active=1, skip_first=2, skip_first_wait=1)])
def test_schedule_gives_torch_s_actions(kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = gp.schedule(**kw), tp.schedule(**kw)
    assert [ours(i).name for i in range(40)] == [theirs(i).name for i in range(40)]
    with pytest.raises(AssertionError):
        gp.schedule(wait=0, warmup=0, active=0)


def _loop(lib, rf, **kw):
    seen = []
    x = lib.ones(3)

    def ready(p):
        seen.append((p.step_num, sorted(e.name for e in p.events() if e.name.startswith(("ProfilerStep", "work")))))

    with lib.profiler.profile(on_trace_ready=ready, **kw) as prof:
        for _ in range(9):
            with rf("work"):
                float((x * 2).sum())
            prof.step()
    return seen


@pytest.mark.parametrize("sched", [None, dict(wait=1, warmup=1, active=2, repeat=1),
                                   dict(wait=0, warmup=1, active=1, repeat=0), dict(wait=1, warmup=1, active=3)])
def test_on_trace_ready_calls_and_step_blocks_match_torch(sched):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kw = {"schedule": gp.schedule(**sched)} if sched else {}
        tkw = {"schedule": tp.schedule(**sched)} if sched else {}
        assert _loop(gg, gp.record_function, **kw) == _loop(torch, tp.record_function, **tkw)


def _params(fn):
    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()
            if p.name not in ("self", "activity_filters")]


@pytest.mark.parametrize("name", ["profile.__init__", "schedule", "tensorboard_trace_handler",
                                  "record_function.__init__"])
def test_parameters_match_torch_profiler(name):
    if name == "profile.__init__":
        skip_if_changed_in_2_14(torch, "profile()'s parameters")
    def get(mod):
        obj = mod
        for part in name.split("."):
            obj = getattr(obj, part)
        return obj
    assert _params(get(gp)) == _params(get(tp))


@pytest.mark.parametrize("name", ["profile.__init__", "emit_nvtx.__init__", "record_function.__init__"])
def test_parameters_match_torch_autograd_profiler(name):
    if name == "profile.__init__":
        skip_if_changed_in_2_14(torch, "autograd.profiler.profile()'s parameters")
    cls, meth = name.split(".")
    assert _params(getattr(getattr(gg_legacy, cls), meth)) == _params(getattr(getattr(torch_legacy, cls), meth))


def test_table_headings_and_footer_match_torch():
    def table(lib):
        with lib.profiler.profile(record_shapes=True) as prof:
            with lib.profiler.record_function("block"):
                float(lib.ones(3, 3).exp().sum())
        return prof.key_averages(group_by_input_shape=True).table(sort_by="cpu_time_total", row_limit=2)
    ours, theirs = table(gg).splitlines(), table(torch).splitlines()
    assert ours[1].split() == theirs[1].split()
    assert ours[-1].split(":")[0] == theirs[-1].split(":")[0] == "Self CPU time total"
    assert ours[3].split()[0] == theirs[3].split()[0] == "block"  # the block holds everything else


def test_chrome_trace_blocks_as_torch_writes_them(tmp_path):
    def trace(lib, path):
        with lib.profiler.profile() as prof:
            with lib.profiler.record_function("outer"):
                float(lib.ones(2).sum())
        prof.export_chrome_trace(str(path))
        return json.loads(path.read_text())
    ours, theirs = trace(gg, tmp_path / "a.json"), trace(torch, tmp_path / "b.json")
    (o,) = [e for e in ours["traceEvents"] if e.get("name") == "outer"]
    (t,) = [e for e in theirs["traceEvents"] if e.get("name") == "outer"]
    assert {k: o[k] for k in ("ph", "cat")} == {k: t[k] for k in ("ph", "cat")}
    assert set(t) >= {"ts", "dur", "pid", "tid"} and set(o) >= {"ts", "dur", "pid", "tid"}


def test_export_stacks_and_trace_metadata_as_torch_writes_them(tmp_path):
    def run(lib, name):
        def inner():
            return float((lib.ones(64, 64) @ lib.ones(64, 64)).exp().sum())
        with lib.profiler.profile(with_stack=True) as prof:
            inner()
            prof.add_metadata("run", "run 7")
            prof.add_metadata_json("config", '{"lr": 0.1}')
        prof.export_stacks(str(tmp_path / f"{name}.stacks"), "self_cpu_time_total")
        prof.export_chrome_trace(str(tmp_path / f"{name}.json"))
        lines = (tmp_path / f"{name}.stacks").read_text().splitlines()
        return lines, json.loads((tmp_path / f"{name}.json").read_text())
    (ours, otrace), (theirs, ttrace) = run(gg, "gg"), run(torch, "torch")
    assert ours  # torch 2.x's CPU profile writes no stacks without its verbose experimental config
    for line in ours + theirs:
        frames, value = line.rsplit(" ", 1)
        assert int(value) > 0 and frames
    assert any(__file__.split("/")[-1] in line for line in ours)
    assert otrace["run"] == ttrace["run"] == "run 7"
    assert otrace["config"] == ttrace["config"] == {"lr": 0.1}
    with pytest.raises(ValueError, match="not measured"):
        gp.profile().export_stacks(str(tmp_path / "x"), "self_cuda_time_total")


@pytest.mark.parametrize("name", ["range_push", "range_pop", "range_start", "range_end", "mark", "range"])
def test_parameters_match_torch_cuda_nvtx(name):
    import glassgrad.cuda.nvtx as gn
    import torch.cuda.nvtx as tn
    assert _params(getattr(gn, name)) == _params(getattr(tn, name))
