"""cs230-stanford/cs230-code-examples (the pytorch/ folder: the NER tagger of pytorch/nlp and the
SIGNS image classifier of pytorch/vision), ported on the fly with their imports changed only from
$GLASSGRAD_SCRIPT_SOURCES/cs230-code-examples (script_sources.py; without it these tests skip).
Each project runs as its README's quickstart does, in a ported copy of its folder, with nothing
edited: nlp builds its vocabulary from the repository's own data/small, trains base_model (10
epochs), evaluates the best weights and searches three learning rates (search_hyperparams.py runs
train.py in child interpreters) and tabulates them (synthesize_results.py, with tabulate); vision
resizes a small SIGNS-layout set of random JPEGs (40 training, 12 test images), trains with four
loader workers and evaluates.

Every step also ran under PyTorch 2.14.1 on the same files (a driver outside the repository) and
ended as here; the metrics differ only by the random initial weights (glassgrad's generator is not
PyTorch's, docs/porting.md)."""
import json
import os
import subprocess
import sys

import pytest

from data_fixtures import write_signs
from script_sources import checkout, needs, port_script
from test_ported_scripts import _env

REPO = "cs230-code-examples"


def _step(folder, *args):
    proc = subprocess.run([sys.executable, *args], cwd=folder, capture_output=True, text=True, timeout=900,
                          env=_env())
    assert proc.returncode == 0, f"{args}\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout + proc.stderr


def _metrics(path):
    with open(path, encoding="utf-8") as f:
        metrics = json.load(f)
    assert set(metrics) == {"accuracy", "loss"} and 0 <= metrics["accuracy"] <= 1 and metrics["loss"] > 0, metrics
    return metrics


@needs(REPO)
def test_nlp_quickstart_builds_trains_evaluates_and_searches(tmp_path):
    pytest.importorskip("tqdm")
    folder = tmp_path / "nlp"
    port_script.port_tree(os.path.join(checkout(REPO), "pytorch", "nlp"), str(folder))
    _step(folder, "build_vocab.py", "--data_dir", "data/small")
    assert (folder / "data" / "small" / "words.txt").exists()
    out = _step(folder, "train.py", "--data_dir", "data/small", "--model_dir", "experiments/base_model")
    assert "Epoch 10/10" in out and "- Eval metrics : accuracy:" in out, out[-2000:]
    model = folder / "experiments" / "base_model"
    assert (model / "best.pth.tar").exists() and (model / "last.pth.tar").exists()
    _metrics(model / "metrics_val_best_weights.json")
    out = _step(folder, "evaluate.py", "--data_dir", "data/small", "--model_dir", "experiments/base_model")
    assert "- Eval metrics : accuracy:" in out, out[-2000:]
    _metrics(model / "metrics_test_best.json")
    # the README's learning-rate search: train.py once per rate, as child processes
    _step(folder, "search_hyperparams.py", "--parent_dir", "experiments/learning_rate", "--data_dir", "data/small")
    for rate in ("0.0001", "0.001", "0.01"):
        _metrics(folder / "experiments" / "learning_rate" / f"learning_rate_{rate}" / "metrics_val_best_weights.json")
    pytest.importorskip("tabulate")
    _step(folder, "synthesize_results.py", "--parent_dir", "experiments")
    assert "learning_rate_0.01" in (folder / "experiments" / "results.md").read_text()


@needs(REPO)
def test_vision_quickstart_builds_the_dataset_trains_and_evaluates(tmp_path):
    pytest.importorskip("tqdm")
    folder = tmp_path / "vision"
    port_script.port_tree(os.path.join(checkout(REPO), "pytorch", "vision"), str(folder))
    write_signs(str(folder / "data" / "SIGNS"))
    _step(folder, "build_dataset.py", "--data_dir", "data/SIGNS", "--output_dir", "data/64x64_SIGNS")
    assert len(os.listdir(folder / "data" / "64x64_SIGNS" / "train_signs")) == 32  # its 80/20 split
    out = _step(folder, "train.py", "--data_dir", "data/64x64_SIGNS", "--model_dir", "experiments/base_model")
    assert "Epoch 10/10" in out and "- Found new best accuracy" in out, out[-2000:]
    model = folder / "experiments" / "base_model"
    _metrics(model / "metrics_val_best_weights.json")
    out = _step(folder, "evaluate.py", "--data_dir", "data/64x64_SIGNS", "--model_dir", "experiments/base_model")
    assert "- Eval metrics : accuracy:" in out, out[-2000:]
    _metrics(model / "metrics_test_best.json")
