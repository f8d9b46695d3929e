"""Every benchmark script runs at a tiny size and writes well-formed CSV rows; plot.py and
report.py turn CSVs into charts and tables; docs/performance.md matches the committed CSVs.

These tests never look at how fast anything was: timings are measurements, not thresholds.
The scripts run in a subprocess with this interpreter and environment, so they import the same
glassgrad as the tests (and PyTorch too, when it is installed: then its rows are checked as well).
"""
from __future__ import annotations

import csv
import datetime
import math
import os
import subprocess
import sys

import pytest

import glassgrad as gg

pytestmark = pytest.mark.slow  # end-to-end runs: `pytest -m 'not slow'` leaves them out

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(REPO, "benchmarks")
COLUMNS = ["date", "commit", "machine", "device", "workload", "metric", "value", "unit", "framework",
           "ratio_vs_torch", "notes", "flop", "algorithm_flop", "bytes", "gflop_per_s", "gbyte_per_s",
           "peak_gflop_per_s", "peak_gbyte_per_s", "fma_peak_fraction", "bandwidth_peak_fraction"]


def assert_roofline(row, flop, nbytes):
    """A row's roofline columns: its counts, rates at its time, and fractions of its peaks."""
    seconds = float(row["value"]) * {"us": 1e-6, "ms": 1e-3, "s": 1.0}[row["unit"]]
    assert float(row["flop"]) == pytest.approx(flop, rel=1e-5), row
    assert float(row["bytes"]) == pytest.approx(nbytes, rel=1e-5), row
    assert float(row["gflop_per_s"]) == pytest.approx(flop / seconds / 1e9, rel=1e-3), row
    assert float(row["gbyte_per_s"]) == pytest.approx(nbytes / seconds / 1e9, rel=1e-3), row
    done = float(row["algorithm_flop"] or row["flop"])
    assert float(row["fma_peak_fraction"]) == pytest.approx(done / seconds / 1e9 / float(row["peak_gflop_per_s"]),
                                                            rel=1e-3), row
    assert float(row["bandwidth_peak_fraction"]) == pytest.approx(
        nbytes / seconds / 1e9 / float(row["peak_gbyte_per_s"]), rel=1e-3), row


