"""rasbt/machine-learning-book ("Machine Learning with PyTorch and Scikit-Learn"), its PyTorch
chapters 12-18, ported on the fly with their imports changed only from
$GLASSGRAD_SCRIPT_SOURCES/machine-learning-book (script_sources.py; without it these tests skip).
A chapter's notebook runs cell by cell (notebook_cells.py) in a folder beside the repository's
python_environment_check.py, which its first cells import from '..'; where the snapshot of the
repository lacks the notebook (Git LFS: ch16, ch17 and ch18 part 1) the chapter's script, converted
from it, runs instead. MNIST is written where the chapters read it (./MNIST/raw): full size
(60000 and 10000 images) where they split it by fixed index ranges (ch13 part 2, ch14 part 1),
600 and 100 images elsewhere. Epoch counts (`num_epochs = 200`) are set to 1, the only lines
changed beyond the imports. check_packages imports the packages it checks by name (PyTorch itself,
where it is installed) and only prints their versions.

Left out: ch13 parts 3 and 4 (PyTorch Lightning, Ignite), ch15 part 2 (torchtext's IMDB), ch16
parts 2 and 3 (Hugging Face transformers), ch18 part 2 (PyTorch Geometric), ch19 (gym), none
installed here; ch14 part 2 and ch12 part 1's CelebA cells read CelebA, which torchvision accepts
only with its published files (MD5 sums), so they raise under PyTorch as here.

Every notebook and script here also ran under PyTorch 2.14.1 on the same files (a driver outside
the repository): the cells that raise are the ones PyTorch's run raises, with the same exception
and message start, and the lines checked are ones PyTorch's run prints alike. Differences:
ch12 part 2 saves a whole model whose class a notebook cell defined, which pickle refuses under
either; PyTorch's torch.save leaves a partial file that its torch.load then calls corrupted,
glassgrad's leaves none, so the next cell's load raises that the file does not exist. A cell that
moves a model to "cuda:0" raises on a machine without CUDA, as PyTorch's does, with glassgrad's
message."""
import os
import shutil
import subprocess
import sys

import pytest

from data_fixtures import write_mnist
from notebook_cells import check_cells, one_epoch
from script_sources import checkout, needs, port_script
from test_ported_scripts import _env

REPO = "machine-learning-book"
NOT_DEFINED = "NameError: name"  # a cell using what a failed cell would have defined
CELEBA = "Dataset not found or corrupted"
MLXTEND = "No module named 'mlxtend'"
NO_CUDA = "cuda:0"
FULL_MNIST = {"ch13/ch13_part2.ipynb", "ch14/ch14_part1.ipynb"}

