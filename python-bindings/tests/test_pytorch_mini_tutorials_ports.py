"""vinhkhuc/PyTorch-Mini-Tutorials (seven short scripts written for PyTorch 0.4: Variable, loss
objects called through .forward, reduction='elementwise_mean', Sequential.add_module, an LSTM fed
(seq, batch, feature) tensors), ported on the fly with their imports changed only from
$GLASSGRAD_SCRIPT_SOURCES/PyTorch-Mini-Tutorials (script_sources.py; without it these tests skip).

data_util.load_mnist reads the four gzipped MNIST files under ./datasets/mnist and reshapes them
to exactly 60000 and 10000 images, so the run writes files of that size (banded images a network
learns, data_fixtures._banded). Each script's epoch loop (100 or 20 epochs written into it) runs
once, and the MNIST scripts train on the first 2000 images and test on 500 (load_mnist's own
ntrain/ntest arguments): the only lines changed beyond the imports, listed in CHANGED.

Every script also ran under PyTorch 2.14.1 on the same files (a driver outside the repository):
the lines checked are ones PyTorch's run prints alike (the costs differ with the random
initialization, glassgrad's random stream being its own), and 1_linear_regression.py ends as
PyTorch's run ends, at NumPy refusing `"%.2f" % w.numpy()` of a [1, 1] array (NumPy 2)."""
import os
import subprocess
import sys

import numpy as np
import pytest

from data_fixtures import _banded
from script_sources import checkout, needs, port_script
from test_ported_scripts import _env

REPO = "PyTorch-Mini-Tutorials"
SMALL = "    trX, teX, trY, teY = load_mnist(ntrain=2000, ntest=500, onehot=False)"
MNIST = {"    trX, teX, trY, teY = load_mnist(onehot=False)": SMALL}
# script -> (its changed lines {original: replacement}, lines its printout has)
SCRIPTS = {
    "0_multiply.py": ({}, ["[ 6 12 20]"]),
    "1_linear_regression.py": ({"    for i in range(100):": "    for i in range(1):"}, ["Epoch = 1, cost = "]),
    "2_logistic_regression.py": ({**MNIST, "    for i in range(100):": "    for i in range(1):"}, ["Epoch 1, cost = "]),
    "3_neural_net.py": ({**MNIST, "    for i in range(100):": "    for i in range(1):"}, ["Epoch 1, cost = "]),
    "4_modern_neural_net.py": ({**MNIST, "    for i in range(100):": "    for i in range(1):"}, ["Epoch 1, cost = "]),
    "5_convolutional_net.py": ({**MNIST, "    for i in range(20):": "    for i in range(1):"}, ["Epoch 1, cost = "]),
    "6_lstm.py": ({**MNIST, "    epochs = 20": "    epochs = 1"}, ["Epoch 1, cost = "]),
}


@pytest.fixture(scope="module")
def mnist_files(tmp_path_factory):
    """datasets/mnist with load_mnist's four gzipped files at MNIST's full sizes."""
    from glassgrad.data.idx import write_idx
    folder = tmp_path_factory.mktemp("mini") / "datasets" / "mnist"
    folder.mkdir(parents=True)
    rng = np.random.default_rng(0)
    for split, n in (("train", 60000), ("t10k", 10000)):
        images, labels = _banded(rng, n)
        write_idx(str(folder / f"{split}-images-idx3-ubyte.gz"), images)
        write_idx(str(folder / f"{split}-labels-idx1-ubyte.gz"), labels)
    return folder


@needs(REPO)
@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_scripts_run_as_under_pytorch(tmp_path, mnist_files, script):
    changes, shown = SCRIPTS[script]
    port_script.port_file(os.path.join(checkout(REPO), "data_util.py"), str(tmp_path / "data_util.py"))
    port_script.port_file(os.path.join(checkout(REPO), script), str(tmp_path / script), changes)
    (tmp_path / "datasets").mkdir()
    (tmp_path / "datasets" / "mnist").symlink_to(mnist_files, target_is_directory=True)
    proc = subprocess.run([sys.executable, script], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env=_env())
    if script == "1_linear_regression.py" and proc.returncode != 0:  # NumPy 2 refuses "%.2f" % array([[w]])
        assert "TypeError: only 0-dimensional arrays can be converted to Python scalars" in proc.stderr, proc.stderr
    else:
        assert proc.returncode == 0, proc.stderr[-3000:]
    for line in shown:
        assert line in proc.stdout, (line, proc.stdout[-2000:], proc.stderr[-2000:])
    if script != "0_multiply.py":
        assert "reduction='elementwise_mean' is deprecated" in proc.stderr  # PyTorch's warning, as its run gives
