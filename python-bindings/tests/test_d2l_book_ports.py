"""d2l-ai/d2l-pytorch-colab (Dive into Deep Learning 1.0.3, the book's PyTorch notebooks as the
d2l-ai team exports them, with the book's `d2l` package, d2l/torch.py), the notebooks run cell by
cell (notebook_cells.py) with their imports changed only, from
$GLASSGRAD_SCRIPT_SOURCES/d2l-pytorch-colab (script_sources.py; without it these tests skip).

Each notebook runs in <tmp>/<chapter>/ beside d2l/, ported the same way (the notebooks
`from d2l import torch as d2l`; their first cell, `!pip install d2l==1.0.3`, is a shell line
left out). The book reads its data under ../data: Fashion-MNIST is written there small in
torchvision's layout (d2l.FashionMNIST(root='../data', download=True) finds it), and what
d2l.download fetches over plain HTTP with requests (the time machine's text) a local proxy
serves, small. The book's trainers run one epoch (`max_epochs=1` wherever a line sets max_epochs: the
only other lines changed). docs/porting.md has the table.

NOTEBOOKS names the cells that raise, for a reason PyTorch's run of the cell shares (no CUDA GPU
on the machine) or, where noted, glassgrad's own limit (no complex dtype: torch.linalg.eig)."""
import os
import re

import numpy as np
import pytest

from data_fixtures import write_fashion_mnist
from notebook_cells import assert_raised, code_cells, run_cells
from script_sources import checkout, needs, port_script, source
from test_d2l_pytorch_ports import serving

REPO = "d2l-pytorch-colab"
EPOCHS = re.compile(r"max_epochs=\d+")
NO_GPU = "cannot be used"  # glassgrad's DeviceError on a machine without a usable CUDA GPU
NO_COMPLEX = "glassgrad has no complex dtype"


def _downloads():
    """{file name: bytes} of what the notebooks download: the time machine's text, lines of words
    of its first sentence."""
    rng = np.random.default_rng(0)
    words = "the time traveller for so it will be convenient to speak of him was expounding a matter to us".split()
    return {"timemachine.txt": "\n".join(" ".join(rng.choice(words, 10)) for _ in range(400)).encode()}


def _run(tmp_path, notebook, raises):
    """Runs the notebook in tmp_path/<chapter> with d2l/ ported beside it, the data under
    tmp_path/data and the book's pictures as tmp_path/img; the cells that raised are `raises`
    ({cell: a fragment of its error})."""
    for module in ("IPython", "matplotlib", "matplotlib_inline", "pandas", "requests", "scipy", "PIL"):
        pytest.importorskip(module)  # d2l/torch.py imports them at its top
    folder = tmp_path / os.path.dirname(notebook)
    port_script.port_tree(source(REPO, "d2l"), str(folder / "d2l"))
    os.symlink(source(REPO, "img"), tmp_path / "img")  # the computer-vision chapter's pictures, ../img
    write_fashion_mnist(str(tmp_path / "data"), n_train=32, n_test=8)
    path = os.path.join(checkout(REPO) or "", notebook)
    changes = {line: EPOCHS.sub("max_epochs=1", line)
               for line in {line for cell in code_cells(path) for line in cell.split("\n")} if EPOCHS.search(line)}
    with serving(_downloads()) as proxy:
        raised, out, err = run_cells(str(folder), path, changes=changes, env={"HTTP_PROXY": proxy, "http_proxy": proxy})
    assert_raised(raised, raises, out, err)


# notebook -> the cells that raise ({cell: a fragment of the error}); a choice of the chapters' notebooks
# that together run in about a minute on a 2-core CPU (the others of these chapters ran the same way,
# one epoch each, outside the suite: docs/porting.md)
NOTEBOOKS = {
    "chapter_preliminaries/autograd.ipynb": {},
    "chapter_preliminaries/ndarray.ipynb": {},
    "chapter_preliminaries/pandas.ipynb": {},
    "chapter_linear-regression/linear-regression-concise.ipynb": {},
    "chapter_linear-classification/softmax-regression-scratch.ipynb": {},
    "chapter_multilayer-perceptrons/mlp-implementation.ipynb": {},
    "chapter_builders-guide/custom-layer.ipynb": {},
    "chapter_builders-guide/lazy-init.ipynb": {},
    "chapter_builders-guide/parameters.ipynb": {},
    "chapter_builders-guide/read-write.ipynb": {},
    # `X.cuda(1)` on a machine without a CUDA GPU, then the names it would have made
    "chapter_builders-guide/use-gpu.ipynb": {8: NO_GPU, 9: "name 'Z' is not defined", 10: "name 'Z' is not defined"},
    "chapter_convolutional-neural-networks/padding-and-strides.ipynb": {},
    "chapter_convolutional-neural-networks/pooling.ipynb": {},
    "chapter_attention-mechanisms-and-transformers/attention-scoring-functions.ipynb": {},
    "chapter_recurrent-neural-networks/language-model.ipynb": {},
    "chapter_recurrent-modern/encoder-decoder.ipynb": {},
    # glassgrad's limit: torch.linalg.eig's eigenvalues are complex
    "chapter_appendix-mathematics-for-deep-learning/eigendecomposition.ipynb": {
        1: NO_COMPLEX, 2: NO_COMPLEX, 6: NO_COMPLEX, 7: "name 'norm_eigs' is not defined"},
    "chapter_computer-vision/anchor.ipynb": {},
}


@needs(REPO)
@pytest.mark.parametrize("notebook", sorted(NOTEBOOKS))
def test_notebooks_run_as_under_pytorch(tmp_path, notebook):
    _run(tmp_path, notebook, NOTEBOOKS[notebook])
