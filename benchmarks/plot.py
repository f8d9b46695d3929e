"""Draws the benchmark CSV history (benchmarks/results/*.csv) as PNG charts.

    python benchmarks/plot.py                       # -> docs/images/performance/*.png
    python benchmarks/plot.py --results DIR --out DIR

Charts, per device (machines of one device kind share a chart; the x axis is the run: its
commit and date, oldest first):
  history-end_to_end-<device>-<workload>.png   time per framework over commits
  history-kernel_latency-<device>-<op>.png     glassgrad's latency per shape over commits, and
                                               its ratio to PyTorch's
  history-gpu_memory_usage-<device>-<model>.png  glassgrad's measured and predicted peak over commits
  latest-gpu_memory_usage-<device>.png         peak bytes vs batch size in the latest run
  latest-kernel_latency-<device>.png           glassgrad / PyTorch time per kernel in the latest run

Rows from --tiny runs are skipped (their notes start with "tiny") unless --include-tiny.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from collections import OrderedDict, defaultdict
from typing import Dict, List, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import REPO, RESULTS, read_rows, result_files

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

DEFAULT_OUT = os.path.join(REPO, "docs", "images", "performance")


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()


def is_tiny(row) -> bool:
    return row.get("notes", "").startswith("tiny")


def run_key(row) -> Tuple[str, str]:
    return (row["date"], row["commit"])


def run_label(key: Tuple[str, str]) -> str:
    date, commit = key
    return f"{commit}\n{date[:10]}"


def runs_in(rows) -> List[Tuple[str, str]]:
    return sorted({run_key(r) for r in rows})


def device_kind(device: str) -> str:
    return "cuda" if device.startswith("cuda") else device


def latest_run(rows):
    """Rows of the newest run (by date) among rows."""
    if not rows:
        return []
    key = max(run_key(r) for r in rows)
    return [r for r in rows if run_key(r) == key]


def _history_axes(ax, runs):
    ax.set_xticks(range(len(runs)))
    ax.set_xticklabels([run_label(k) for k in runs], fontsize=7)
    ax.grid(True, alpha=0.3)


def _save(fig, out: str, name: str, written: List[str]) -> None:
    path = os.path.join(out, name)
    fig.tight_layout()
    fig.savefig(path, dpi=90, bbox_inches="tight")
    plt.close(fig)
    written.append(path)


def plot_end_to_end(rows, device, out, written):
    by_workload: Dict[str, list] = OrderedDict()
    for r in rows:
        if r["metric"] in ("epoch_seconds", "step_seconds"):
            by_workload.setdefault(r["workload"], []).append(r)
    for workload, rs in by_workload.items():
        runs = runs_in(rs)
        fig, ax = plt.subplots(figsize=(6.4, 3.6))
        for fw in sorted({r["framework"] for r in rs}):
            pts = [(runs.index(run_key(r)), float(r["value"])) for r in rs if r["framework"] == fw]
            pts.sort()
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=fw)
        _history_axes(ax, runs)
        ax.set_ylabel(rs[0]["metric"].replace("_", " ") + f" ({rs[0]['unit']})")
        ax.set_title(f"{workload} [{device}]", fontsize=9)
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=7)
        _save(fig, out, f"history-end_to_end-{device}-{slug(workload)}.png", written)


def _op_of(workload: str) -> str:
    # "ResNet18: Conv2D x[...] ..." -> "Conv2D"
    rest = workload.split(": ", 1)[-1]
    return rest.split(" x[")[0].split(" [")[0].split(" logits")[0].split(" w[")[0].strip()


def plot_kernel_latency(rows, device, out, written):
    lat = [r for r in rows if r["metric"] == "latency_us"]
    by_op: Dict[str, list] = OrderedDict()
    for r in lat:
        by_op.setdefault(_op_of(r["workload"]), []).append(r)
    for op, rs in by_op.items():
        runs = runs_in(rs)
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.8))
        gg_rows = [r for r in rs if r["framework"].startswith("glassgrad")]
        for workload in OrderedDict.fromkeys(r["workload"] for r in gg_rows):
            pts = sorted((runs.index(run_key(r)), float(r["value"]), r["ratio_vs_torch"])
                         for r in gg_rows if r["workload"] == workload)
            label = workload.replace(f" {op}", "").replace(f"{op} ", "")
            a1.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
            rp = [(p[0], float(p[2])) for p in pts if p[2]]
            if rp:
                a2.plot([p[0] for p in rp], [p[1] for p in rp], marker="o", label=label)
        a1.set_yscale("log")
        a1.set_ylabel("glassgrad latency (us)")
        a2.set_ylabel("glassgrad / PyTorch time")
        a2.axhline(1.0, color="gray", lw=0.8)
        for ax in (a1, a2):
            _history_axes(ax, runs)
        a1.set_title(f"{op} [{device}]", fontsize=9)
        a2.set_title("ratio (< 1: glassgrad faster)", fontsize=9)
        a1.legend(fontsize=6)
        _save(fig, out, f"history-kernel_latency-{device}-{slug(op)}.png", written)
    # latest run: ratio per kernel
    last = [r for r in latest_run(lat) if r["framework"].startswith("glassgrad") and r["ratio_vs_torch"]]
    if last:
        fig, ax = plt.subplots(figsize=(8, 0.22 * len(last) + 1.2))
        names = [r["workload"] for r in last]
        vals = [float(r["ratio_vs_torch"]) for r in last]
        ax.barh(range(len(last)), vals, color=["tab:green" if v <= 1 else "tab:red" for v in vals])
        ax.set_yticks(range(len(last)))
        ax.set_yticklabels(names, fontsize=6)
        ax.invert_yaxis()
        ax.axvline(1.0, color="gray", lw=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("glassgrad time / PyTorch time (log; < 1: glassgrad faster)")
        ax.set_title(f"kernel latency vs PyTorch [{device}], run {last[0]['commit']} {last[0]['date'][:10]}",
                     fontsize=9)
        _save(fig, out, f"latest-kernel_latency-{device}.png", written)


def _model_batch(workload: str) -> Tuple[str, int]:
    m = re.match(r"(.*) train step batch (\d+)", workload)
    return (m.group(1), int(m.group(2))) if m else (workload, 0)


def plot_memory(rows, device, out, written):
    by_model: Dict[str, list] = OrderedDict()
    for r in rows:
        by_model.setdefault(_model_batch(r["workload"])[0], []).append(r)
    for model, rs in by_model.items():
        runs = runs_in(rs)
        fig, ax = plt.subplots(figsize=(6.4, 3.6))
        for metric, style in (("measured_peak_bytes", "-"), ("predicted_peak_bytes", ":")):
            series = defaultdict(list)
            for r in rs:
                if r["metric"] == metric and r["framework"].startswith("glassgrad"):
                    series[_model_batch(r["workload"])[1]].append((runs.index(run_key(r)), float(r["value"]) / 2**20))
            for batch in sorted(series):
                pts = sorted(series[batch])
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o",
                        label=f"batch {batch} {metric.split('_')[0]}")
        _history_axes(ax, runs)
        ax.set_yscale("log")
        ax.set_ylabel("glassgrad peak (MiB)")
        ax.set_title(f"{model} training step peak memory [{device}]", fontsize=9)
        ax.legend(fontsize=6, ncol=2)
        _save(fig, out, f"history-gpu_memory_usage-{device}-{slug(model)}.png", written)
    last = latest_run(rows)
    if last:
        models = list(OrderedDict.fromkeys(_model_batch(r["workload"])[0] for r in last))
        fig, axes = plt.subplots(1, len(models), figsize=(5.2 * len(models), 3.8), squeeze=False)
        for ax, model in zip(axes[0], models):
            series = defaultdict(list)
            for r in last:
                m, b = _model_batch(r["workload"])
                if m != model or r["metric"] not in ("measured_peak_bytes", "predicted_peak_bytes"):
                    continue
                fw = "glassgrad" if r["framework"].startswith("glassgrad") else r["framework"]
                series[f"{fw} {r['metric'].split('_')[0]}"].append((b, float(r["value"]) / 2**20))
            for name in sorted(series):
                pts = sorted(series[name])
                ax.plot([p[0] for p in pts], [p[1] for p in pts], ":" if "predicted" in name else "-",
                        marker="o", label=name)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("batch size")
            ax.set_ylabel("peak of one training step (MiB)")
            ax.set_title(f"{model} [{device}]", fontsize=9)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7)
        fig.suptitle(f"run {last[0]['commit']} {last[0]['date'][:10]}", fontsize=8)
        _save(fig, out, f"latest-gpu_memory_usage-{device}.png", written)


PLOTTERS = {"end_to_end": plot_end_to_end, "kernel_latency": plot_kernel_latency, "gpu_memory_usage": plot_memory}


def plot_all(results: str, out: str, include_tiny: bool = False) -> List[str]:
    rows = [r for r in read_rows(result_files(results)) if include_tiny or not is_tiny(r)]
    os.makedirs(out, exist_ok=True)
    written: List[str] = []
    groups: Dict[Tuple[str, str], list] = defaultdict(list)
    for r in rows:
        groups[(r["script"], device_kind(r["device"]))].append(r)
    for (script, device), rs in sorted(groups.items()):
        if script in PLOTTERS:
            PLOTTERS[script](rs, device, out, written)
    return written


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--results", default=RESULTS, help="folder of CSVs")
    p.add_argument("--out", default=DEFAULT_OUT, help="folder for the PNGs")
    p.add_argument("--include-tiny", action="store_true")
    args = p.parse_args(argv)
    written = plot_all(args.results, args.out, args.include_tiny)
    for path in written:
        print("wrote", os.path.relpath(path))
    if not written:
        print("no rows to plot in", args.results)


if __name__ == "__main__":
    main()
