"""zergtant/pytorch-handbook (a Chinese-language PyTorch handbook used in courses): its chapter
notebooks run cell by cell (notebook_cells.py) in a ported copy of their chapter's folder, imports
changed only, from $GLASSGRAD_SCRIPT_SOURCES/zergtant-pytorch-handbook (script_sources.py; without
it these tests skip). MNIST (256 training, 64 test images) and CIFAR-10 (40 images a training
batch, 200 test images, so that every class is met) are written under ./data; chapter 5's
Fashion-MNIST notebook reads Kaggle's CSV files and raw IDX files, written small
(data_fixtures.write_fashion_mnist_csv), and its `TOTAL_EPOCHS=50` is set to 1, the only line
changed beyond the imports.

Left out: 4.1 (Kaggle's dog-breed images and ImageNet weights), 4.2.1 (visdom), 4.3 (fastai),
5.2 (UCI's adult.csv trained for minutes on the CPU, under PyTorch as here) and torchaudio/intro
(torchaudio, librosa): they need packages or downloads a test cannot have. 4.5's fourth cell is
a script for the command line (its comment says it fails in Jupyter): argparse exits the
interpreter there, under PyTorch as here, so the cell runner cannot go on; its first cells (a
DataParallel ResNet-50) run alike.

Every notebook here also ran under PyTorch 2.14.1 on the same files (a driver outside the
repository): the cells that raise are the ones PyTorch's run raises, with the same cause, except
where DIFFERS says why, and the lines checked are ones PyTorch's run prints alike."""
import os

import pytest

from data_fixtures import write_cifar, write_fashion_mnist_csv, write_mnist
from notebook_cells import check_cells, ported_notebook
from script_sources import needs

REPO = "zergtant-pytorch-handbook"
NOT_DEFINED = "NameError: name"  # a cell using what a failed cell would have defined
NO_GPU = "cannot be used"  # glassgrad's DeviceError where PyTorch finds no driver
# glassgrad downloads nothing; PyTorch's run fails to connect (URLError) at the same call
NO_WEIGHTS = "glassgrad bundles no pretrained weights"
FAILED_CELLS = {n: NOT_DEFINED for n in (3, 5, 7, 8, 9, 10, 11, 12, 14)}

