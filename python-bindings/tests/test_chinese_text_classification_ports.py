"""649453932/Chinese-Text-Classification-Pytorch (THUCNews headlines in 10 classes, characters
mapped through a hand-made vocabulary: run.py --model TextCNN, TextRNN, FastText, TextRCNN,
TextRNN_Att, DPCNN or Transformer trains with Adam, evaluates on the dev set every 100 batches,
saves the best state_dict, reloads it and prints the test set's accuracy, sklearn's
classification report and confusion matrix), ported on the fly from
$GLASSGRAD_SCRIPT_SOURCES/Chinese-Text-Classification-Pytorch (script_sources.py; without it these
tests skip). The scripts need tqdm, scikit-learn and (train_eval.py's tensorboardX, which the port
makes glassgrad.utils.tensorboard) tensorboard: without them the tests skip.

Small runs: every 30th line of the repository's dev.txt as the training set, every 100th of
dev.txt and test.txt as dev and test sets, one epoch of batches of 32, random embeddings (the
repository's vocab.pkl is read). TextCNN and DPCNN convolve (k, 300) windows over the [32, 300]
plane of a headline's embeddings (one output column of 300: docs/architecture.md's convolution
layouts). Under PyTorch 2.14.1 the same runs print the same lines but for the losses, the
accuracies and the times; the models print the same."""
import os
import re
import shutil
import subprocess
import sys

import pytest

from script_sources import checkout, needs, port_script
from test_ported_scripts import _env

REPO = "Chinese-Text-Classification-Pytorch"
MODELS = ["DPCNN", "FastText", "TextCNN", "TextRCNN", "TextRNN", "TextRNN_Att", "Transformer"]


def _small_config(original):
    """The model file's changes: one epoch, batches of 32."""
    with open(original, encoding="utf-8") as f:
        lines = f.read().split("\n")
    changes = {}
    for line in lines:
        for name, value in (("num_epochs", "1"), ("batch_size", "32")):
            if line.lstrip().startswith(f"self.{name} = "):
                changes[line] = re.sub(r"= \d+", f"= {value}", line, count=1)
    assert len(changes) == 2, changes
    return changes


def _ported(tmp_path, torch_too=False):
    for package in ("tqdm", "sklearn", "tensorboard"):
        pytest.importorskip(package)
    folder = tmp_path / "run"
    port_script.port_tree(checkout(REPO), str(folder))
    for model in MODELS:
        name = os.path.join("models", model + ".py")
        port_script.port_file(os.path.join(checkout(REPO), name), str(folder / name),
                              _small_config(os.path.join(checkout(REPO), name)))
    data = folder / "THUCNews" / "data"
    dev = (data / "dev.txt").read_text(encoding="utf-8").strip().split("\n")
    test = (data / "test.txt").read_text(encoding="utf-8").strip().split("\n")
    (data / "train.txt").write_text("\n".join(dev[29::30]) + "\n", encoding="utf-8")
    (data / "dev.txt").write_text("\n".join(dev[::100]) + "\n", encoding="utf-8")
    (data / "test.txt").write_text("\n".join(test[::100]) + "\n", encoding="utf-8")
    return folder


def _run(folder, model, python_path=True):
    env = _env() if python_path else dict(os.environ)
    return subprocess.run([sys.executable, "run.py", "--model", model, "--embedding", "random"], cwd=folder,
                          capture_output=True, text=True, timeout=900, env=env)


@needs(REPO)
@pytest.mark.parametrize("model", MODELS)
def test_each_model_trains_evaluates_saves_reloads_and_reports(tmp_path, model):
    folder = _ported(tmp_path)
    proc = _run(folder, model)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert "Loading data...\n" in out and "Epoch [1/1]\n" in out, out
    assert re.search(r"^Vocab size: \d+$", out, re.M), out
    assert re.search(r"^Iter:      0,  Train Loss: +[\d.]+,  Train Acc: +[\d.]+%,  Val Loss: +[\d.]+,  "
                     r"Val Acc: +[\d.]+%,  Time: \d:\d\d:\d\d \*$", out, re.M), out
    assert re.search(r"^Test Loss: +[\d.]+,  Test Acc: +[\d.]+%$", out, re.M), out
    report = out[out.index("Precision, Recall and F1-Score...\n"):out.index("Confusion Matrix...\n")]
    assert all(name in report for name in ("finance", "sports", "game", "macro avg")), report
    matrix = out[out.index("Confusion Matrix...\n"):].split("\n")[1:11]
    assert matrix[0].startswith("[[") and matrix[9].endswith("]]"), matrix
    assert sum(int(v) for row in matrix for v in re.findall(r"\d+", row)) == 100   # every test line counted
    assert os.path.getsize(folder / "THUCNews" / "saved_dict" / f"{model}.ckpt") > 0
    assert any((folder / "THUCNews" / "log" / model).iterdir())   # the TensorBoard events


@needs(REPO)
@pytest.mark.parametrize("model", ["TextCNN", "TextRNN_Att"])
def test_the_models_print_as_under_pytorch(tmp_path, model):
    pytest.importorskip("torch")
    pytest.importorskip("tensorboardX")
    ported = _ported(tmp_path / "ours")
    ours = _run(ported, model)
    assert ours.returncode == 0, ours.stderr[-3000:]
    original = tmp_path / "theirs"   # the original files, with the same data and configuration
    shutil.copytree(checkout(REPO), original, ignore=shutil.ignore_patterns(".git"))
    for name in ("train.txt", "dev.txt", "test.txt"):
        shutil.copy(ported / "THUCNews" / "data" / name, original / "THUCNews" / "data" / name)
    for m in MODELS:
        path = original / "models" / (m + ".py")
        text = path.read_text(encoding="utf-8")
        for old, new in _small_config(str(path)).items():
            text = text.replace(old, new)
        path.write_text(text, encoding="utf-8")
    theirs = _run(original, model, python_path=False)
    assert theirs.returncode == 0, theirs.stderr[-3000:]

    def printed_model(out):
        return out[out.index("<bound method Module.parameters of "):out.index("Epoch [1/1]")]
    assert printed_model(ours.stdout) == printed_model(theirs.stdout)
    assert printed_model(ours.stdout).count("\n") > 3
