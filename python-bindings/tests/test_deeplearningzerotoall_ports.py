"""deeplearningzerotoall/PyTorch (the lab notebooks of the "Deep Learning Zero To All" course: tensor
manipulation, linear, logistic and softmax regression, XOR, MNIST MLPs with Xavier init, dropout,
batch norm and back-propagation by hand, CNNs), ported on the fly with their imports changed only
from $GLASSGRAD_SCRIPT_SOURCES/deeplearningzerotoall-pytorch (script_sources.py; without it these
tests skip). A notebook runs cell by cell (notebook_cells.py) in a folder with the repository's
CSV files and top-level modules (ported), MNIST (256 training, 64 test images) written under
MNIST_data/ where its `download=True` finds it and CIFAR-10 (40 images a batch) under cifar10/;
nothing is edited: their epochs (`training_epochs = 15`) are short on the small files.

The notebooks here ran under PyTorch 2.14.1 on the same files (a driver outside the repository):
the cells that raise are the ones PyTorch's run raises. The printed values of the tensor
notebooks are PyTorch's (names print as glassgrad.Size, glassgrad.return_types.max, ...); losses
after random initialization differ (glassgrad's generator is not PyTorch's, docs/porting.md)."""
import os
import shutil

import pytest

from data_fixtures import write_cifar, write_mnist
from notebook_cells import assert_raised, run_cells
from script_sources import checkout, needs, port_script

REPO = "deeplearningzerotoall-pytorch"
NO_PLT = "ModuleNotFoundError: No module named 'matplotlib'"

# notebook -> ({cell: a fragment of the error it raises, as under PyTorch}, lines its printout has)
NOTEBOOKS = {
    "lab-01_tensor_manipulation.ipynb": ({}, [
        "tensor([[1., 2.],\n        [6., 8.]])",
        "Max:  tensor([3., 4.])", "Argmax:  tensor([1, 1])",
        "values=tensor([2., 4.]),\nindices=tensor([1, 1]))",
        "tensor([[[ 0.,  1.,  2.]],\n\n        [[ 3.,  4.,  5.]],"]),
    "lab-02_linear_regression.ipynb": ({}, ["Epoch 1000/1000 W:"]),
    "lab-03_minimizing_cost.ipynb": ({}, []),
    # no random numbers: PyTorch's costs to the printed digits but the last (float32 sums)
    "lab-04_1_multivariable_linear_regression.ipynb": ({}, ["Epoch 1000/1000 w1: 0.718 w2: 0.680 w3: 0.680 b: 0.009 "
                                                            "Cost: 1.0793"]),
    "lab-04_2_load_data.ipynb": ({}, ["Epoch    1/20 Cost: 9920.53"]),
    "lab-05_logistic_classification.ipynb": ({}, []),
    "lab-06_1_softmax_classification.ipynb": ({}, []),
    "lab-06_2_fancy_softmax_classification.ipynb": ({}, []),
    "lab-07_1_tips.ipynb": ({}, ["Epoch   19/20 Cost:"]),
    "lab-07_2_mnist_introduction.ipynb": ({}, ["Learning finished", "Accuracy:"]),
    "lab-08_1_xor.ipynb": ({}, ["Hypothesis:", "Accuracy:"]),
    "lab-08_2_xor_nn.ipynb": ({}, ["Accuracy:"]),
    "lab-08_3_xor_nn_wide_deep.ipynb": ({}, ["Accuracy:"]),
    # weights updated by hand 10000 times from a Parameter's graph; prints a count every 1000
    "lab-08_4_mnist_back_prop.ipynb": ({}, []),
    "lab-09_1_mnist_softmax.ipynb": ({}, ["Accuracy:"]),
    "lab-09_2_mnist_nn.ipynb": ({}, ["Accuracy:"]),
    "lab-09_3_mnist_nn_xavier.ipynb": ({}, ["Accuracy:"]),
    "lab-09_4_mnist_nn_deep.ipynb": ({}, ["Accuracy:"]),
    "lab-09_5_mnist_nn_dropout.ipynb": ({}, ["Accuracy:"]),
    "lab-09_6_mnist_batchnorm.ipynb": ({}, ["[Epoch 1-TRAIN] Batchnorm Loss(Acc): bn_loss:"]),
    "lab-10_1_mnist_cnn.ipynb": ({}, ["[Epoch:   15] cost =", "Accuracy:"]),
    "lab-10_2_mnist_deep_cnn.ipynb": ({}, ["Accuracy:"]),
    "lab-10_5_1_Advance-cnn(VGG).ipynb": ({}, []),
    # the notebook's own cell 4 is not Python (a layer list missing a comma)
    "lab-10_6_1_Advance-CNN(Resnet).ipynb": ({4: "SyntaxError: invalid syntax"}, []),
    "lab-11_1_RNN_basics.ipynb": ({}, []),
    "lab-11_2_1_charseq.ipynb": ({}, ["prediction str:"]),
    "lab-11_2_2_hihello.ipynb": ({}, ["prediction str:"]),
    "lab-11_3_longseq.ipynb": ({}, []),
    "lab-11_4_timeseries.ipynb": ({}, []),
    "lab-11_5_seq2seq.ipynb": ({}, []),
    "lab-11_6_PackedSequence.ipynb": ({}, []),
}
SLOW = {"lab-08_4_mnist_back_prop.ipynb", "lab-10_2_mnist_deep_cnn.ipynb"}


def _folder(tmp_path, notebook):
    """A run folder: the notebook's folder's CSV files and modules (ported), MNIST and CIFAR-10."""
    src = os.path.dirname(os.path.join(checkout(REPO), notebook))
    folder = tmp_path / "run"
    folder.mkdir()
    for name in os.listdir(src):
        if name.endswith(".py"):
            port_script.port_file(os.path.join(src, name), str(folder / name))
        elif name.endswith(".csv"):
            shutil.copy(os.path.join(src, name), folder / name)
    write_mnist(str(folder / "MNIST_data"), n_train=256, n_test=64)
    write_cifar(str(folder / "cifar10"), n_per_batch=40, n_test=40)
    return folder


@needs(REPO)
@pytest.mark.parametrize("notebook", [pytest.param(n, marks=[pytest.mark.slow] if n in SLOW else [])
                                      for n in sorted(NOTEBOOKS)])
def test_notebooks_run_as_under_pytorch(tmp_path, notebook):
    pytest.importorskip("matplotlib")
    folder = _folder(tmp_path, notebook)
    raises, shown = NOTEBOOKS[notebook]
    raised, out, err = run_cells(str(folder), os.path.join(checkout(REPO), notebook))
    assert_raised(raised, raises, out, err)
    for line in shown:
        assert line in out, (line, out[-3000:])
