"""L1aoXingyu/code-of-learn-deep-learning-with-pytorch (the code of a Chinese book on deep learning
with PyTorch, written for PyTorch 0.3), its chapter 2 and 3 notebooks run cell by cell
(notebook_cells.py) with their imports changed only, from
$GLASSGRAD_SCRIPT_SOURCES/code-of-learn-deep-learning-with-pytorch (script_sources.py; without it
these tests skip). Each runs in a copy of its folder (the notebooks read data.txt beside them and
MNIST from ./data with download=True: 256 training and 64 test images are written there in
torchvision's layout).

The cells that raise are the ones PyTorch 2.14.1's run of the same cells raises (checked by
running both): the book prints losses as `loss.data[0]`, which indexes a 0-d tensor since PyTorch
0.4 (IndexError in both), loads a whole pickled model under torch.load's weights_only default,
uses CUDA and tensorflow (not here)."""
import os
import shutil

import pytest

from data_fixtures import write_mnist
from notebook_cells import assert_raised, run_cells
from script_sources import checkout, needs, source

REPO = "code-of-learn-deep-learning-with-pytorch"
LOSS_DATA_0 = "IndexError"  # `loss.data[0]` of a 0-d loss: PyTorch raises IndexError too
NO_GPU = "cannot be used"

# notebook -> {cell: a fragment of glassgrad's error}, the cells PyTorch's run raises too
NOTEBOOKS = {
    "chapter2_PyTorch-Basics/PyTorch-introduction.ipynb": {},
    "chapter2_PyTorch-Basics/Tensor-and-Variable.ipynb": {4: NO_GPU, 5: "gpu_tensor"},
    "chapter2_PyTorch-Basics/autograd.ipynb": {},
    # tensorflow, to compare its static graph with PyTorch's dynamic one (hidden, as where it is missing)
    "chapter2_PyTorch-Basics/dynamic-graph.ipynb": {0: "tensorflow", 2: "'tf'", 3: "'tf'", 4: "counter_1_res"},
    "chapter3_NN/bp.ipynb": {},
    "chapter3_NN/deep-nn.ipynb": {},
    "chapter3_NN/linear-regression-gradient-descend.ipynb": {13: LOSS_DATA_0, 25: LOSS_DATA_0},
    "chapter3_NN/logistic-regression/logistic-regression.ipynb": {14: LOSS_DATA_0, 18: LOSS_DATA_0},
    # 21: torch.load of a whole pickled model under weights_only=True (PyTorch 2.6+ refuses it too)
    "chapter3_NN/nn-sequential-module.ipynb": {6: LOSS_DATA_0, 10: LOSS_DATA_0, 17: LOSS_DATA_0,
                                               21: "Weights only load failed", 22: "seq_net1", 23: "seq_net1",
                                               33: LOSS_DATA_0, 36: LOSS_DATA_0},
    # optimizers written by hand and torch.optim's on MNIST: each training loop stops at its first
    # printed loss.data[0]
    "chapter3_NN/optimizer/adadelta.ipynb": {2: LOSS_DATA_0, 4: LOSS_DATA_0},
    "chapter3_NN/optimizer/adagrad.ipynb": {2: LOSS_DATA_0, 4: LOSS_DATA_0},
    "chapter3_NN/optimizer/adam.ipynb": {2: LOSS_DATA_0, 4: LOSS_DATA_0},
    "chapter3_NN/optimizer/momentum.ipynb": {2: LOSS_DATA_0, 3: LOSS_DATA_0, 5: LOSS_DATA_0},
    "chapter3_NN/optimizer/rmsprop.ipynb": {2: LOSS_DATA_0, 4: LOSS_DATA_0, 6: LOSS_DATA_0},
    "chapter3_NN/optimizer/sgd.ipynb": {2: LOSS_DATA_0, 4: LOSS_DATA_0, 6: LOSS_DATA_0, 8: LOSS_DATA_0},
}


@needs(REPO)
@pytest.mark.parametrize("notebook", sorted(NOTEBOOKS))
def test_chapters_2_and_3_run_as_under_pytorch(tmp_path, notebook):
    pytest.importorskip("matplotlib")
    folder = tmp_path / os.path.basename(os.path.dirname(notebook))
    shutil.copytree(source(REPO, os.path.dirname(notebook)), folder)
    write_mnist(str(folder / "data"), n_train=256, n_test=64)
    hide = ("tensorflow",) if "dynamic-graph" in notebook else ()
    raised, out, err = run_cells(str(folder), os.path.join(checkout(REPO) or "", notebook), hide=hide)
    assert_raised(raised, NOTEBOOKS[notebook], out, err)
    for shown in SHOWN.get(notebook, ()):
        assert shown in out, (shown, out[-3000:])


# printouts of given values, as PyTorch's run prints them
SHOWN = {
    "chapter2_PyTorch-Basics/autograd.ipynb": [
        "tensor([19.], grad_fn=<AddBackward0>)\ntensor([8.])",
        "tensor([[2., 3.]], requires_grad=True)\ntensor([[0., 0.]])\ntensor([[ 4., 27.]], grad_fn=<CopySlices>)"
        "\ntensor([[ 4., 27.]])",
        "tensor([18.], grad_fn=<AddBackward0>)\ntensor([8.])\ntensor([16.])\ntensor([13., 13.], grad_fn=<CopySlices>)"],
}
