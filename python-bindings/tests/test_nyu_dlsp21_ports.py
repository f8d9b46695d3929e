"""Atcold/NYU-DLSP21 (the spring 2021 deep learning course's notebooks: spiral classification,
autoencoders, the VAE and optimal control by gradient descent), ported on the fly with their imports
changed only from $GLASSGRAD_SCRIPT_SOURCES/nyu-dlsp21 (script_sources.py; without it these tests
skip). A notebook runs cell by cell (notebook_cells.py) in a folder with the repository's res/
(ported) and MNIST (256 training, 64 test images) under ./data; the autoencoder's epoch count
(`num_epochs = 20`) is set to 1, the only line changed beyond the imports.

Every notebook here also ran under PyTorch 2.14.1 on the same files (a driver outside the
repository): the cells that raise are the ones PyTorch's run raises: OpenCV (hidden) for the
inpainting comparison, Matplotlib 3.10's refusals of the notebooks' LaTeX preamble list and of
`stem(use_line_collection=)`, LaTeX not installed, and the VAE's cell 13 asking for image 9 of
a 2-image batch (a full-size test batch would have it)."""
import os

import pytest

from data_fixtures import write_mnist
from notebook_cells import assert_raised, one_epoch, run_cells
from script_sources import checkout, needs, port_script

REPO = "nyu-dlsp21"
NO_LATEX = "latex could not be found"

# notebook -> ({cell: a fragment of the error it raises, as under PyTorch}, lines its printout has)
NOTEBOOKS = {
    "04-spiral_classification.ipynb": ({}, ["[EPOCH]: 999, [LOSS]:"]),
    "10-autoencoder.ipynb": ({13: "ModuleNotFoundError", 14: "name 'inpaint' is not defined",
                              15: "name 'TELEA' is not defined"}, ["epoch [1/1], loss:"]),
    "11-VAE.ipynb": ({13: "index 9 is out of bounds for dimension 0 with size 2"}, ["====> Test set loss:"]),
    "17-optimal_control.ipynb": ({1: "Key text.latex.preamble", 4: "use_line_collection", 8: NO_LATEX, 9: NO_LATEX,
                                  10: NO_LATEX, 11: NO_LATEX}, []),
}


@needs(REPO)
@pytest.mark.parametrize("notebook", sorted(NOTEBOOKS))
def test_notebooks_run_as_under_pytorch(tmp_path, notebook):
    pytest.importorskip("matplotlib")
    folder = tmp_path / "run"
    port_script.port_tree(os.path.join(checkout(REPO), "res"), str(folder / "res"))
    write_mnist(str(folder / "data"), n_train=256, n_test=64)
    path = os.path.join(checkout(REPO), notebook)
    raises, shown = NOTEBOOKS[notebook]
    raised, out, err = run_cells(str(folder), path, hide=("cv2",), changes=one_epoch(path))
    assert_raised(raised, raises, out, err)
    for line in shown:
        assert line in out, (line, out[-3000:])
