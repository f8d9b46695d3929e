"""MorvanZhou/PyTorch-Tutorial's scripts, written for PyTorch 0.1-0.4 (Variable, torch.FloatTensor,
F.softmax without dim, dataset.train_data, TensorDataset), run with their imports changed only:
tools/port_script.py ports them from a checkout at
$GLASSGRAD_SCRIPT_SOURCES/morvanzhou-pytorch-tutorial (script_sources.py; without it every test
here skips, saying how to run them) into tmp_path. Each runs from its folder, as the
repository's README says, with matplotlib drawing off screen; the MNIST scripts read a small
folder the test writes at ./mnist. Where PyTorch itself stops a script (torch.dot of matrices,
torch.load of a whole model under weights_only, an in-place update before backward), the port
stops at the same line; where a script needs torch only, PyTorch runs the original beside it and
the two print the same."""
import os
import shutil
import subprocess
import sys

import pytest

from data_fixtures import write_mnist
from script_sources import source
from test_ported_scripts import SCRIPTS, _copy, _env, needs_sources

pytestmark = needs_sources("morvanzhou_tutorial")


def _run_script(folder, name, timeout=600):
    return subprocess.run([sys.executable, name], cwd=folder, env=_env(MPLBACKEND="Agg"), capture_output=True,
                          text=True, timeout=timeout)


def _port(tmp_path, mnist=None):
    run = os.path.join(_copy("morvanzhou_tutorial", tmp_path / "run"), "tutorial-contents")
    if mnist:
        write_mnist(os.path.join(run, "mnist"), n_train=mnist[0], n_test=mnist[1])
    return run


def _torch_run(tmp_path, name):
    """The original run by PyTorch (skipped without torch)."""
    pytest.importorskip("torch")
    repo, _, files = SCRIPTS["morvanzhou_tutorial"]
    folder = tmp_path / "original"
    folder.mkdir()
    for rel in files:
        shutil.copy(source(repo, rel), folder)
    return subprocess.run([sys.executable, name], cwd=folder, env=dict(os.environ, MPLBACKEND="Agg"),
                          capture_output=True, text=True, timeout=600)


def _ok(proc, name):
    assert proc.returncode == 0, f"{name}:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"


def _stops_at(proc, name, line, where="<module>"):
    assert proc.returncode == 1 and f'{name}", line {line}, in {where}' in proc.stderr, proc.stderr[-3000:]


# Scripts that print only what their seeds and data decide: glassgrad prints what PyTorch prints.
# (301 and 302 pause 0.1 s at each of their 40 and 50 plots, in both runs.)
@pytest.mark.parametrize("name", ["202_variable.py", "303_build_nn_quickly.py",
                                  pytest.param("301_regression.py", marks=pytest.mark.slow),
                                  pytest.param("302_classification.py", marks=pytest.mark.slow)])
def test_prints_what_pytorch_prints(tmp_path, name):
    proc = _run_script(_port(tmp_path), name)
    _ok(proc, name)
    theirs = _torch_run(tmp_path, name)
    _ok(theirs, name)
    assert proc.stdout == theirs.stdout


def test_torch_numpy_prints_as_pytorch_until_torch_dot_of_matrices_which_both_refuse(tmp_path):
    name = "201_torch_numpy.py"
    proc, theirs = _run_script(_port(tmp_path), name), _torch_run(tmp_path, name)
    _stops_at(proc, name, 62)  # tensor.dot(tensor) of a 2 x 2 tensor: PyTorch 0.1 flattened it
    _stops_at(theirs, name, 62)
    assert "ShapeError: dot: needs two vectors, got [2, 2] and [2, 2]" in proc.stderr
    assert proc.stdout == theirs.stdout


def test_save_reload_stops_where_pytorch_does_at_the_whole_model_load(tmp_path):
    # torch.load('net.pkl') of a whole nn.Sequential: weights_only=True (PyTorch's default since
    # 2.6) refuses its class in both; the state_dict load after it would work.
    name = "304_save_reload.py"
    proc, theirs = _run_script(_port(tmp_path), name), _torch_run(tmp_path, name)
    _stops_at(proc, name, 53, "restore_net")
    _stops_at(theirs, name, 53, "restore_net")
    assert "Weights only load failed" in proc.stderr and "Weights only load failed" in theirs.stderr
    assert "safe_globals" in proc.stderr


@pytest.mark.parametrize("name", ["203_activation.py", "305_batch_train.py",
                                  pytest.param("306_optimizer.py", marks=pytest.mark.slow)])
def test_runs(tmp_path, name):
    _ok(_run_script(_port(tmp_path), name), name)


def test_cnn_reads_mnist_through_its_old_attributes_and_trains(tmp_path):
    # train_data.train_data, test_data.test_labels (torchvision's old names), 1 epoch of 200 images.
    # With scikit-learn installed the script plots a t-SNE of the last layer, and scikit-learn 1.5
    # renamed TSNE's n_iter (the original stops there under PyTorch too): a module of that name
    # raising ImportError sends it down its own no-scikit-learn path.
    name = "401_CNN.py"
    run = _port(tmp_path, mnist=(200, 2000))
    with open(os.path.join(run, "sklearn.py"), "w") as f:
        f.write("raise ImportError('scikit-learn hidden by the test')\n")
    proc = _run_script(run, name)
    _ok(proc, name)
    assert "Epoch:  0 | train loss:" in proc.stdout and "prediction number" in proc.stdout, proc.stdout


@pytest.mark.parametrize("name", ["402_RNN_classifier.py", "404_autoencoder.py"])
def test_mnist_rnn_and_autoencoder_train(tmp_path, name):
    proc = _run_script(_port(tmp_path, mnist=(200, 2000)), name)
    _ok(proc, name)
    assert "Epoch:  0 | train loss:" in proc.stdout, proc.stdout


def test_conditional_gan_stops_as_pytorch_does_at_backward_after_an_optimizer_step(tmp_path):
    # G_loss.backward() after opt_D.step() changed D's weights in place: PyTorch refuses it too.
    name = "406_conditional_GAN.py"
    proc = _run_script(_port(tmp_path), name)
    _stops_at(proc, name, 81)
    assert "modified by an inplace operation" in proc.stderr and "AdamUpdate" in proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize("name", ["403_RNN_regressor.py", "406_GAN.py", "501_why_torch_dynamic_graph.py",
                                  "503_dropout.py", "504_batch_normalization.py"])
def test_longer_runs(tmp_path, name):
    _ok(_run_script(_port(tmp_path), name), name)
