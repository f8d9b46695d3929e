"""theeluwin/pytorch-sgns (word2vec's skip-gram with negative sampling: preprocess.py builds the
vocabulary and the skip-gram pairs of data/corpus.txt, train.py trains the two embedding tables
with Adam and saves them, the model and the optimizer), ported on the fly from
$GLASSGRAD_SCRIPT_SOURCES/pytorch-sgns (script_sources.py; without it these tests skip). train.py
imports tqdm: without it the tests skip. plot.py (scikit-learn's t-SNE of the vectors) uses no
torch.

Unedited, on a 200-line corpus of 60 words: negative sampling by word frequency (--weights, a
torch.multinomial draw) and uniform (FloatTensor(...).uniform_().long()), then --conti resuming
from the saved model and optimizer state. Under PyTorch 2.14.1 the same runs end alike, and
PyTorch's torch.load reads glassgrad's files as it reads its own."""
import os
import pickle
import random
import subprocess
import sys

import numpy as np
import pytest

from script_sources import checkout, needs, port_script
from test_ported_scripts import _env

REPO = "pytorch-sgns"
TRAIN = ["--epoch", "2", "--mb", "256", "--e_dim", "16", "--n_negs", "5"]


def _ported(tmp_path):
    pytest.importorskip("tqdm")
    folder = tmp_path / "run"
    port_script.port_tree(checkout(REPO), str(folder))
    rng = random.Random(1)
    words = [f"w{i}" for i in range(60)]
    (folder / "data").mkdir()
    (folder / "data" / "corpus.txt").write_text(
        "\n".join(" ".join(rng.choice(words[:rng.randint(5, 60)]) for _ in range(15)) for _ in range(200)))
    return folder


def _run(folder, *args):
    proc = subprocess.run([sys.executable, *args], cwd=folder, capture_output=True, text=True, timeout=900,
                          env=_env())
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return proc


@needs(REPO)
@pytest.mark.parametrize("weights", [True, False])
def test_preprocess_train_and_continue(tmp_path, weights):
    folder = _ported(tmp_path)
    assert "conversion done" in _run(folder, "preprocess.py").stdout
    flags = ["--weights"] if weights else []
    trained = _run(folder, "train.py", *TRAIN, *flags)
    assert "[Epoch 2]: 100%" in trained.stderr and "loss=" in trained.stderr, trained.stderr[-2000:]
    vocab = len(pickle.load(open(folder / "data" / "idx2word.dat", "rb")))
    vectors = pickle.load(open(folder / "data" / "idx2vec.dat", "rb"))
    assert isinstance(vectors, np.ndarray) and vectors.shape == (vocab, 16) and vectors.dtype == np.float32
    assert not vectors[0].any() and np.isfinite(vectors).all()   # the padding row stays zero
    _run(folder, "train.py", *TRAIN, *flags, "--conti")
    import glassgrad
    state = glassgrad.load(os.path.join(folder, "pts", "sgns.optim.pt"))
    assert float(state["state"][0]["step"]) == 4 * int(np.ceil(len(pickle.load(open(folder / "data" / "train.dat",
                                                                                     "rb"))) / 256))


@needs(REPO)
def test_pytorch_reads_the_saved_model_and_optimizer(tmp_path):
    torch = pytest.importorskip("torch")
    folder = _ported(tmp_path)
    _run(folder, "preprocess.py")
    _run(folder, "train.py", *TRAIN, "--weights")
    model = torch.load(os.path.join(folder, "pts", "sgns.pt"))
    assert sorted(model) == ["embedding.ivectors.weight", "embedding.ovectors.weight"]
    optim = torch.load(os.path.join(folder, "pts", "sgns.optim.pt"))
    assert optim["param_groups"][0]["params"] == [0, 1] and sorted(optim["state"][0]) == ["exp_avg", "exp_avg_sq",
                                                                                          "step"]
    np.testing.assert_array_equal(model["embedding.ivectors.weight"].numpy(),
                                  pickle.load(open(folder / "data" / "idx2vec.dat", "rb")))
