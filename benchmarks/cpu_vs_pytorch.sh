#!/usr/bin/env bash
# The CPU training-speed comparison of docs/performance.md ("Compute-bound training on the CPU"):
# the ResNet-18 and SimpleCNN training steps against PyTorch in alternating rounds with 1 and 2
# threads, every convolution of both models in all three directions, the DCGAN iteration at a small
# size (dcgan_step.py), end_to_end.py's epochs and
# steps with 1 thread, then the page's tables. Run it with an interpreter that imports torch
# and glassgrad. Usage: bash benchmarks/cpu_vs_pytorch.sh [extra benchmark flags]
#   bash benchmarks/cpu_vs_pytorch.sh --tiny --no-torch     # seconds: proves it runs (CI does this)
set -euo pipefail
cd "$(dirname "$0")/.."
# --8<-- [start:run]
for t in 1 2; do
  python benchmarks/step_time_interleaved.py --device cpu --model resnet18 --batch 32 --threads $t \
    --rounds 5 --steps 2 --warmup 3 "$@"
  python benchmarks/step_time_interleaved.py --device cpu --model simplecnn --batch 32 --threads $t \
    --rounds 5 --steps 20 "$@"
  python benchmarks/step_time_interleaved.py --device cpu --model simplecnn --batch 256 --threads $t \
    --rounds 5 --steps 5 "$@"
  python benchmarks/bench_gemm_conv.py --threads $t --rounds 5 --calls 3 "$@"  # every conv, 3 directions
  python benchmarks/dcgan_step.py --device cpu --threads $t --rounds 5 --steps 3 "$@"  # ngf = ndf = 16, batch 16
done
python benchmarks/end_to_end.py --device cpu --threads 1 "$@"   # epochs and steps, run one after another
[[ " $* " == *" --tiny "* ]] || python benchmarks/report.py       # the tables (tiny runs stay out)
# --8<-- [end:run]