# notebook -> ({cell: a fragment of the error it raises}, lines its printout has, {line: new line})
NOTEBOOKS = {
    "chapter1/1_tensor_tutorial.ipynb": ({}, ["glassgrad.Size([5, 3])", "tensor([1., 1., 1., 1., 1.])\n"
                                              "[1. 1. 1. 1. 1.]\ntensor([2., 2., 2., 2., 2.])"], {}),
    "chapter1/tensor_tutorial.ipynb": ({}, ["[2. 2. 2. 2. 2.]\ntensor([1., 1., 1., 1., 1.], dtype=glassgrad.float64)"],
                                       {}),
    "chapter1/2_autograd_tutorial.ipynb": ({}, ["tensor([[4.5000, 4.5000],\n        [4.5000, 4.5000]])"], {}),
    "chapter1/autograd_tutorial.ipynb": ({}, ["tensor([[3., 3.],\n        [3., 3.]], grad_fn=<AddBackward0>)"], {}),
    "chapter1/3_neural_networks_tutorial.ipynb": ({}, ["10\nglassgrad.Size([6, 1, 5, 5])",
                                                       "<MseLossBackward0 object at",
                                                       "conv1.bias.grad before backward\nNone"], {}),
    "chapter1/neural_networks_tutorial.ipynb": ({}, ["<AccumulateGrad object at"], {}),
    "chapter1/4_cifar10_tutorial.ipynb": ({}, ["Finished Training", "Accuracy of truck :"], {}),
    "chapter1/cifar10_tutorial.ipynb": ({}, ["Finished Training", "Accuracy of truck :"], {}),
    "chapter1/5_data_parallel_tutorial.ipynb": ({}, [], {}),
    "chapter1/data_parallel_tutorial.ipynb": ({}, [], {}),
    # no GPU: cuda() of a tensor, then the names it would have made
    "chapter2/2.1.1.pytorch-basics-tensor.ipynb": ({18: NO_GPU, 19: NOT_DEFINED, 20: NOT_DEFINED}, [], {}),
    "chapter2/2.1.2-pytorch-basics-autograd.ipynb": ({}, ["x.is_leaf=True\nz.is_leaf=False"], {}),
    "chapter2/2.1.3-pytorch-basics-nerual-network.ipynb": ({}, [], {}),
    # resnet18(pretrained=True)
    "chapter2/2.1.4-pytorch-basics-data-loader.ipynb": ({10: NO_WEIGHTS}, [], {}),
    # seaborn left out (as when not installed): its import and its plot
    "chapter2/2.2-deep-learning-basic-mathematics.ipynb": ({1: "seaborn", 4: NOT_DEFINED},
                                                           ["epoch 2900, loss 0.06"], {}),
    "chapter2/2.3-deep-learning-neural-network-introduction.ipynb": ({}, [], {}),
    "chapter2/2.4-cnn.ipynb": ({}, [], {}),
    "chapter2/2.5-rnn.ipynb": ({}, [], {}),
    "chapter3/3.1-logistic-regression.ipynb": ({}, ["Epoch:1000,Loss:0.5"], {}),
    "chapter3/3.2-mnist.ipynb": ({}, ["Test set: Average loss:"], {}),
    "chapter3/3.3-rnn.ipynb": ({}, ["EPOCHS: 299,Loss:"], {}),
    # tensorboard left out: the writer's import and its users; vgg16(pretrained=True)
    "chapter4/4.2.2-tensorboardx.ipynb": ({1: "tensorboard", 4: NOT_DEFINED, 5: NOT_DEFINED, 10: NO_WEIGHTS,
                                           13: NOT_DEFINED, 14: NOT_DEFINED}, ["Out[2]: (1280, 853)",
                                                                               "Out[12]: glassgrad.Size([1, 3, 224, 224])"], {}),
    # vgg16(pretrained=True), then the names; 13: the repository's gradcam folder is not on the path
    "chapter4/4.2.3-cnn-visualizing.ipynb": ({2: NO_WEIGHTS, **FAILED_CELLS, 13: "No module named 'gradcam'"}, [], {}),
    "chapter5/5.3-Fashion-MNIST.ipynb": ({}, ["Out[2]:    label  pixel1", "准确率: "],
                                         {"TOTAL_EPOCHS=50": "TOTAL_EPOCHS=1"}),
}
# modules not installed everywhere, left out alike (notebook_cells.run_cells' hide)
HIDE = {"chapter2/2.2-deep-learning-basic-mathematics.ipynb": ("seaborn",),
        "chapter4/4.2.2-tensorboardx.ipynb": ("tensorboard", "tensorboardX")}
# notebook -> {cell: why glassgrad's run differs from PyTorch's}
DIFFERS = {
    "chapter1/4_cifar10_tutorial.ipynb": {
        3: "`dataiter.next()` runs: glassgrad's loader iterators keep the `.next()` PyTorch removed in 1.13 "
           "(scripts of that time call it); PyTorch raises AttributeError there and at cell 7, then NameError at 8"},
}
DIFFERS["chapter1/cifar10_tutorial.ipynb"] = DIFFERS["chapter1/4_cifar10_tutorial.ipynb"]


def _data(folder):
    write_mnist(os.path.join(folder, "data"), n_train=256, n_test=64)
    write_cifar(os.path.join(folder, "data"), n_per_batch=40, n_test=200)
    write_fashion_mnist_csv(os.path.join(folder, "data"), n_train=512, n_test=128)


@needs(REPO)
@pytest.mark.parametrize("notebook", sorted(NOTEBOOKS))
def test_notebooks_run_as_under_pytorch(tmp_path, notebook):
    for module in ("matplotlib", "pandas", "PIL"):
        pytest.importorskip(module)
    folder, path = ported_notebook(tmp_path, REPO, notebook)
    _data(str(folder))
    raises, shown, changes = NOTEBOOKS[notebook]
    check_cells(folder, path, raises, shown, hide=HIDE.get(notebook, ()), changes=changes)
