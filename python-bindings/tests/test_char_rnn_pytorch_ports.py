"""spro/char-rnn.pytorch (a character-level GRU or LSTM language model: train.py samples chunks of
a text file, trains with Adam and prints samples; generate.py loads the saved model and samples),
ported on the fly from $GLASSGRAD_SCRIPT_SOURCES/char-rnn.pytorch (script_sources.py; without it
these tests skip). The scripts import unidecode and tqdm: without them the tests skip.

Written for PyTorch 0.3, train.py returns `loss.data[0]`, which PyTorch 0.4 and later refuse on a
0-d loss: unedited it stops there, with PyTorch's IndexError, as under PyTorch 2.14.1; with that
line made `loss.item()` it trains, samples and saves. generate.py's torch.load of the whole model
stops at PyTorch 2.6's weights_only default ('Weights only load failed', an UnpicklingError
naming model.CharRNN), as PyTorch's does; with weights_only=False it samples. Under PyTorch
2.14.1 the same runs print the same lines (the samples differ with the unseeded draws)."""
import os
import re
import subprocess
import sys

import pytest

from script_sources import checkout, needs, port_script
from test_ported_scripts import _env

REPO = "char-rnn.pytorch"
LOSS = "    return loss.data[0] / args.chunk_len"
LOAD = "    decoder = torch.load(args.filename)"
TRAIN = ["--n_epochs", "4", "--print_every", "2", "--hidden_size", "16", "--chunk_len", "12", "--batch_size", "4"]


def _ported(tmp_path, changes=None):
    pytest.importorskip("unidecode")
    pytest.importorskip("tqdm")
    folder = tmp_path / "run"
    port_script.port_tree(checkout(REPO), str(folder))
    for name, (old, new) in (changes or {}).items():
        port_script.port_file(os.path.join(checkout(REPO), name), str(folder / name), {old: new})
    words = "the quick brown fox jumps over a lazy dog while seven wizards hex plums".split()
    (folder / "text.txt").write_text("\n".join(" ".join(words[(i * 7 + j) % len(words)] for j in range(9))
                                               for i in range(200)))
    return folder


def _run(folder, *args):
    return subprocess.run([sys.executable, *args], cwd=folder, capture_output=True, text=True, timeout=900,
                          env=_env())


@needs(REPO)
def test_train_stops_at_data_index_of_a_0_dim_loss_as_under_pytorch(tmp_path):
    proc = _run(_ported(tmp_path), "train.py", "text.txt", *TRAIN)
    assert proc.returncode != 0
    assert "IndexError: invalid index of a 0-dim tensor. Use `tensor.item()` in Python" in proc.stderr, \
        proc.stderr[-2000:]
    assert "return loss.data[0] / args.chunk_len" in proc.stderr


@needs(REPO)
@pytest.mark.parametrize("model", ["gru", "lstm"])
def test_train_samples_saves_and_generate_loads_the_model(tmp_path, model):
    folder = _ported(tmp_path, {"train.py": (LOSS, "    return loss.item() / args.chunk_len")})
    proc = _run(folder, "train.py", "text.txt", "--model", model, *TRAIN)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.split("\n")
    assert "Training for 4 epochs..." in lines and "Saved as text.pt" in lines, proc.stdout
    progress = [line for line in lines if re.fullmatch(r"\[\d+m \d+s \(\d+ \d+%\) [\d.]+\]", line)]
    assert [line.split()[2:4] for line in progress] == [["(2", "50%)"], ["(4", "100%)"]], proc.stdout
    samples = [lines[lines.index(p) + 1] for p in progress]
    assert all(s.startswith("Wh") for s in samples), samples
    refused = _run(folder, "generate.py", "text.pt")
    assert refused.returncode != 0 and "Weights only load failed" in refused.stderr and "model.CharRNN" in refused.stderr, \
        refused.stderr[-2000:]
    port_script.port_file(os.path.join(checkout(REPO), "generate.py"), str(folder / "generate.py"),
                          {LOAD: "    decoder = torch.load(args.filename, weights_only=False)"})
    sampled = _run(folder, "generate.py", "text.pt", "-p", "Th", "-l", "30")
    assert sampled.returncode == 0, sampled.stderr[-3000:]
    assert sampled.stdout.startswith("Th") and len(sampled.stdout) > 20, sampled.stdout   # "Th" and 30 more
