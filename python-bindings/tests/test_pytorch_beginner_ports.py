"""L1aoXingyu/pytorch-beginner (a course's one-file scripts: linear and logistic regression, a
feed-forward and a recurrent MNIST classifier, an n-gram and a CBOW word model, a character-aware
LSTM tagger, an LSTM language model, three autoencoders, two GANs and a Jacobian by backward),
ported on the fly with their imports changed from $GLASSGRAD_SCRIPT_SOURCES/pytorch-beginner
(script_sources.py; without it these tests skip).

The scripts were written for PyTorch 0.3 and GPUs; the lines changed beyond the imports are the
ones PyTorch 2.x on a CPU refuses alike (RENAMED): `x.data[0]` of a 0-d loss read as `x.item()`
and `backward(retain_variables=True)` as `backward(retain_graph=True)` (PyTorch 0.4's renamings),
`.cuda()` as `.cpu()`; and the epoch counts set small (EPOCHS). MNIST and Fashion-MNIST are
written small in torchvision's layout where the scripts read them (./data, ../datasets), the
language model's corpus as ./data/{train,valid,test}.txt. Four scripts stop where PyTorch's run
stops them (RAISES): N-Gram.py indexes a 0-d tensor, the language model misspells Variable, and
the GANs normalize MNIST's one channel with three channels' means.
04 (a TensorFlow 1 logger), 10 (gym) and 12 (a Dataset with no script) are not run.

Where no torchvision is needed the scripts also run under PyTorch from the same initial weights
(PyTorch's run saves them, ours loads them; one hash seed gives both runs the word models' one
numbering of a set's words): the printed numbers are PyTorch's."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from data_fixtures import write_fashion_mnist, write_mnist
from script_sources import needs, port_script, source
from test_ported_scripts import _env

REPO = "pytorch-beginner"

# script -> its epoch lines {original: replacement}
EPOCHS = {
    "01-Linear Regression/Linear_Regression.py": {"num_epochs = 1000": "num_epochs = 100"},
    "02-Logistic Regression/Logistic_Regression.py": {"num_epochs = 100": "num_epochs = 1"},
    "03-Neural Network/neural_network.py": {"num_epochs = 50": "num_epochs = 1"},
    "05-Recurrent Neural Network/recurrent_network.py": {"num_epoches = 20": "num_epoches = 1"},
    "06-Natural Language Process/N-Gram.py": {"for epoch in range(100):": "for epoch in range(3):"},
    "06-Natural Language Process/bag-of-word.py": {"for epoch in range(100):": "for epoch in range(3):"},
    "06-Natural Language Process/seq-lstm.py": {"for epoch in range(300):": "for epoch in range(3):"},
    "07-Language Model/language model.py": {"for epoch in range(5):": "for epoch in range(1):"},
    "08-AutoEncoder/simple_autoencoder.py": {"num_epochs = 100": "num_epochs = 1"},
    "08-AutoEncoder/conv_autoencoder.py": {"num_epochs = 100": "num_epochs = 1"},
    "08-AutoEncoder/Variational_autoencoder.py": {"num_epochs = 100": "num_epochs = 1"},
    "09-Generative Adversarial network/simple_Gan.py": {"num_epoch = 100": "num_epoch = 1"},
    "09-Generative Adversarial network/conv_gan.py": {"num_epoch = 100": "num_epoch = 1"},
    "11-backward/backward.py": {},
}
# script -> a line of its printout
ENDS = {
    "01-Linear Regression/Linear_Regression.py": "Epoch[100/100], loss: ",
    "02-Logistic Regression/Logistic_Regression.py": "Finish 1 epoch, Loss: ",
    "03-Neural Network/neural_network.py": "Finish 1 epoch, Loss: ",
    "05-Recurrent Neural Network/recurrent_network.py": "Test Loss: ",
    "06-Natural Language Process/N-Gram.py": "Loss: ",
    "06-Natural Language Process/bag-of-word.py": "loss: ",
    "06-Natural Language Process/seq-lstm.py": "LogSoftmaxBackward0",
    "07-Language Model/language model.py": "epoch 1",
    "08-AutoEncoder/simple_autoencoder.py": "epoch [1/1], loss:",
    "08-AutoEncoder/conv_autoencoder.py": "epoch [1/1], loss:",
    "08-AutoEncoder/Variational_autoencoder.py": "====> Epoch: 0 Average loss: ",
    "11-backward/backward.py": "=========jacobian========",
}
# script -> the error that ends it as it ends PyTorch's run: N-Gram.py indexes the 0-d `.data[0]` of its
# prediction again, the language model misspells Variable, the GANs normalize MNIST's one channel with three
# channels' means (a RuntimeError from the loader)
RAISES = {
    "06-Natural Language Process/N-Gram.py": "invalid index of a 0-dim tensor",
    "07-Language Model/language model.py": "NameError: name 'Variabel' is not defined",
    "09-Generative Adversarial network/simple_Gan.py": "doesn't match the broadcast shape [3, 28, 28]",
    "09-Generative Adversarial network/conv_gan.py": "doesn't match the broadcast shape [3, 28, 28]",
}
# PyTorch 0.4's renamings, each line of the scripts that has one read with it
RENAMED = ((re.compile(r"\.data\[0\](?!\[)"), ".item()"), (".cuda()", ".cpu()"),
           ("retain_variables=True", "retain_graph=True"))

def _changes(text, script):
    changes = dict(EPOCHS[script])
    for line in text.split("\n"):
        new = line
        for old, renamed in RENAMED:
            new = old.sub(renamed, new) if isinstance(old, re.Pattern) else new.replace(old, renamed)
        if new != line:
            changes[line] = new
    return changes


def _corpus(folder):
    """./data/{train,valid,test}.txt: sentences of a small vocabulary, as the language model reads."""
    rng = np.random.default_rng(0)
    words = "the a cat dog runs eats fish big small red".split()
    os.makedirs(folder, exist_ok=True)
    for name, n in (("train.txt", 120), ("valid.txt", 30), ("test.txt", 30)):
        with open(os.path.join(folder, name), "w") as f:
            f.write("\n".join(" ".join(rng.choice(words, 12)) for _ in range(n)) + "\n")


def _ported(tmp_path, script, extra=None, torch=False):
    """The script (its folder's .py files beside it) ported, or copied for PyTorch's run, into
    tmp_path/<its folder>, with the data it reads; returns that folder."""
    folder = tmp_path / os.path.dirname(script)
    src = os.path.dirname(source(REPO, script))
    for name in os.listdir(src):
        if name.endswith(".py"):
            with open(os.path.join(src, name), encoding="utf-8") as f:
                text = f.read()
            changes = {**_changes(text, script), **(extra or {})} if name == os.path.basename(script) else {}
            if torch:
                folder.mkdir(parents=True, exist_ok=True)
                for old, new in changes.items():
                    text = text.replace(old, new)
                (folder / name).write_text(text)
            else:
                port_script.port_file(os.path.join(src, name), str(folder / name), changes)
    write_mnist(str(folder / "data"), n_train=256, n_test=64)
    write_fashion_mnist(str(tmp_path / "datasets"), n_train=256, n_test=64)
    _corpus(str(folder / "data"))
    return folder


def _run(folder, script, torch=False):
    # the word models number a set's words: one hash seed gives both runs one numbering
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", PYTHONHASHSEED="0") if torch else _env(MPLBACKEND="Agg",
                                                                                           PYTHONHASHSEED="0")
    return subprocess.run([sys.executable, os.path.basename(script)], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=600)


@needs(REPO)
@pytest.mark.parametrize("script", sorted(EPOCHS))
def test_scripts_run_as_under_pytorch(tmp_path, script):
    proc = _run(_ported(tmp_path, script), script)
    if script in RAISES:
        assert proc.returncode != 0 and RAISES[script] in proc.stderr, proc.stderr[-3000:]
    else:
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    if script in ENDS:
        assert ENDS[script] in proc.stdout, proc.stdout[-3000:]
        losses = [float(v) for v in re.findall(r"[Ll]oss: ?([-\d.e+]+)", proc.stdout)]
        assert all(np.isfinite(losses)), proc.stdout[-3000:]


# script -> (the line making its model, the model's name): PyTorch's run saves the initial weights after it,
# ours loads them
SAME_WEIGHTS = {
    "01-Linear Regression/Linear_Regression.py": ("model = linearRegression()", "model"),
    "06-Natural Language Process/N-Gram.py": ("ngrammodel = NgramModel(len(word_to_idx), CONTEXT_SIZE, 100)",
                                              "ngrammodel"),
    "06-Natural Language Process/bag-of-word.py": ("model = CBOW(len(word_to_idx), 100, CONTEXT_SIZE)", "model"),
    "06-Natural Language Process/seq-lstm.py": ("criterion = nn.CrossEntropyLoss()", "model"),
}


def _numbers(out):
    return [float(v) for v in re.findall(r"-?\d+\.\d+(?:e[-+]\d+)?", out)]


@needs(REPO)
@pytest.mark.parametrize("script", sorted(SAME_WEIGHTS) + ["11-backward/backward.py"])
def test_scripts_print_pytorchs_numbers_from_the_same_weights(tmp_path, script):
    pytest.importorskip("torch")
    want, got = {}, {}
    if script in SAME_WEIGHTS:
        line, name = SAME_WEIGHTS[script]
        want = {line: f"{line}; torch.save({name}.state_dict(), 'init.pth')"}
        got = {line: f"{line}; {name}.load_state_dict(torch.load('init.pth'))"}
    theirs = _ported(tmp_path / "theirs", script, want, torch=True)
    expected = _run(theirs, script, torch=True)
    assert (expected.returncode != 0) == (script in RAISES), expected.stderr[-3000:]
    ours = _ported(tmp_path / "ours", script, got)
    if script in SAME_WEIGHTS:
        (ours / "init.pth").write_bytes((theirs / "init.pth").read_bytes())
    proc = _run(ours, script)
    assert (proc.returncode != 0) == (script in RAISES), proc.stderr[-3000:]
    text = re.sub(r", grad_fn=<\w+>", "", proc.stdout)
    want_text = re.sub(r", grad_fn=<\w+>", "", expected.stdout)
    assert len(_numbers(text)) == len(_numbers(want_text)) > 0, (text[-2000:], want_text[-2000:])
    np.testing.assert_allclose(_numbers(text), _numbers(want_text), rtol=1e-4, atol=2e-6)
