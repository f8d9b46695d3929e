"""phlippe/uvadlc_notebooks (the University of Amsterdam's deep-learning tutorials written in plain
PyTorch, docs/tutorial_notebooks/), ported on the fly with their imports changed only from
$GLASSGRAD_SCRIPT_SOURCES/uvadlc_notebooks (script_sources.py; without it these tests skip). A
notebook runs cell by cell (notebook_cells.py) in a ported copy of its folder; the notebooks read
their data from ../data and write checkpoints under ../saved_models, so both lie in the test's
temporary folder. The first cell of each imports seaborn and tqdm.notebook (the tests skip without
seaborn and ipywidgets).

- Tutorial 2 (introduction to PyTorch: tensors, autograd, a small classifier on a continuous XOR,
  saving and loading a state dict) runs to its end but for the GPU timing cell (a CUDA event on a
  machine without a GPU) and the TensorBoard cell (the tensorboard package is left out).
- Tutorials 6 (multi-head attention and the Transformer), 7 (graph networks), 9 (autoencoders)
  and 11 (normalizing flows) build their models in plain PyTorch but train them with PyTorch
  Lightning, a framework of its own (no thin wrapper to fake) which is not installed: the first
  cell's `import pytorch_lightning` raises before the data paths are set, and with it every cell
  using `pl`, the data or what those cells define; the plain-PyTorch cells run (scaled
  dot-product attention, MultiheadAttention, EncoderBlock, TransformerEncoder,
  PositionalEncoding, the warm-up scheduler; a GCN and a graph attention layer; the encoder and
  decoder; dequantization and its visualization, coupling layers with gated convolutions,
  squeeze and split flows). Tutorial 7's torch_geometric is not installed either.

- Tutorial 5 (Inception, ResNet, DenseNet) imports Lightning only in its seventh cell: its
  CIFAR-10 cells run first, on a full-size copy of random images written under ../data (its
  `random_split(train_dataset, [45000, 5000])` needs the 50000), then the Lightning cells raise
  as above.

Not run: tutorial 3 (activation functions) trains six networks on the full 60000-image
FashionMNIST (its `random_split(train_dataset, [50000, 10000])`), and tutorial 4 is not in the
snapshot the tests were written against.

Every notebook here also ran under PyTorch 2.14.1 on the same files (a driver outside the
repository): the cells that raise are the ones PyTorch's run raises, with the same exception and
message start but where noted."""
import pytest

from data_fixtures import write_cifar
from notebook_cells import check_cells, ported_notebook
from script_sources import needs

REPO = "uvadlc_notebooks"
NOT_DEFINED = "NameError: name"  # a cell using what a failed cell would have defined
NO_LIGHTNING = "No module named 'pytorch_lightning'"

# notebook -> ({cell: a fragment of the error it raises, as under PyTorch}, lines its printout has)
NOTEBOOKS = {
    # a CUDA event's record() on a machine without a GPU (PyTorch: 'Found no NVIDIA driver'); the
    # TensorBoard writer without the tensorboard package, and the cell using it
    "tutorial2/Introduction_to_PyTorch.ipynb": ({31: "CUDA device cuda:0 cannot be used",
                                                 59: "No module named 'tensorboard'", 61: NOT_DEFINED},
                                                ["Accuracy of the model:"]),
    "tutorial6/Transformers_and_MHAttention.ipynb": (
        {0: NO_LIGHTNING, **{c: NOT_DEFINED for c in (1, 3, 13, 17, 19, 20, 21, 22, 24, 25, 26, 27, 28, 29, 31, 32,
                                                      33, 35, 36, 37, 38, 39, 40, 41)}}, []),
    # torch.version.cuda is None without CUDA, as in PyTorch's CPU builds, so the cell's install
    # fallback fails on `torch.version.cuda.replace` (a CUDA build of PyTorch gets on to the
    # missing torch_geometric)
    "tutorial7/GNN_overview.ipynb": (
        {0: NO_LIGHTNING, 7: "'NoneType' object has no attribute 'replace'",
         **{c: NOT_DEFINED for c in (1, 8, 9, 10, 13, 16, 17, 18, 19, 20, 21, 22, 24, 26, 27)}}, []),
    # Lightning imported in cell 7, after the CIFAR-10 cells (mean and deviation of the training
    # set, augmentation, `random_split(train_dataset, [45000, 5000])`); cell 2's download of the
    # pretrained models fails offline (urlopen)
    "tutorial5/Inception_ResNet_DenseNet.ipynb": (
        {2: "URLError", 7: NO_LIGHTNING, 10: NO_LIGHTNING, 36: "SyntaxError: invalid syntax",
         **{c: NOT_DEFINED for c in (8, 9, 17, 18, 26, 27, 34, 37)}}, []),
    # the cells reading the models Lightning would have trained (a dict left empty) raise KeyError
    "tutorial9/AE_CIFAR10.ipynb": (
        {0: NO_LIGHTNING, 13: "KeyError: 256", 14: "KeyError: 256", 15: "KeyError: 256", 16: "KeyError: 128",
         20: "KeyError: 128", **{c: NOT_DEFINED for c in (1, 2, 5, 6, 7, 9, 12, 17, 19, 21, 23, 25)}}, []),
    # cell 24 is IPython's %%html cell magic, whose HTML body does not parse as Python
    "tutorial11/NF_image_modeling.ipynb": (
        {0: NO_LIGHTNING, 23: "KeyError: 'result'", 24: "SyntaxError: invalid syntax", 25: "KeyError: 'result'",
         **{c: NOT_DEFINED for c in (1, 2, 3, 4, 6, 21, 22, 26, 27, 28, 29, 30, 31, 32, 33, 34)}}, []),
}


# notebooks reading the full-size CIFAR-10 (50000 random training images) from ../data
CIFAR10 = {"tutorial5/Inception_ResNet_DenseNet.ipynb"}


@needs(REPO)
@pytest.mark.parametrize("notebook", sorted(NOTEBOOKS))
def test_notebooks_run_as_under_pytorch(tmp_path, notebook):
    pytest.importorskip("matplotlib")
    pytest.importorskip("seaborn")
    pytest.importorskip("ipywidgets")
    folder, path = ported_notebook(tmp_path, REPO, f"docs/tutorial_notebooks/{notebook}", sub="tutorials/run")
    if notebook in CIFAR10:
        write_cifar(str(tmp_path / "tutorials" / "data"), n_per_batch=10000, n_test=10000)
    raises, shown = NOTEBOOKS[notebook]
    check_cells(folder, path, raises, shown)
