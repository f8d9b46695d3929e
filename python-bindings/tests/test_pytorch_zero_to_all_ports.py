"""hunkim/PyTorchZeroToAll's numbered lecture scripts (linear regression to seq2seq), ported on the
fly with their imports changed only from $GLASSGRAD_SCRIPT_SOURCES/PyTorchZeroToAll
(script_sources.py; without it these tests skip) and run as published, in a folder laid out as the
repository: its data/ files (diabetes, names, Shakespeare) and MNIST in torchvision's layout,
written here where the scripts' `download=True` finds it (200 training and 50 test images).

Written for PyTorch 0.3, several scripts stop where PyTorch 2.14 stops them too, at the same line:
`loss.data[0]` of a 0-d loss (IndexError), and a 0-d target given to CrossEntropyLoss with a
batch of one row of scores (ValueError)."""
import os
import subprocess
import sys

import pytest

from data_fixtures import write_mnist
from script_sources import checkout, needs, port_script, source
from test_ported_scripts import _env

import glassgrad as gg

REPO = "PyTorchZeroToAll"
HELPERS = ["name_dataset.py", "text_loader.py", "seq2seq_models.py"]


def _layout(tmp_path):
    """tmp_path with the repository's data files (linked), MNIST under data/ and mnist_data/, and
    the helper modules the scripts import, ported."""
    data = tmp_path / "data"
    os.makedirs(data)
    folder = os.path.join(checkout(REPO) or "", "data")
    for name in os.listdir(folder):
        os.symlink(os.path.join(folder, name), data / name)
    for root in (data, tmp_path / "mnist_data"):
        write_mnist(str(root), n_train=200, n_test=50)
    for name in HELPERS:
        port_script.port_file(source(REPO, name), str(tmp_path / name))
    return tmp_path


def _run(tmp_path, script, timeout=900):
    folder = _layout(tmp_path)
    port_script.port_file(source(REPO, script), str(folder / script))
    return subprocess.run([sys.executable, script], cwd=str(folder), env=_env(MPLBACKEND="Agg"),
                          capture_output=True, text=True, timeout=timeout)


@needs(REPO)
@pytest.mark.parametrize("script, shown", [
    # no random numbers: the printout is PyTorch's
    ("03_auto_gradient.py", "Prediction (after training) 4 7.804864406585693"),
    ("05_linear_regression.py", "Prediction (after training) 4 "),
    ("06_logistic_regression.py", "Prediction after 7 hours of training: 0.9"),
    ("07_diabets_logistic.py", "Epoch: 100/100 | Loss: 0.6"),
    ("08_1_dataset_loader.py", "Epoch: 23 | Inputs tensor("),  # 759 rows in batches of 32, twice
    ("08_2_dataset_loade_logistic.py", "Epoch 2 | Batch: 24 | Loss: "),
    ("09_01_softmax_loss.py", "Loss1: 0.3567\nLoss2: 2.3026\nPyTorch Loss1: 0.4170 \nPyTorch Loss2: 1.8406\n"
                              "Y_pred1: 0\nY_pred2: 1\nBatch Loss1:  0.4966 \nBatch Loss2: 1.2389\n"),
    ("09_2_softmax_mnist.py", "Model was trained on cpu!"),
    ("10_1_cnn_mnist.py", "Test set: Average loss: "),
    ("12_1_rnn_basics.py", "sequence input size glassgrad.Size([1, 5, 4]) out size glassgrad.Size([1, 5, 2])\n"
                           "batch input size glassgrad.Size([3, 5, 4]) out size glassgrad.Size([3, 5, 2])\n"
                           "batch input size glassgrad.Size([5, 3, 4]) out size glassgrad.Size([5, 3, 2])\n"),
    ("12_2_hello_rnn.py", "epoch: 100, loss: "),
    ("12_4_hello_rnn_emb.py", "epoch: 100, loss: "),
    ("13_1_rnn_classification_basics.py", "batch in glassgrad.Size([4, 6]) batch out glassgrad.Size([1, 4, 18])"),
    ("13_4_pack_pad.py", "Last output glassgrad.Size([3, 5]) tensor("),
    ("name_dataset.py", "['Arabic', 'Chinese', 'Czech', 'Dutch', 'English', 'French', 'German', 'Greek', "),
    ("text_loader.py", "10925 data ("),  # the last of 10,926 batches of 3 lines
])
def test_script_runs_as_published(tmp_path, script, shown):
    proc = _run(tmp_path, script)
    assert proc.returncode == 0, f"{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    assert shown in proc.stdout, proc.stdout[-3000:]


@needs(REPO)
@pytest.mark.parametrize("script, error, line", [
    ("12_3_hello_rnn_seq.py", IndexError, 'print("epoch: %d, loss: %1.3f" % (epoch + 1, loss.data[0]))'),
    ("11_1_toy_inception_mnist.py", IndexError, "100. * batch_idx / len(train_loader), loss.data[0]))"),
    ("13_2_rnn_classification.py", IndexError, "total_loss += loss.data[0]"),
    ("13_3_char_rnn.py", ValueError, "loss += criterion(output, target[c])"),
    ("14_1_seq2seq.py", ValueError, "loss += criterion(output, target_var[c])"),
    ("14_2_seq2seq_att.py", ValueError, "loss += criterion(output, target_var[c])"),
])
def test_script_stops_where_pytorch_stops_it(tmp_path, script, error, line):
    proc = _run(tmp_path, script)
    assert proc.returncode == 1, f"{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    last = proc.stderr.strip().splitlines()
    raised = [row for row in last if row.startswith("glassgrad.")][-1].split(":")[0]
    assert issubclass(getattr(gg, raised.split(".", 1)[1]), error), proc.stderr[-3000:]
    assert line in proc.stderr, proc.stderr[-3000:]
