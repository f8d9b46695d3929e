"""gordicaleksa/pytorch-original-transformer (the Transformer of "Attention Is All You Need"
written out: multi-headed attention, sinusoidal positions, label smoothing, the warmup learning
rate around Adam, KL-divergence training, greedy decoding and BLEU), ported on the fly from
$GLASSGRAD_SCRIPT_SOURCES/pytorch-original-transformer (script_sources.py; without it these
tests skip).

training_script.py's train_transformer() runs as written (its train and validation loops, BLEU by
greedy decoding, checkpoints and TensorBoard logging), driven by DRIVER below: the data come from
utils/data_utils.get_data_loaders, which downloads IWSLT or Multi30k through torchtext's legacy
API (removed from torchtext) and tokenizes with spacy's downloaded models; the driver replaces
that one function with small batches of token ids (and vocabularies with stoi/itos), and stand-in
torchtext and spacy modules let data_utils import (they raise if used). It also shrinks the
baseline model (2 layers, 32 features, 4 heads) through the constants train_transformer reads.
The run needs tensorboard, GitPython and nltk (corpus_bleu). translation_script.py needs a
trained model download and torchtext's data: not run. playground.py runs its three visualizations
(label smoothing, the learning rate schedule, positional encodings).

Under PyTorch 2.14.1 the same driver, from the same initial weights and without dropout, prints
the same BLEU and, after the 8 training steps, the same log-probabilities to 1e-5
(test_training_matches_pytorchs_from_the_same_weights, where torch is installed)."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from script_sources import checkout, needs, port_script
from test_ported_scripts import _env

REPO = "pytorch-original-transformer"

# Run in the checkout's folder (a ported copy for glassgrad); "compare" as argument: no dropout,
# the initial weights from init.npz (written there when missing), and log-probabilities printed.
DRIVER = r"""import os, sys
import numpy as np
import torch
import training_script as ts
from utils.constants import BOS_TOKEN, EOS_TOKEN, PAD_TOKEN

compare = len(sys.argv) > 1
ts.BASELINE_MODEL_DIMENSION, ts.BASELINE_MODEL_NUMBER_OF_HEADS, ts.BASELINE_MODEL_NUMBER_OF_LAYERS = 32, 4, 2
if compare:
    ts.BASELINE_MODEL_DROPOUT_PROB = 0.0


class Vocab:
    def __init__(self, words):
        self.itos = ["<unk>", PAD_TOKEN, BOS_TOKEN, EOS_TOKEN] + words
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    def __len__(self):
        return len(self.itos)


class Field:
    def __init__(self, words):
        self.vocab = Vocab(words)


class Batch:
    def __init__(self, src, trg):
        self.src, self.trg = src, trg


def tiny_loaders(dataset_path, language_direction, dataset_name, batch_size, device):
    src_field, trg_field = Field("a b c d e f".split()), Field("u v w x y z".split())
    rng = np.random.default_rng(0)

    def batches(n):
        out = []
        for _ in range(n):
            src = rng.integers(4, 10, (3, 7)); src[0, 5:] = 1
            trg = np.concatenate([np.full((3, 1), 2), src[:, :5], np.full((3, 1), 3)], axis=1); trg[0, 5:] = 1
            out.append(Batch(torch.tensor(src, device=device), torch.tensor(trg, device=device)))
        return out
    return batches(4), batches(2), src_field, trg_field


ts.get_data_loaders = tiny_loaders
if compare:
    class Seeded(ts.Transformer):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            if os.path.exists("init.npz"):
                w = np.load("init.npz")
                self.load_state_dict({k: torch.tensor(w[k]) for k in w.files})
            else:
                np.savez("init.npz", **{k: v.numpy() for k, v in self.state_dict().items()})
            ts.MODEL = self
    ts.Transformer = Seeded
config = {"num_of_epochs": 2, "batch_size": 1500, "dataset_name": "IWSLT", "language_direction": "E2G",
          "dataset_path": "data", "enable_tensorboard": True, "console_log_freq": 1, "checkpoint_freq": 1,
          "num_warmup_steps": 4000}