# notebook -> ({cell: a fragment of the error it raises, as under PyTorch}, lines its printout has)
NOTEBOOKS = {
    "ch12/ch12_part1.ipynb": ({46: CELEBA, 47: NOT_DEFINED, 48: NOT_DEFINED}, []),
    "ch12/ch12_part2.ipynb": ({16: "Can't pickle <class '__main__.Model'>", 17: "iris_classifier.pt",
                               18: NOT_DEFINED}, ["Epoch 0  Loss", "Test Acc.:"]),
    # cell 5 is the book's own fragment (an indented loop body); plot_decision_regions is mlxtend's
    "ch13/ch13_part1.ipynb": ({5: "unexpected indent", 29: MLXTEND, 34: MLXTEND}, []),
    # the Auto MPG data is read from its URL, refused offline, as under PyTorch
    "ch13/ch13_part2.ipynb": ({4: "URLError", **{i: NOT_DEFINED for i in range(5, 16)}},
                              ["Epoch 0  Accuracy", "Test accuracy:"]),
    "ch14/ch14_part1.ipynb": ({26: NO_CUDA, 27: NO_CUDA, 28: NOT_DEFINED, 29: NO_CUDA}, []),
    "ch15/ch15_part1.ipynb": ({}, ["W_xh shape: glassgrad.Size([2, 5])", "RNN output      :"]),
    # a character-level LSTM on the book's 1268-0.txt, written for "cuda:0"
    "ch15/ch15_part3.ipynb": ({15: NO_CUDA, 16: NO_CUDA, 19: NO_CUDA, 21: NO_CUDA, 22: NO_CUDA},
                              ["Text encoded shape:  (1112350,)", "Probabilities: [0.10650698 0.10650698 0.78698605]"]),
    # the notebook plots the samples of epochs 1, 2, 4, 10, 50 and 100: one epoch ran
    "ch17/ch17_part2.ipynb": ({20: "list index out of range", 29: "list index out of range"},
                              ["Epoch 001 | Avg Losses >> G/D", "Epoch 001 | D Loss >>"]),
}
SLOW = set()
# the chapter scripts run where the snapshot lacks the notebook:
# script -> (its changed lines {original: replacement}, lines its printout has, the end of its error or None)
SCRIPTS = {
    "ch16/ch16-part1-self-attention.py": ({}, [], None),
    # a GAN on MNIST; as ch17 part 2, it then plots the samples of epochs 1, 2, 4, 10, 50 and 100
    "ch17/ch17_part1.py": ({"num_epochs = 100": "num_epochs = 1"}, ["Epoch 001 | Avg Losses >> G/D"],
                           "IndexError: list index out of range"),
    "ch18/ch18_part1.py": ({}, ["[[0 1 1 0]"], None),
}


def _prepare(tmp_path, chapter, mnist):
    """tmp_path/run/<chapter> (the chapter folder ported) beside the environment check, MNIST in it."""
    folder = tmp_path / "run" / chapter
    port_script.port_tree(os.path.join(checkout(REPO), chapter), str(folder))
    shutil.copy(os.path.join(checkout(REPO), "python_environment_check.py"), str(tmp_path / "run"))
    shutil.copy(os.path.join(checkout(REPO), "python_environment_check.py"), str(folder))  # the scripts import it first
    if mnist:
        n_train, n_test = mnist
        write_mnist(str(folder), n_train=n_train, n_test=n_test)
    return folder


@needs(REPO)
@pytest.mark.parametrize("notebook", [pytest.param(n, marks=[pytest.mark.slow] if n in SLOW else [])
                                      for n in sorted(NOTEBOOKS)])
def test_notebooks_run_as_under_pytorch(tmp_path, notebook):
    for module in ("matplotlib", "PIL", "pandas", "sklearn", "IPython"):
        pytest.importorskip(module)
    chapter = os.path.dirname(notebook)
    folder = _prepare(tmp_path, chapter, (60000, 10000) if notebook in FULL_MNIST else (600, 100))
    path = os.path.join(checkout(REPO), notebook)
    raises, shown = NOTEBOOKS[notebook]
    check_cells(folder, path, raises, shown, changes=one_epoch(path))
    shutil.rmtree(folder / "MNIST", ignore_errors=True)


@needs(REPO)
@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_chapter_scripts_run_to_their_end(tmp_path, script):
    pytest.importorskip("matplotlib")
    if "ch18" in script:
        pytest.importorskip("networkx")
    changes, shown, end = SCRIPTS[script]
    folder = _prepare(tmp_path, os.path.dirname(script), (600, 100) if "ch17" in script else None)
    port_script.port_file(os.path.join(checkout(REPO), script), str(folder / os.path.basename(script)), changes)
    proc = subprocess.run([sys.executable, os.path.basename(script)], cwd=folder, capture_output=True, text=True,
                          timeout=600, env=_env(MPLBACKEND="Agg"))
    if end is None:
        assert proc.returncode == 0, proc.stderr[-3000:]
    else:
        assert proc.returncode != 0 and proc.stderr.rstrip().endswith(end), proc.stderr[-3000:]
    for line in shown:
        assert line in proc.stdout, (line, proc.stdout[-2000:])
