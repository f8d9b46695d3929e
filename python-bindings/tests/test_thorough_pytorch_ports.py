"""datawhalechina/thorough-pytorch (Datawhale's Chinese-language PyTorch course): its notebooks
run cell by cell (notebook_cells.py) in a ported copy of their folder, imports changed only, from
$GLASSGRAD_SCRIPT_SOURCES/thorough-pytorch (script_sources.py; without it these tests skip). The
Fashion-MNIST notebook reads torchvision's raw files and Kaggle's CSV files under ./FashionMNIST,
written small (data_fixtures), with `epochs = 20` set to 1, the only line changed beyond the
imports.

Left out: the advanced-training notebook (Carvana's images and a GPU throughout), the Visdom one,
the fruit-and-vegetable one (its image folders), and the LSTM one (torchtext, the IMDB download).

Every notebook here also ran under PyTorch 2.14.1 on the same files (a driver outside the
repository): the cells that raise are the ones PyTorch's run raises, with the same cause, and the
lines checked are ones PyTorch's run prints alike, except where DIFFERS says why."""

import pytest

from data_fixtures import write_fashion_mnist, write_fashion_mnist_csv
from notebook_cells import check_cells, ported_notebook
from script_sources import needs

REPO = "thorough-pytorch"
NOT_DEFINED = "NameError: name"
NO_GPU = "cannot be used"  # glassgrad's DeviceError where PyTorch finds no driver
SYNTAX = "SyntaxError: invalid syntax"  # a cell of prose or shell text the course left as code
BASICS = "notebook/第二章 PyTorch基础知识/代码演示：PyTorch基础知识.ipynb"
FASHION = "notebook/第四章 PyTorch基础实战/图像分类/FashionMNIST时装分类实战/基础实战——FashionMNIST时装分类.ipynb"

# notebook -> ({cell: a fragment of the error it raises}, lines its printout has, {line: new line})
NOTEBOOKS = {
    # 19: x.grad of a tensor that needs none is None; 24: backward() of a result needing no grad
    BASICS: ({1: SYNTAX, 19: "'NoneType' object has no attribute 'data'", 24: "does not require grad"},
             ["tensor([[1, 2, 3],\n        [4, 5, 6]])\n[[1 2 3]\n [4 5 6]]"], {}),
    # transforms.Scale, removed from torchvision (0.15) and never in glassgrad
    "notebook/第八章 PyTorch生态简介/transforms.ipynb": ({5: "has no attribute 'Scale'"}, [], {}),
    # no GPU: model.cuda() and the training loop's data.cuda(); 14: torch.save of the whole model,
    # whose class the cell runner's __main__ cannot name (pickle refuses it under PyTorch too)
    FASHION: ({7: NO_GPU, 9: SYNTAX, 13: NO_GPU, 14: "an't pickle"}, [], {"epochs = 20": "epochs = 1"}),
    # the course's files (data/table.txt, demo.py) are not in the repository
    "notebook/第零章 前置知识补充/进阶操作.ipynb": ({28: SYNTAX, 31: "data/table.txt", 32: NOT_DEFINED, 33: NOT_DEFINED,
                                            34: "No module named 'demo'", 35: NOT_DEFINED}, [], {}),
}
# notebook -> {cell: why glassgrad's run prints otherwise than PyTorch's}
DIFFERS = {
    BASICS: {5: "`g[0, 0] = 100` after `i = torch.from_numpy(g)`: glassgrad's from_numpy copies the array "
                "(docs of glassgrad.from_numpy), so i still holds 1 where PyTorch's, sharing the memory, holds 100"},
}


@needs(REPO)
@pytest.mark.parametrize("notebook", sorted(NOTEBOOKS))
def test_notebooks_run_as_under_pytorch(tmp_path, notebook):
    for module in ("matplotlib", "pandas", "PIL"):
        pytest.importorskip(module)
    folder, path = ported_notebook(tmp_path, REPO, notebook)
    write_fashion_mnist(str(folder), n_train=512, n_test=128)
    write_fashion_mnist_csv(str(folder / "FashionMNIST"), n_train=512, n_test=128)
    raises, shown, changes = NOTEBOOKS[notebook]
    check_cells(folder, path, raises, shown, changes=changes)
