"""sgrvinod/a-PyTorch-Tutorial-to-Transformers (model.py: the Transformer of "Attention Is All You
Need" written out, multi-head attention with masks, tied embeddings, label-smoothed cross entropy
over pack_padded_sequence; dataloader.py: youtokentome BPE batches of equal target length;
train.py: Adam with the warmup schedule, gradient accumulation, whole-model checkpoints;
average_checkpoints.py; translate.py: beam search), ported on the fly with their imports changed
only from $GLASSGRAD_SCRIPT_SOURCES/a-PyTorch-Tutorial-to-Transformers (script_sources.py; without
it, or without youtokentome and tqdm, these tests skip).

prepare_data.py downloads WMT14 (wget) and learns a 37000-token BPE: not run; the tests write
small English/German files under ./data and learn a small BPE model with youtokentome, as
utils.prepare_data does. train.py's changed lines (CHANGED) are its data folder, the model's size,
the batch and the schedule; translate.py's BPE path. train.py trains and saves its whole-model
checkpoint; average_checkpoints.py and translate.py then load whole pickled modules with
torch.load's default weights_only=True (PyTorch 2.6 on), which refuses them here as under PyTorch.

Under PyTorch 2.14.1, with dropout 0 and the framework's draws taken from one NumPy generator
(same_draws_runner.py: Linear, xavier_uniform_, normal_, Python's shuffle), train.py prints the
same losses to 1e-4 (test_training_prints_pytorchs_losses)."""
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from script_sources import needs, port_script, source
from test_ported_scripts import _env

REPO = "a-PyTorch-Tutorial-to-Transformers"
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = "/media/ssd/transformer data"
CHANGED = {
    f"data_folder = '{DATA}'  # folder with data files": "data_folder = 'data'",
    f'    train_loader = SequenceLoader(data_folder="{DATA}",': '    train_loader = SequenceLoader(data_folder="data",',
    f'    val_loader = SequenceLoader(data_folder="{DATA}",': '    val_loader = SequenceLoader(data_folder="data",',
    "d_model = 512  # size of vectors throughout the transformer model": "d_model = 32",
    "n_heads = 8  # number of heads in the multi-head attention": "n_heads = 2",
    "d_queries = 64  # size of query vectors (and also the size of the key vectors) in the multi-head attention":
        "d_queries = 8",
    "d_values = 64  # size of value vectors in the multi-head attention": "d_values = 8",
    "d_inner = 2048  # an intermediate size in the position-wise FC": "d_inner = 64",
    "n_layers = 6  # number of layers in the Encoder and Decoder": "n_layers = 2",
    "checkpoint = 'transformer_checkpoint.pth.tar'  # path to model checkpoint, None if none": "checkpoint = None",
    "tokens_in_batch = 2000  # batch size in target language tokens": "tokens_in_batch = 60",
    "batches_per_step = 25000 // tokens_in_batch  # perform a training step, i.e. update parameters, once every so "
    "many batches": "batches_per_step = 2",
    "print_frequency = 20  # print status once every so many steps": "print_frequency = 1",
    "n_steps = 100000  # number of training steps": "n_steps = 6",
}
NO_DROPOUT = {"dropout = 0.1  # dropout probability": "dropout = 0.0"}
TRANSLATE = {f'bpe_model = youtokentome.BPE(model="{DATA}/bpe.model")':
             'bpe_model = youtokentome.BPE(model="data/bpe.model")'}
WORDS = ["the", "house", "is", "small", "a", "cat", "sees", "dog", "green", "tree", "we", "run", "home", "today"]
GERMAN = {"the": "das", "house": "haus", "is": "ist", "small": "klein", "a": "ein", "cat": "katze", "sees": "sieht",
          "dog": "hund", "green": "gruen", "tree": "baum", "we": "wir", "run": "laufen", "home": "heim",
          "today": "heute"}