def run_script(name, *args, timeout=600):
    proc = subprocess.run([sys.executable, os.path.join(BENCH, name), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=REPO)
    assert proc.returncode == 0, f"{name} {' '.join(args)} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def read_csv(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == COLUMNS
        return list(reader)


def assert_well_formed(rows, device="cpu"):
    assert rows, "the script wrote no rows"
    runs = {(r["date"], r["commit"]) for r in rows}
    assert len(runs) == 1, f"one run must share one date and commit, got {runs}"
    for r in rows:
        datetime.datetime.fromisoformat(r["date"])
        assert r["commit"] and r["machine"]
        assert r["device"] == device
        assert r["workload"] and r["metric"] and r["framework"]
        value = float(r["value"])
        assert math.isfinite(value) and value >= 0, r
        if r["ratio_vs_torch"]:
            assert r["framework"].startswith("glassgrad"), r
            assert float(r["ratio_vs_torch"]) > 0, r
        assert r["notes"].startswith("tiny"), "tiny runs are marked so plots and reports skip them"


def has_torch_rows(rows):
    return any(r["framework"].startswith("torch") for r in rows)


@pytest.fixture(scope="module")
def tiny_results(tmp_path_factory):
    """Each script once with --tiny into its own CSV (module-scoped: they take seconds each)."""
    d = tmp_path_factory.mktemp("bench")
    for script in ("gpu_memory_usage", "kernel_latency", "end_to_end", "checkpoint_depth_scaling"):
        run_script(f"{script}.py", "--tiny", "--csv", str(d / f"{script}.csv"))
    return d


def test_gpu_memory_usage_tiny_writes_predicted_and_measured_peaks(tiny_results):
    rows = read_csv(tiny_results / "gpu_memory_usage.csv")
    assert_well_formed(rows)
    workloads = {r["workload"] for r in rows}
    assert any(w.startswith("SimpleCNN train step batch") for w in workloads)
    assert any(w.startswith("ResNet18") for w in workloads)
    for w in workloads:
        g = {r["metric"]: float(r["value"]) for r in rows if r["workload"] == w and r["framework"] == "glassgrad"}
        assert set(g) == {"predicted_peak_bytes", "arena_bytes", "held_before_bytes", "measured_peak_bytes"}
        assert g["arena_bytes"] > 0 and g["predicted_peak_bytes"] >= g["arena_bytes"]
        # the measured peak holds the step's inputs and its arena at least
        assert g["measured_peak_bytes"] >= g["held_before_bytes"] + g["arena_bytes"] > 0
        if has_torch_rows(rows):
            assert any(r["workload"] == w and r["framework"].startswith("torch") for r in rows)


def test_kernel_latency_tiny_times_every_kernel_with_a_rate(tiny_results):
    rows = read_csv(tiny_results / "kernel_latency.csv")
    assert_well_formed(rows)
    ops = {r["workload"].split(": ", 1)[1].split(" ")[0] for r in rows}
    for op in ("Conv2D", "Conv2DBackwardInput", "Conv2DBackwardWeight", "ReLU", "BatchNorm2DTrain",
               "BatchNorm2DBackward", "MaxPool2D", "MaxPool2DBackward", "MatMul", "CrossEntropy"):
        assert op in ops, f"{op} missing from {sorted(ops)}"
    for w in {r["workload"] for r in rows}:
        mine = [r for r in rows if r["workload"] == w and r["framework"] == "glassgrad"]
        assert {r["metric"] for r in mine} == {"latency_us", "rate"}
        rate = next(r for r in mine if r["metric"] == "rate")
        assert rate["unit"] in ("GFLOP/s", "GB/s")
        if has_torch_rows(rows):
            lat = next(r for r in mine if r["metric"] == "latency_us")
            assert lat["ratio_vs_torch"], "with PyTorch importable every kernel gets a ratio"
            assert "rel. error vs torch" in lat["notes"]


def test_end_to_end_tiny_times_epochs_and_resnet_steps(tiny_results):
    rows = read_csv(tiny_results / "end_to_end.csv")
    assert_well_formed(rows)
    metrics = {(r["framework"], r["metric"]) for r in rows}
    for fw in ("glassgrad", "glassgrad.compile"):
        for m in ("epoch_seconds", "test_accuracy", "step_seconds", "images_per_second", "peak_bytes"):
            assert (fw, m) in metrics, f"{fw} {m} missing"
    workloads = {r["workload"] for r in rows}
    assert any(w.startswith("SimpleCNN epoch batch 32") for w in workloads)
    assert any("train step batch" in w and w.startswith("ResNet18") for w in workloads)
    acc = [float(r["value"]) for r in rows if r["metric"] == "test_accuracy"]
    assert all(0.0 <= a <= 1.0 for a in acc)


def test_ordinary_gpu_tiny_times_convolutions_steps_and_an_epoch(tmp_path):
    """ordinary_gpu.py without MPS on the CPU (the MPS slice needs a GPU machine): every workload
    kind writes rows; the SM count suffix is absent off the GPU."""
    out = tmp_path / "ordinary_gpu.csv"
    run_script("ordinary_gpu.py", "--tiny", "--no-mps", "--device", "cpu", "--csv", str(out))
    rows = read_csv(out)
    assert_well_formed(rows)
    workloads = {r["workload"] for r in rows if r["framework"].startswith("glassgrad")}
    for direction in ("forward", "input grad", "weight grad"):
        assert any(w.startswith("conv 3x3/1") and direction in w for w in workloads), (direction, workloads)
    assert any(w.startswith("ResNet18") and "train step batch 2" in w for w in workloads), workloads
    assert any(w.startswith("LSTM train step 2 layers") for w in workloads), workloads
    assert any(w.startswith("SimpleCNN epoch batch 32") for w in workloads), workloads


def test_ordinary_gpu_tiny_times_the_gpt_step_and_its_peak_memory(tmp_path):
    """ordinary_gpu.py --only gpt on the CPU: the GPT step's time and peak memory rows (with a
    ratio to PyTorch eager when it is importable)."""
    out = tmp_path / "ordinary_gpu.csv"
    run_script("ordinary_gpu.py", "--tiny", "--no-mps", "--device", "cpu", "--only", "gpt", "--csv", str(out))
    rows = read_csv(out)
    assert_well_formed(rows)
    ours = [r for r in rows if r["framework"] == "glassgrad.compile" and r["workload"].startswith("GPT 2x32")]
    assert {r["metric"] for r in ours} == {"synchronized_step_ms", "peak_memory_mb"}, rows
    if has_torch_rows(rows):
        assert [r for r in ours if r["metric"] == "synchronized_step_ms"][0]["ratio_vs_torch"]


def test_dcgan_step_tiny_times_the_iteration_alone_and_under_ordinary_gpu(tmp_path):
    """dcgan_step.py on the CPU with its thread count, and as ordinary_gpu.py's dcgan workload."""
    out = tmp_path / "dcgan_step.csv"
    run_script("dcgan_step.py", "--tiny", "--threads", "1", "--csv", str(out))
    rows = read_csv(out)
    assert_well_formed(rows)
    assert {r["workload"] for r in rows} == {"DCGAN iteration 64x64 ngf 4 ndf 4 batch 2, 1 thread"}
    assert {r["metric"] for r in rows if r["framework"] == "glassgrad.compile"} == {"synchronized_step_ms",
                                                                                     "pipelined_step_ms"}
    # every row carries the iteration's FLOPs (roofline.dcgan_counts: D three times forward and
    # backward, G once) and the rates at its own time
    flop = {float(r["flop"]) for r in rows}
    assert len(flop) == 1 and flop.pop() > 0
    for r in rows:
        assert_roofline(r, float(r["flop"]), float(r["bytes"]))
    if has_torch_rows(rows):
        assert all(r["ratio_vs_torch"] for r in rows if r["framework"] == "glassgrad.compile")
    out = tmp_path / "ordinary_gpu.csv"
    run_script("ordinary_gpu.py", "--tiny", "--no-mps", "--device", "cpu", "--only", "dcgan", "--csv", str(out))
    assert {r["workload"] for r in read_csv(out)} == {"DCGAN iteration 64x64 ngf 4 ndf 4 batch 2"}


def test_indexing_latency_tiny_times_gather_scatter_add_and_index_select(tmp_path):
    """indexing_latency.py on the CPU without MPS: each of the three ops, large and small, writes a
    row (next to PyTorch's, with a ratio, when torch is importable)."""
    out = tmp_path / "indexing_latency.csv"
    run_script("indexing_latency.py", "--tiny", "--no-mps", "--device", "cpu", "--csv", str(out))
    rows = read_csv(out)
    assert_well_formed(rows)
    workloads = {r["workload"] for r in rows if r["framework"].startswith("glassgrad")}
    for op in ("gather", "scatter_add", "index_select"):
        for size in ("large", "small"):
            assert any(w.startswith(f"{op} {size}") for w in workloads), (op, size, workloads)


def test_attention_backward_tiny_times_both_backward_paths(tmp_path):
    """attention_backward.py on the CPU without MPS: each workload writes a row for glassgrad's
    default backward and its deterministic one (next to PyTorch's, with a ratio, when torch is
    importable)."""
    out = tmp_path / "attention_backward.csv"
    run_script("attention_backward.py", "--tiny", "--no-mps", "--device", "cpu", "--csv", str(out))
    rows = read_csv(out)
    assert_well_formed(rows)
    for name in ("gpt", "head128"):
        frameworks = {r["framework"] for r in rows if r["workload"].startswith(f"attention backward {name} ")}
        assert {"glassgrad", "glassgrad deterministic"} <= frameworks, (name, frameworks)
        assert has_torch_rows(rows) == any(f.startswith("torch") for f in frameworks)


def test_gpt_products_tiny_times_each_layers_three_products_and_the_steps_sum(tmp_path):
    """gpt_products.py on the CPU without MPS: a row for each Linear layer's forward, input
    gradient and weight gradient (next to PyTorch's, with a ratio, when torch is importable), then
    the step's sum of them."""
    out = tmp_path / "gpt_products.csv"
    run_script("gpt_products.py", "--tiny", "--no-mps", "--device", "cpu", "--csv", str(out))
    rows = read_csv(out)
    assert_well_formed(rows)
    ours = [r for r in rows if r["framework"] == "glassgrad"]
    labels = [r["workload"].split(" [")[0] for r in ours if r["metric"] == "ms_per_product"]
    assert labels == [f"gpt product {layer} {d}" for layer in ("fc1", "fc2") for d in ("fwd", "dx", "dw")]
    assert [r["metric"] for r in ours][-1] == "ms_per_step"
    assert all(math.isfinite(float(r["value"])) and float(r["value"]) > 0 for r in ours)
    assert has_torch_rows(rows) == any(r["framework"].startswith("torch") for r in rows)


def test_linear_inference_tiny_times_both_forms_of_the_transposed_weight_product(tmp_path):
    out = tmp_path / "linear.csv"
    run_script("linear_inference.py", "--tiny", "--threads", "1", "--csv", str(out))
    rows = read_csv(out)
    assert_well_formed(rows)
    ours = [r for r in rows if r["framework"] == "glassgrad"]
    assert {r["workload"].split("row, ")[-1].split("rows, ")[-1] for r in ours} == {"F.linear(x, W)", "x @ W.T"}
    assert len(ours) == 4 and all(r["metric"] == "ms_per_call" and math.isfinite(float(r["value"])) for r in ours)


def test_bench_gemm_conv_tiny_times_sgemm_and_convolutions_in_three_directions(tmp_path):
    """bench_gemm_conv.py: SGEMM next to NumPy and a convolution forward, input gradient and
    weight gradient, each next to PyTorch when it is importable (then with a ratio)."""
    out = tmp_path / "bench_gemm_conv.csv"
    run_script("bench_gemm_conv.py", "--tiny", "--threads", "1", "--csv", str(out))
    rows = read_csv(out)
    assert_well_formed(rows)
    assert all("glassgrad 1 threads" in r["notes"] and "GFLOP/s" in r["notes"] for r in rows)
    ours = [r for r in rows if r["framework"] == "glassgrad"]
    assert any(r["workload"].startswith("sgemm") for r in ours)
    assert any(r["workload"].startswith("sgemm") and r["framework"].startswith("numpy") for r in rows)
    for direction in ("forward", "input grad", "weight grad"):
        mine = [r for r in ours if r["workload"].startswith("conv 3x3/1 pad 1") and r["workload"].endswith(direction)]
        assert len(mine) == 1, (direction, [r["workload"] for r in ours])
        if has_torch_rows(rows):
            assert mine[0]["ratio_vs_torch"], "with PyTorch importable every convolution gets a ratio"
        # the tiny shape [2,3,8,8] -> 4, 3x3, padding 1: 2 x 4 x 8 x 8 x 3 x 9 multiply-adds; x, w, y once
        for r in [r for r in rows if r["workload"].endswith(direction)]:
            assert_roofline(r, 2 * 2 * 4 * 64 * 3 * 9, 4 * (2 * 3 * 64 + 4 * 3 * 9 + 2 * 4 * 64))
    for r in rows:
        if r["workload"] == "sgemm 64x64x64":
            assert_roofline(r, 2 * 64 ** 3, 3 * 4 * 64 * 64)


def test_step_time_interleaved_tiny_names_the_thread_count_on_the_cpu(tmp_path):
    out = tmp_path / "step_time_interleaved.csv"
    run_script("step_time_interleaved.py", "--tiny", "--device", "cpu", "--model", "simplecnn", "--threads", "1",
               "--warmup", "1", "--csv", str(out))
    rows = read_csv(out)
    assert_well_formed(rows)
    assert {r["workload"] for r in rows} == {"SimpleCNN train step batch 2, 1 thread"}
    assert {r["metric"] for r in rows if r["framework"] == "glassgrad.compile"} == {"synchronized_step_ms",
                                                                                     "pipelined_step_ms"}
    # every row carries the iteration's FLOPs (roofline.dcgan_counts: D three times forward and
    # backward, G once) and the rates at its own time
    flop = {float(r["flop"]) for r in rows}
    assert len(flop) == 1 and flop.pop() > 0
    for r in rows:
        assert_roofline(r, float(r["flop"]), float(r["bytes"]))


def test_host_time_breakdown_tiny_times_both_loops_and_every_phase(tmp_path):
    out = tmp_path / "host_time_breakdown.csv"
    run_script("host_time_breakdown.py", "--tiny", "--device", "cpu", "--threads", "1", "--csv", str(out))
    rows = read_csv(out)
    assert_well_formed(rows)
    assert {r["workload"] for r in rows} == {"SimpleCNN train step batch 2, 1 thread"}
    steps = {r["framework"]: r for r in rows if r["metric"] == "step_ms"}
    assert set(steps) == {"glassgrad (plain loop)", "glassgrad.compile"}
    assert "plain / compile" in steps["glassgrad (plain loop)"]["notes"]
    piped = {r["framework"]: r for r in rows if r["metric"] == "pipelined_step_ms"}
    assert set(piped) == set(steps) and all(float(r["value"]) > 0 for r in piped.values())
    assert "back to back" in piped["glassgrad.compile"]["notes"]
    host = {r["metric"]: float(r["value"]) for r in rows if r["metric"].startswith("host_")}
    phases = ("record", "backward_export", "differentiate", "backward_import", "export", "signature", "plan_lookup",
              "compile", "bind", "launch", "settle", "transfer", "python")
    assert set(host) == {f"host_{p}_ms" for p in phases + ("graph", "wall")}
    assert all(v >= 0 for v in host.values())
    assert host["host_launch_ms"] > 0 and host["host_wall_ms"] >= host["host_launch_ms"]


def test_host_time_breakdown_phases_times_each_part_of_the_plain_step(tmp_path):
    out = tmp_path / "host_time_breakdown.csv"
    run_script("host_time_breakdown.py", "--tiny", "--phases", "--device", "cpu", "--threads", "1", "--csv", str(out))
    rows = read_csv(out)
    assert_well_formed(rows)
    parts = {r["metric"]: float(r["value"]) for r in rows if r["metric"].startswith("phase_")}
    assert set(parts) == {f"phase_{p}_us" for p in ("input", "forward", "loss", "backward", "step_host", "zero_grad",
                                                     "item", "host")}
    assert all(v >= 0 for v in parts.values()) and parts["phase_forward_us"] > 0


def test_checkpoint_depth_scaling_tiny_finds_the_smallest_budget_and_fits_growth(tiny_results):
    rows = read_csv(tiny_results / "checkpoint_depth_scaling.csv")
    assert_well_formed(rows)
    val = {(r["workload"], r["metric"]): float(r["value"]) for r in rows}
    depths = sorted({int(w.split("depth ")[1].split()[0]) for w, _ in val if " depth " in w})
    assert len(depths) >= 2
    for d in depths:
        wl = next(w for w, _ in val if w.startswith(f"plain CNN depth {d} ") and w.endswith(" no budget"))[:-len(" no budget")]
        plain, small = f"{wl} no budget", f"{wl} smallest budget"
        for name in (plain, small):
            for m in ("need_mib", "predicted_peak_mib", "measured_peak_mib", "replay_peak_mib", "activation_mib",
                      "predicted_activation_mib", "step_ms", "recomputed_steps"):
                assert (name, m) in val, f"{name} {m} missing"
            # the allocator's peak over the planned step matches memory_report's prediction within 5%
            assert abs(val[(name, "measured_peak_mib")] / val[(name, "predicted_peak_mib")] - 1) < 0.05
        assert 0 < val[(small, "need_mib")] <= val[(small, "budget_mib")]  # the budget is respected
        assert val[(small, "need_mib")] < val[(plain, "need_mib")], "checkpointing must lower the need"
        # every plan recomputes its cheap activations (remat.h, cheap_recomputes); checkpointing more
        assert val[(small, "recomputed_steps")] > val[(plain, "recomputed_steps")]
        assert val[(small, "step_time_vs_no_budget")] > 0
        budget_row = next(r for r in rows if r["workload"] == small and r["metric"] == "budget_mib")
        assert "need - 1 B fails" in budget_row["notes"], "the smallest budget is the smallest"
    metrics = {r["metric"] for r in rows}
    for kind in ("measured", "predicted"):
        for case in ("no_budget", "smallest_budget"):
            assert f"growth_exponent_{case}_{kind}" in metrics


def test_tiny_run_without_csv_stays_out_of_the_results_history(tmp_path):
    before = sorted(os.listdir(os.path.join(BENCH, "results"))) if os.path.isdir(os.path.join(BENCH, "results")) else []
    mtimes = {f: os.path.getmtime(os.path.join(BENCH, "results", f)) for f in before}
    proc = run_script("kernel_latency.py", "--tiny", "--no-torch", "--only", "ReLU")
    assert "wrote" in proc.stdout
    after = sorted(os.listdir(os.path.join(BENCH, "results"))) if os.path.isdir(os.path.join(BENCH, "results")) else []
    assert after == before
    assert all(os.path.getmtime(os.path.join(BENCH, "results", f)) == t for f, t in mtimes.items())


def test_plot_draws_png_charts_from_csvs(tiny_results, tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "charts"
    run_script("plot.py", "--results", str(tiny_results), "--out", str(out), "--include-tiny")
    pngs = sorted(os.listdir(out))
    assert any(p.startswith("history-end_to_end-cpu-") for p in pngs)
    assert any(p.startswith("history-kernel_latency-cpu-conv2d") for p in pngs)
    assert "latest-gpu_memory_usage-cpu.png" in pngs
    for p in pngs:
        with open(out / p, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_report_writes_tables_between_its_markers_and_keeps_the_prose(tiny_results, tmp_path):
    doc = tmp_path / "performance.md"
    doc.write_text("# Performance\n\nhand-written prose\n\n<!-- BEGIN GENERATED by benchmarks/report.py from "
                   "benchmarks/results/*.csv: do not edit by hand -->\nold\n<!-- END GENERATED -->\n\ntail prose\n")
    results = tmp_path / "results"
    results.mkdir()
    # report.py skips tiny rows: present these as a real run
    for name in os.listdir(tiny_results):
        rows = read_csv(tiny_results / name)
        for r in rows:
            r["notes"] = r["notes"][len("tiny"):].lstrip("; ")
        with open(results / name, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=COLUMNS)
            w.writeheader()
            w.writerows(rows)
    run_script("report.py", "--results", str(results), "--images", str(tmp_path / "none"), "--doc", str(doc))
    text = doc.read_text()
    assert text.startswith("# Performance\n\nhand-written prose\n") and text.endswith("\n\ntail prose\n")
    assert "\nold\n" not in text
    for title in ("### End to end: training (cpu)", "### Kernel latency (cpu)",
                  "### Peak memory of one training step (cpu)"):
        assert title in text
    assert "| SimpleCNN | Conv2D |" in text
    proc = subprocess.run([sys.executable, os.path.join(BENCH, "report.py"), "--results", str(results), "--images",
                           str(tmp_path / "none"), "--doc", str(doc), "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_performance_page_matches_the_committed_results():
    proc = subprocess.run([sys.executable, os.path.join(BENCH, "report.py"), "--check"], capture_output=True,
                          text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stderr + proc.stdout


def test_run_all_script_runs_every_benchmark_tiny():
    """benchmarks/run_all.sh is what docs/performance.md shows; CI runs it at a tiny size."""
    import subprocess
    import sys
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    pkg = os.path.dirname(os.path.dirname(gg.__file__))
    env["PYTHONPATH"] = pkg + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run(["bash", os.path.join(BENCH, "run_all.sh"), "cpu", "--tiny", "--no-torch"],
                         capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]


def test_cpu_vs_pytorch_script_runs_tiny():
    """benchmarks/cpu_vs_pytorch.sh is what docs/performance.md shows for the CPU comparison."""
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    pkg = os.path.dirname(os.path.dirname(gg.__file__))
    env["PYTHONPATH"] = pkg + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run(["bash", os.path.join(BENCH, "cpu_vs_pytorch.sh"), "--tiny", "--no-torch"],
                         capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]


def test_profile_cpu_ops_tiny_times_every_op_of_the_gpt_step(tmp_path):
    out = tmp_path / "profile_cpu_ops.csv"
    proc = run_script("profile_cpu_ops.py", "--gpt-size", "tiny", "--steps", "1", "--csv", str(out))
    rows = read_csv(out)
    assert_well_formed(rows)
    ops = " ".join(r["workload"] for r in rows)
    for op in ("LayerNorm", "LayerNormBackward", "ScaledDotProductAttention", "MatMul", "AdamUpdate"):
        assert f": {op} (" in ops, (op, proc.stdout[-2000:])
    assert any(r["framework"] == "glassgrad.compile" and ":" not in r["workload"] for r in rows)


def test_profile_kernels_says_what_it_needs_without_a_gpu():
    # The profiler reads CUDA kernels through PyTorch's CUPTI; on a CPU device it explains and exits 0.
    proc = run_script("profile_kernels.py", "--device", "cpu")
    assert "needs PyTorch with CUDA" in proc.stdout


def test_data_parallel_tiny_runs_two_mpi_ranks_against_one_process(tmp_path):
    pytest.importorskip("mpi4py", reason="the CPU data-parallel benchmark needs mpi4py: pip install 'glassgrad[distributed]'")
    out = tmp_path / "data_parallel.csv"
    run_script("data_parallel.py", "--tiny", "--no-torch", "--csv", str(out))
    rows = {r["metric"]: r for r in read_csv(out)}
    assert {"max_loss_difference", "step_time_2_ranks", "step_time_1_process"} <= set(rows)
    # SyncBatchNorm ranks follow the single process to float32 rounding (amplified a little by
    # training on 8 images a step).
    assert float(rows["max_loss_difference"]["value"]) < 1e-3, rows["max_loss_difference"]["notes"]


def test_data_loading_tiny_compares_input_pipelines_with_and_without_workers(tmp_path):
    """data_loading.py: the CIFAR pipeline's images/s for glassgrad's DataLoader (and PyTorch's,
    then with a ratio) at num_workers 0 and 2, and the training process's CPU time per batch of
    both DataLoaders at batches of 256 and 32."""
    out = tmp_path / "data_loading.csv"
    run_script("data_loading.py", "--tiny", "--csv", str(out))
    rows = read_csv(out)
    assert_well_formed(rows)
    mine = [r for r in rows if r["framework"] == "glassgrad"]
    assert {"images_per_second", "main_process_us_per_batch"} <= {r["metric"] for r in mine} <= {
        "images_per_second", "main_process_us_per_batch", "worker_us_per_batch"}
    pipeline = [r for r in mine if r["workload"].startswith("CIFAR pipeline")]
    assert {r["metric"] for r in pipeline} == {"images_per_second"}
    assert sorted(r["workload"].split(", ")[1].split(" (")[0] for r in pipeline) == ["num_workers 0", "num_workers 2"]
    # loader_cpu: per batch size, the training process's CPU time and the images/s beside it.
    loader = [r for r in mine if r["workload"].startswith("DataLoader main process")]
    assert len(loader) + len(pipeline) == len(mine)
    cpu = [r for r in loader if r["metric"] == "main_process_us_per_batch"]
    assert sorted(r["workload"].split(", ")[2] for r in cpu) == ["batch 256", "batch 32"]
    assert sorted(r["workload"].split(", ")[2] for r in loader if r["metric"] == "images_per_second") == ["batch 256", "batch 32"]
    assert all(float(r["value"]) > 0 and r["unit"] == "us" for r in cpu)
    # The workers' CPU per batch, where the system accounts it per process (Linux): 2 workers.
    workers = [r for r in loader if r["metric"] == "worker_us_per_batch"]
    if os.path.exists(f"/proc/{os.getpid()}/schedstat"):
        assert sorted(r["workload"].split(", ")[2] for r in workers) == ["batch 256", "batch 32"]
        assert all(float(r["value"]) > 0 and r["unit"] == "us" for r in workers)
    if has_torch_rows(rows):
        assert all(r["ratio_vs_torch"] for r in mine)


def _package_env():
    """The environment for a benchmark script: the glassgrad this test imported first on the path."""
    return dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(gg.__file__)) + os.pathsep
                + os.environ.get("PYTHONPATH", ""))


def test_conv_precision_tiny_measures_every_cpu_algorithm_against_float64(tmp_path):
    out_csv = tmp_path / "precision.csv"
    env = _package_env()
    proc = subprocess.run([sys.executable, os.path.join(BENCH, "conv_precision.py"), "--tiny", "--csv", str(out_csv)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    rows = list(csv.DictReader(open(out_csv)))
    algos = {r["workload"].rsplit(" ", 1)[1] for r in rows if r["framework"] == "glassgrad"}
    assert {"gemm", "winograd2", "winograd4", "auto", "auto+fast_winograd"} <= algos
    assert {r["workload"].split(" ")[1] for r in rows} == {"forward", "input_grad", "weight_grad"}
    assert all(0 < float(r["value"]) < 1e-3 for r in rows)
    table = subprocess.run([sys.executable, os.path.join(BENCH, "conv_precision.py"), "--markdown", str(out_csv)],
                           capture_output=True, text=True, env=env, timeout=120).stdout
    assert table.startswith("| convolution | direction |"), table


def test_conv_port_drift_tiny_compares_float32_drift_with_pytorchs(tmp_path):
    pytest.importorskip("torch")
    out_csv = tmp_path / "drift.csv"
    env = _package_env()
    proc = subprocess.run([sys.executable, os.path.join(BENCH, "conv_port_drift.py"), "--tiny", "--csv", str(out_csv)],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    rows = list(csv.DictReader(open(out_csv)))
    same = [float(r["value"]) for r in rows if r["metric"].endswith("_f64_vs_torch_f64")]
    assert same and max(same) < 1e-8, same  # the same rules: float64 runs agree to rounding
    drift = [float(r["value"]) for r in rows if r["metric"] == "param_distance"]
    assert drift and all(0 < d < 1e-3 for d in drift), drift
