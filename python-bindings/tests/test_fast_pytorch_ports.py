"""omerbsezer/Fast-Pytorch (Learning_Pytorch/: Colab notebooks of MLPs, CNNs on MNIST, CIFAR-10
from PyTorch's blitz, a DCGAN, a word-level LSTM language model) run cell by cell
(notebook_cells.py) with their imports changed only, from $GLASSGRAD_SCRIPT_SOURCES/Fast-Pytorch
(script_sources.py; without it these tests skip).

The notebooks mount Google Drive (`google.colab`, `pydrive`: those cells raise here, as on any
machine without Colab) and read the repository's datasets/ through
drive/Fast-Pytorch/Learning_Pytorch/, which the run links to its folder (datasets/ links to the
checkout's). They download MNIST and CIFAR-10 into ./data, which the run writes small (600 and
100 MNIST images; 40 CIFAR-10 images a batch file, 200 test images); DCGAN reads an image folder
at data/, written as 64 small JPEG files under data/celeba. Epoch counts (`epochs=10`,
`num_epochs=25`, `num_epochs =1000`, ...) are set to 1, the only lines changed beyond the imports.

Left out: TransferLearning and CNN_Visualization start from pretrained resnet18 / vgg16 weights
(a download); ChatBot reads the Cornell movie-dialogs corpus, which the snapshot of the
repository lacks (Git LFS).

Every notebook here also ran under PyTorch 2.14.1 on the same files (a driver outside the
repository): the cells that raise are the ones PyTorch's run raises, with the same exception and
message start, and the lines checked are ones PyTorch's run prints alike. One difference:
PyTorch's CIFAR10(download=True) checks the files' MD5 sums, finds the small files are not the
published ones and tries to download (URLError offline, Pytorch_Playground's cell 20 and the
cells using its loaders); glassgrad reads the files that are there."""
import os
import re

import numpy as np
import pytest

from data_fixtures import write_cifar, write_mnist
from notebook_cells import assert_raised, code_cells, run_cells
from script_sources import checkout, needs

REPO = "Fast-Pytorch"
COLAB = "No module named 'google.colab'"
HIDE = ("google", "pydrive", "oauth2client")  # Colab's modules, absent alike everywhere
# a notebook's epoch setting, a line of its own
EPOCHS = re.compile(r"^(\s*(?:num_)?epochs\s*=\s*)\d+(\s*)$")

# notebook -> ({cell: a fragment of the error it raises, as under PyTorch}, lines its printout has)
NOTEBOOKS = {
    "CNN_Mnist.ipynb": ({2: "No module named 'pydrive.auth'"},
                        ["Number of images in training set: 600", "Number of batches in the train loader: 6",
                         "Finished!"]),
    # the notebook's own slip: .numpy() of an output that requires grad, refused as by PyTorch
    "Improved_CNN_Mnist.ipynb": ({9: "Can't call numpy() on Tensor that requires grad"},
                                 ["Epoch 1/1, Training Loss:", "Predicted Shape: glassgrad.Size([100])"]),
    "MLP_1class_BinaryCrossEntropyLoss.ipynb": ({0: COLAB},
                                                ["glassgrad.Size([768, 7]) glassgrad.float64", "Epoch 1/1, loss:"]),
    "MLP_2class_CrossEntropyLoss.ipynb": ({}, []),
    "MLP_3layer_MNIST.ipynb": ({}, ["Training model is finished!", "Test Accuracy:"]),
    "Pytorch_Playground.ipynb": ({0: COLAB}, ["glassgrad.Size([3, 4])", "Accuracy of the network on the 10000 test images:",
                                              "Accuracy of plane :"]),
    "DCGAN.ipynb": ({0: COLAB}, ["Starting Training Loop...", "[0/1][0/2]\tLoss_D:"]),
    "RNN_word_embeddings.ipynb": ({0: COLAB, 1: COLAB},
                                  ["Epoch [1/1], Loss:", "Sampled [500/500] words and save to"]),
}
SLOW = {"RNN_word_embeddings.ipynb"}  # a 1024-unit LSTM over a 5291-word vocabulary


def _epochs(path):
    """`changes` setting each epoch count of the notebook to 1."""
    lines = {line for cell in code_cells(path) for line in cell.split("\n") if EPOCHS.match(line)}
    return {line: EPOCHS.sub(r"\g<1>1\g<2>", line) for line in lines}


def _write_image_folder(folder, n=64, seed=0):
    from PIL import Image
    rng = np.random.default_rng(seed)
    os.makedirs(folder)
    for i in range(n):
        Image.fromarray(rng.integers(0, 256, (72, 72, 3), dtype=np.uint8)).save(os.path.join(folder, f"{i:06d}.jpg"))


@needs(REPO)
@pytest.mark.parametrize("notebook", [pytest.param(n, marks=[pytest.mark.slow] if n in SLOW else [])
                                      for n in sorted(NOTEBOOKS)])
def test_notebooks_run_as_under_pytorch(tmp_path, notebook):
    for module in ("matplotlib", "PIL", "pandas", "sklearn"):
        pytest.importorskip(module)
    source = os.path.join(checkout(REPO), "Learning_Pytorch")
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "datasets").symlink_to(os.path.join(source, "datasets"), target_is_directory=True)
    (folder / "results").mkdir()
    (folder / "drive" / "Fast-Pytorch").mkdir(parents=True)
    (folder / "drive" / "Fast-Pytorch" / "Learning_Pytorch").symlink_to(folder, target_is_directory=True)
    if notebook == "DCGAN.ipynb":
        _write_image_folder(str(folder / "data" / "celeba"))
    else:
        write_mnist(str(folder / "data"), n_train=600, n_test=100)
        write_cifar(str(folder / "data"), n_per_batch=40, n_test=200)
    path = os.path.join(source, notebook)
    raises, shown = NOTEBOOKS[notebook]
    raised, out, err = run_cells(str(folder), path, hide=HIDE, changes=_epochs(path))
    assert_raised(raised, raises, out, err)
    for line in shown:
        assert line in out, (line, out[-3000:])