ts.training_config = config
ts.train_transformer(config)
if compare:
    model = ts.MODEL
    model.eval()
    loader, _, _, trg_field = tiny_loaders(None, None, None, None, "cpu")
    with torch.no_grad():
        for batch in loader[:2]:
            src, trg_in, trg_gt = ts.get_src_and_trg_batches(batch)
            sm, tm, _, _ = ts.get_masks_and_count_tokens(src, trg_in, 1, "cpu")
            out = model(src, trg_in, sm, tm)
            print("LOGPROBS", " ".join(f"{v:.6f}" for v in out.numpy().ravel()[:40]))
"""

STAND_INS = {
    "torchtext/__init__.py": "from . import data, datasets  # noqa: F401\n",
    "torchtext/data/__init__.py": "".join(f"class {name}:\n    pass\n\n\n" for name in
                                          ("Dataset", "BucketIterator", "Field", "Example")),
    "torchtext/data/utils.py": "def interleave_keys(a, b):\n    raise RuntimeError('torchtext stand-in')\n",
    "torchtext/datasets.py": "",
    "spacy.py": "def load(name):\n    raise RuntimeError('spacy stand-in: its models are downloaded')\n",
}


def _needs_tools():
    for name in ("tensorboard", "git", "nltk"):
        pytest.importorskip(name)


def _folder(tmp_path, ported, name):
    folder = str(tmp_path / name)
    if ported:
        port_script.port_tree(checkout(REPO), folder)
    else:
        import shutil
        shutil.copytree(checkout(REPO), folder)
    with open(os.path.join(folder, "driver.py"), "w") as f:
        f.write(port_script.port_text(DRIVER)[0] if ported else DRIVER)
    for rel, text in STAND_INS.items():
        os.makedirs(os.path.dirname(os.path.join(folder, rel)), exist_ok=True)
        with open(os.path.join(folder, rel), "w") as f:
            f.write(text)
    return folder


def _run(folder, *args, env=None):
    proc = subprocess.run([sys.executable, *args], cwd=folder, capture_output=True, text=True, timeout=900,
                          env=env or _env(MPLBACKEND="Agg"))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return proc.stdout


@needs(REPO)
def test_train_transformer_trains_validates_scores_bleu_and_saves(tmp_path):
    _needs_tools()
    folder = _folder(tmp_path, True, "run")
    stdout = _run(folder, "driver.py")
    assert stdout.count("Transformer training: ") == 8 and "| epoch=2 | batch= 4 |" in stdout, stdout
    assert stdout.count("BLEU-4 corpus score = ") == 2 and "corpus length = 6" in stdout
    assert os.listdir(os.path.join(folder, "models", "binaries")) == ["transformer_000000.pth"]
    assert sorted(os.listdir(os.path.join(folder, "models", "checkpoints"))) == [
        "transformer_ckpt_epoch_1.pth", "transformer_ckpt_epoch_2.pth"]
    assert os.listdir(os.path.join(folder, "runs"))
    import glassgrad
    state = glassgrad.load(os.path.join(folder, "models", "binaries", "transformer_000000.pth"))
    assert state["num_of_epochs"] == 2 and list(state["state_dict"]["trg_embedding.embeddings_table.weight"].shape) == [10, 32]


@needs(REPO)
def test_playground_visualizations_run(tmp_path):
    pytest.importorskip("matplotlib")
    folder = _folder(tmp_path, True, "run")
    code = ("import playground\nplayground.visualize_label_smoothing()\nplayground.visualize_custom_lr_adam()\n"
            "playground.visualize_positional_encodings()\nprint('drawn')\n")
    assert "drawn" in _run(folder, "-c", code)


@needs(REPO)
def test_training_matches_pytorchs_from_the_same_weights(tmp_path):
    pytest.importorskip("torch")
    _needs_tools()
    theirs = _folder(tmp_path, False, "theirs")
    want = _run(theirs, "driver.py", "compare", env=dict(os.environ, CUDA_VISIBLE_DEVICES=""))
    ours = _folder(tmp_path, True, "ours")
    os.replace(os.path.join(theirs, "init.npz"), os.path.join(ours, "init.npz"))
    got = _run(ours, "driver.py", "compare")
    for pattern in (r"BLEU-4 corpus score = (\S+),", r"LOGPROBS (.*)"):
        a = [float(v) for line in re.findall(pattern, got) for v in line.split()]
        b = [float(v) for line in re.findall(pattern, want) for v in line.split()]
        assert len(a) == len(b) > 0
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
