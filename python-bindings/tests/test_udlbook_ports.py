"""udlbook/udlbook (the notebooks of Prince's "Understanding Deep Learning" that import torch:
MNIST-1D performance, double descent, augmentation, 1D and 2D convolution, convolution for MNIST,
residual networks, batch normalization, random data, full-batch gradient descent, adversarial
attacks), ported on the fly with their imports changed only from $GLASSGRAD_SCRIPT_SOURCES/udlbook
(script_sources.py; without it these tests skip). A notebook runs cell by cell (notebook_cells.py) in a ported copy of its folder. The MNIST-1D
notebooks build their data with the mnist1d package (`get_dataset(..., download=False)`
generates the 4000 training and 1000 test signals when no pickle is there; the tests skip without
the package); the two MNIST notebooks read MNIST (640 training, 1000 test images) written under
./files.

The edits beyond the imports: each epoch count (`n_epoch = 50`, 60, 100 or 1000, and 20.2's
`n_epoch=200000` and 500000 in its train_model calls) set to 2, and MNIST's root `/files/` (a
folder at the file system's root) read as `./files/`. 20.2's GPU variant runs on the CPU (its
`DEVICE` is 'cpu' without CUDA).

Not run: 12.4 (GPT-2 from Hugging Face's hub), 20.3 (clones the mnist1d repository for its
training module), and the notebooks without torch.

Every notebook here also ran under PyTorch 2.14.1 on the same files (a driver outside the
repository): the cells that raise are the ones PyTorch's run raises (none), and each ran to its
end under both."""
import re

import pytest

from data_fixtures import write_mnist
from notebook_cells import check_cells, ported_notebook
from script_sources import needs

REPO = "udlbook"


def _epochs(*counts):
    """The notebook's `n_epoch = N` lines (N in counts) set to 2 epochs."""
    return {f"n_epoch = {n}": "n_epoch = 2" for n in counts}


def _full_batch(device=""):
    """20.2's four train_model calls (200000 or 500000 epochs) set to 2 epochs; `device` the GPU
    variant's extra argument."""
    calls = [f"errors_{name} = train_model(model_{n}_layer, train_data_x, train_data_y, n_epoch={epochs}{device})"
             for name, n, epochs in (("four_layers", 4, 200000), ("three_layers", 3, 200000),
                                     ("two_layers", 2, 200000), ("one_layer", 1, 500000))]
    return {line: re.sub(r"n_epoch=\d+", "n_epoch=2", line) for line in calls}


def _mnist_root(*lines):
    """The lines reading MNIST from /files/ reading it from ./files/ (in the test's folder)."""
    return {line: line.replace("'/files/'", "'./files/'") for line in lines}


# notebook -> ({cell: a fragment of the error it raises, as under PyTorch}, lines its printout has,
#              {line: replacement})
NOTEBOOKS = {
    "Notebooks/Chap10/10_3_2D_Convolution.ipynb": ({}, ["PyTorch Results"], {}),
    "Notebooks/Chap10/10_5_Convolution_For_MNIST.ipynb": ({}, ["Test set: Avg. loss:"],
                                                          _mnist_root("myDir = '/files/'")),
    "Notebooks/Chap20/20_4_Adversarial_Attacks.ipynb": (
        {}, [], _mnist_root("  torchvision.datasets.MNIST('/files/', train=True, download=True,",
                            "  torchvision.datasets.MNIST('/files/', train=False, download=True,")),
}
MNIST1D = {
    "Notebooks/Chap08/8_1_MNIST_1D_Performance.ipynb": ({}, [], _epochs(50)),
    "Notebooks/Chap08/8_3_Double_Descent.ipynb": ({}, [], _epochs(1000)),
    "Notebooks/Chap09/9_5_Augmentation.ipynb": ({}, [], _epochs(50)),
    "Notebooks/Chap10/10_2_Convolution_for_MNIST_1D.ipynb": ({}, [], _epochs(100)),
    "Notebooks/Chap11/11_2_Residual_Networks.ipynb": ({}, [], _epochs(100)),
    "Notebooks/Chap11/11_3_Batch_Normalization.ipynb": ({}, [], {}),
    "Notebooks/Chap20/20_1_Random_Data.ipynb": ({}, [], _epochs(60)),
    "Notebooks/Chap20/20_2_Full_Batch_Gradient_Descent.ipynb": ({}, [], _full_batch()),
    "Notebooks/Chap20/20_2_Full_Batch_Gradient_Descent_GPU.ipynb": ({}, [], _full_batch(", DEVICE=DEVICE")),
}
NOTEBOOKS.update(MNIST1D)


@needs(REPO)
@pytest.mark.parametrize("notebook", sorted(NOTEBOOKS))
def test_notebooks_run_as_under_pytorch(tmp_path, notebook):
    pytest.importorskip("matplotlib")
    if notebook in MNIST1D:
        pytest.importorskip("mnist1d")
    folder, path = ported_notebook(tmp_path, REPO, notebook)
    write_mnist(str(folder / "files"), n_train=640, n_test=1000)
    raises, shown, changes = NOTEBOOKS[notebook]
    check_cells(folder, path, raises, shown, changes=changes)
