#!/usr/bin/env bash
# Runs every benchmark on one device and regenerates the charts and the tables of
# docs/performance.md. Usage: bash benchmarks/run_all.sh [cpu|cuda] [extra benchmark flags]
#   bash benchmarks/run_all.sh cpu --tiny     # seconds: proves the scripts run (CI does this)
set -euo pipefail
cd "$(dirname "$0")/.."
device=${1:-cpu}
shift || true
# --8<-- [start:run]
python benchmarks/end_to_end.py --device "$device" "$@"        # epochs and steps vs PyTorch
python benchmarks/kernel_latency.py --device "$device" "$@"    # one kernel at a time
python benchmarks/gpu_memory_usage.py --device "$device" "$@"  # predicted vs measured peaks
python benchmarks/checkpoint_depth_scaling.py --device "$device" "$@"  # memory vs depth under a budget
python benchmarks/step_time_interleaved.py --device "$device" "$@"  # one step vs PyTorch, alternating rounds
python benchmarks/conv_precision.py --device "$device" "$@"  # float32 error of every conv algorithm vs PyTorch
if [[ "$device" == cpu ]]; then                                # CPU convolutions vs PyTorch, all directions
  python benchmarks/bench_gemm_conv.py "$@"; fi
[[ " $* " == *" --tiny "* ]] ||                                # (tiny runs stay out of the history)
  { python benchmarks/plot.py && python benchmarks/report.py; } # charts, then the tables
# --8<-- [end:run]
