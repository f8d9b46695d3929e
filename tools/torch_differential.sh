#!/usr/bin/env bash
# Runs the differential tests against PyTorch in a Python environment that has torch:
#   test_torch_differential.py         every layer, function, optimizer and learning-rate scheduler
#                                      argument of tests/argument_table.py: forward, gradients, running
#                                      statistics, three optimizer steps, 30 scheduler steps
#   test_torch_differential_tensor.py  the aliasing table of in-place ops and views, indexing and its
#                                      gradients, optimizers written by hand against torch.optim
#   test_torch_surface.py              the tensor surface of tests/torch_surface_table.py (values,
#                                      dtypes, gradients), type promotion, subgradients at kinks and ties
#   test_torch_signatures.py           every layer, F function, optimizer and scheduler signature, and
#                                      how every layer prints
#   test_torch_functional_sweep_*.py   torch.nn.functional over argument forms, dtypes and layouts:
#                                      values, gradients and error classes (tests/functional_sweep.py)
#   test_torch_sweep7_functions.py     the torch.* functions glassgrad has over argument forms and
#                                      dtypes: values, dtypes, shapes and error classes
# CI's environment never installs torch, so there the tests skip;
# this script is how it runs.
#
#   TORCH_PYTHON=/path/to/venv/bin/python bash tools/torch_differential.sh [pytest args]
#
# TORCH_PYTHON: an interpreter that imports torch (CPU is enough) and numpy; default python3.
# glassgrad comes from the development build of this checkout (bash tools/dev_build.sh, run
# first here when the extension is missing), through PYTHONPATH, so torch's environment needs
# no glassgrad install.
set -euo pipefail
cd "$(dirname "$0")/.."
py=${TORCH_PYTHON:-python3}
if ! "$py" -c 'import torch' 2>/dev/null; then
  echo "torch_differential.sh: $py cannot import torch" >&2
  echo "  fix: TORCH_PYTHON=/path/to/an/env/with/torch/bin/python bash tools/torch_differential.sh" >&2
  exit 2
fi
if ! ls python-bindings/glassgrad/_C*.so >/dev/null 2>&1; then bash tools/dev_build.sh; fi
"$py" -c 'import torch, sys; print(f"torch {torch.__version__}, python {sys.version.split()[0]}")'
PYTHONPATH=python-bindings "$py" -m pytest -p no:cacheprovider -q python-bindings/tests/test_torch_differential.py \
  python-bindings/tests/test_torch_differential_tensor.py python-bindings/tests/test_torch_surface.py \
  python-bindings/tests/test_torch_signatures.py python-bindings/tests/test_torch_functional_sweep_spatial.py \
  python-bindings/tests/test_torch_functional_sweep_losses.py python-bindings/tests/test_torch_functional_sweep_edges.py \
  python-bindings/tests/test_torch_sweep7_functions.py "$@"