def _write_data(folder, seed=0):
    """train/val/test .en and .de files of word-for-word sentence pairs, and data/bpe.model."""
    import youtokentome
    rng = np.random.default_rng(seed)
    data = folder / "data"
    data.mkdir()
    for split, n in (("train", 64), ("val", 4), ("test", 4)):
        english = [" ".join(rng.choice(WORDS, rng.integers(3, 8))) for _ in range(n)]
        (data / f"{split}.en").write_text("\n".join(english) + "\n", encoding="utf-8")
        (data / f"{split}.de").write_text("\n".join(" ".join(GERMAN[w] for w in s.split()) for s in english) + "\n",
                                          encoding="utf-8")
    both = (data / "train.en").read_text(encoding="utf-8") + (data / "train.de").read_text(encoding="utf-8")
    (data / "train.ende").write_text(both, encoding="utf-8")
    youtokentome.BPE.train(data=str(data / "train.ende"), vocab_size=80, model=str(data / "bpe.model"),
                           n_threads=1)


def _folder(tmp_path, ported=True, extra=None):
    pytest.importorskip("youtokentome")
    pytest.importorskip("tqdm")
    folder = tmp_path / ("ported" if ported else "original")
    folder.mkdir()
    for name in ("model.py", "dataloader.py", "utils.py", "train.py", "translate.py", "average_checkpoints.py"):
        with open(source(REPO, name), encoding="utf-8") as f:
            text = f.read()
        changes = {"train.py": {**CHANGED, **(extra or {})}, "translate.py": TRANSLATE}.get(name, {})
        if ported:
            text, changed = port_script.port_text(text, changes)
        else:
            lines = text.split("\n")
            text = "\n".join(changes.get(line, line) for line in lines)
        for old in changes:
            assert old not in text, f"{name}: {old!r} not changed"
        (folder / name).write_text(text, encoding="utf-8")
    # utils.py imports wget, which only prepare_data's download uses
    (folder / "wget.py").write_text("def download(url, out=None):\n    raise OSError('no network')\n")
    _write_data(folder)
    return folder


def _run(folder, *command, ok=True):
    proc = subprocess.run([sys.executable, *command], cwd=folder, capture_output=True, text=True, timeout=900,
                          env=_env(OMP_NUM_THREADS="1"))
    if ok:
        assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def _losses(out):
    return [float(v) for v in re.findall(r"Loss (\S+) \(", out)]


@needs(REPO)
def test_train_checkpoints_averages_and_translates(tmp_path):
    folder = _folder(tmp_path)
    out = _run(folder, "train.py").stdout
    assert "Model initialized." in out and "Validation loss:" in out, out
    losses = _losses(out)
    assert len(losses) >= 6 and all(np.isfinite(losses)), out
    assert (folder / "transformer_checkpoint.pth.tar").exists()
    for step in (1, 2):
        shutil.copy(folder / "transformer_checkpoint.pth.tar", folder / f"step{step}_transformer_checkpoint.pth.tar")
    # whole pickled modules: torch.load's weights_only default (True since PyTorch 2.6) refuses them,
    # as PyTorch's does
    shutil.copy(folder / "transformer_checkpoint.pth.tar", folder / "averaged_transformer_checkpoint.pth.tar")
    for script in ("average_checkpoints.py", "translate.py"):
        proc = _run(folder, script, ok=False)
        assert proc.returncode != 0 and "Weights only load failed" in proc.stderr, (script, proc.stderr[-2000:])


@needs(REPO)
def test_training_prints_pytorchs_losses(tmp_path):
    pytest.importorskip("torch")
    runner = os.path.join(HERE, "same_draws_runner.py")
    ported, original = _folder(tmp_path, extra=NO_DROPOUT), _folder(tmp_path, ported=False, extra=NO_DROPOUT)
    # one BPE model for both (youtokentome's training can merge ties in another order)
    shutil.rmtree(original / "data")
    shutil.copytree(ported / "data", original / "data")
    ours = _run(ported, runner, "glassgrad.torch", "train.py").stdout
    theirs = _run(original, runner, "torch", "train.py").stdout
    assert _losses(ours) == pytest.approx(_losses(theirs), rel=1e-4) and len(_losses(ours)) >= 6, (ours, theirs)
    validation = re.findall(r"Validation loss: (\S+)", ours)
    assert validation == re.findall(r"Validation loss: (\S+)", theirs), (ours, theirs)
