"""keon/3-min-pytorch (the book's chapter scripts, exported from its notebooks: tensors and
autograd, a first network on scikit-learn blobs, image recovery by gradient descent, Fashion-MNIST
DNNs with dropout, an MNIST CNN, a CIFAR-10 ResNet, autoencoders, a character seq2seq RNN and
GANs) run with their imports changed only, from $GLASSGRAD_SCRIPT_SOURCES/3-min-pytorch
(script_sources.py; without it these tests skip). Each runs from its chapter folder with
matplotlib drawing off screen; the scripts download MNIST, Fashion-MNIST and CIFAR-10 into
./.data, which the run writes small (256 and 64 MNIST images; 300 and 100 Fashion-MNIST images,
a multiple of the GANs' BATCH_SIZE = 100 as the real 60000 are, for they reshape each batch to
100 rows; 40 CIFAR-10 images a batch file). The only line changed is the epoch count (`EPOCHS = 30`,
`EPOCH = 10`, ...), set to 1.

Chapters are found by their number (the folder names are Korean, and the snapshot holds chapter
7's under two Unicode normalizations of one name). Left out: 07's text_classification (torchtext's
IMDB download), 08's fgsm_attack (pretrained resnet101 weights, a download) and 10's cartpole_dqn
(gym).

Every script here also ran under PyTorch 2.14.1 on the same files (a driver outside the
repository), to its end as here; the lines checked are ones PyTorch's run prints alike (values
differ where the two generators' initial weights do). One difference: PyTorch's
CIFAR10(download=True) checks the files' MD5 sums, finds the small files are not the published
ones and stops resnet.py ("Dataset metadata file not found or corrupted"); glassgrad reads the
files that are there."""
import os
import subprocess
import sys

import pytest

from data_fixtures import write_cifar, write_fashion_mnist, write_mnist
from script_sources import checkout, needs, port_script
from test_ported_scripts import _env

REPO = "3-min-pytorch"

# (chapter number, script) -> (data it reads, {line: replacement}, lines its printout has)
SCRIPTS = {
    ("03", "autograd_basic.py"): (None, {}, ["tensor(18.)", "l을 w로 미분한 값은 18.0"]),
    ("03", "tensor_basic.py"): (None, {}, []),
    ("03", "tensor_operation.py"): (None, {}, []),
    ("03", "basic_neural_network.py"): (None, {}, ["Train loss at 1900 is", "벡터 [-1, 1]이 레이블 1을 가질 확률은"]),
    ("03", "image_recovery.py"): (None, {}, []),
    ("04", "fashion_mnist.py"): ("fashion", {}, []),
    ("04", "neural_network.py"): ("fashion", {"EPOCHS = 30": "EPOCHS = 1"}, ["[1] Test Loss:"]),
    ("04", "overfitting_and_regularization.py"): ("fashion", {"EPOCHS = 50": "EPOCHS = 1"}, ["[1] Test Loss:"]),
    ("05", "cnn.py"): ("mnist", {"EPOCHS     = 40": "EPOCHS     = 1"}, ["[1] Test Loss:"]),
    ("05", "resnet.py"): ("cifar", {"EPOCHS     = 300": "EPOCHS     = 1"}, ["[1] Test Loss:"]),
    ("06", "basic_autoencoder.py"): ("fashion", {"EPOCH = 10": "EPOCH = 1"}, ["[Epoch 1]"]),
    ("06", "denoising_autoencoder.py"): ("fashion", {"EPOCH = 10": "EPOCH = 1"}, ["[Epoch 1] loss:"]),
    ("07", "sequence_to_sequence.py"): (None, {}, ["반복:900 오차:", "['h', 'o', 'l', 'a']"]),
    ("09", "gan.py"): ("fashion", {"EPOCHS = 500": "EPOCHS = 1"}, ["Epoch [0/1], d_loss:"]),
    ("09", "conditional_gan.py"): ("fashion", {"EPOCHS = 300": "EPOCHS = 1"}, ["이폭 [0/1] d_loss:"]),
}


def _chapter(number):
    names = sorted(n for n in os.listdir(checkout(REPO)) if n.startswith(number + "-"))
    assert names, number
    return os.path.join(checkout(REPO), names[0])


def _write_data(folder, kind):
    root = os.path.join(folder, ".data")
    if kind == "fashion":
        write_fashion_mnist(root, n_train=300, n_test=100)
    elif kind == "mnist":
        write_mnist(root, n_train=256, n_test=64)
    elif kind == "cifar":
        write_cifar(root, n_per_batch=40, n_test=40)


def _edit(path, changes):
    """Rewrites each line named in changes (a size), which must occur."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for old, new in changes.items():
        assert old in text.split("\n"), (old, path)
        text = text.replace(old, new)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


@needs(REPO)
@pytest.mark.parametrize("chapter,script", sorted(SCRIPTS))
def test_scripts_run_to_their_end_as_under_pytorch(tmp_path, chapter, script):
    for module in ("matplotlib", "sklearn"):
        pytest.importorskip(module)
    folder = tmp_path / "run"
    port_script.port_tree(_chapter(chapter), str(folder))
    data, changes, shown = SCRIPTS[(chapter, script)]
    _write_data(str(folder), data)
    _edit(str(folder / script), changes)
    proc = subprocess.run([sys.executable, script], cwd=folder, capture_output=True, text=True, timeout=900,
                          env=_env(MPLBACKEND="Agg"))
    assert proc.returncode == 0, f"{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    for line in shown:
        assert line in proc.stdout, (line, proc.stdout[-3000:])
