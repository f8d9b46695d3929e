"""dataflowr/notebooks (Marc Lelarge's deep learning course, Module*/ notebooks in plain PyTorch)
run cell by cell (notebook_cells.py) with their imports changed only, from
$GLASSGRAD_SCRIPT_SOURCES/dataflowr-notebooks (script_sources.py; without it these tests skip).

MNIST (256 training, 64 test images) and CIFAR-10 (40 images a batch file) are written where the
notebooks look with `download=True` (./data, ./data/MNIST, ./content/data, ~/data/MNIST with
HOME set to the test's folder). `CHANGES` are the only other lines changed: epochs written into a
notebook, and data folders set to a machine of the course's (`/home/docker_user/`).

The cells that raise are the ones PyTorch 2.14.1's run of the same cells, on the same files,
raises (checked by running both outside the tests); each entry gives a fragment of glassgrad's
message. Notebooks raise on purpose (an optimizer of a model without parameters, a second
backward through a freed graph) and where the course leaves a cell for the student to fill."""
import os

import pytest

from data_fixtures import write_cifar, write_mnist
from notebook_cells import assert_raised, run_cells
from script_sources import needs, source

REPO = "dataflowr-notebooks"
NO_GPU = "cannot be used"  # glassgrad's DeviceError on a machine without a usable GPU
SECOND_BACKWARD = "Trying to backward through the graph a second time"

# notebook -> {cell: a fragment of the error it raises, as under PyTorch}
RAISES = {
    # PyTorch's run also raises in cells 38-43: torchvision's CIFAR10 checks the files' MD5 sums
    # against the real data set's, so on the test's small files it downloads (URLError offline)
    # and the cells that show the images have none; glassgrad reads the files it finds
    "Module2/02a_basics.ipynb": {35: NO_GPU, 48: "dtype can require gradients", 61: SECOND_BACKWARD},
    "Module2/02b_linear_reg.ipynb": {},
    "Module9/Normalizing_flows_sol.ipynb": {},
    "Module11/11_Tutorial_packing_sequences.ipynb": {},
    "Module15/15a_dropout_intro.ipynb": {9: "Adam got an empty parameter list", 10: "name 'loss_fn' is not defined"},
    "Module15/15b_dropout_mnist.ipynb": {
        6: "Adam got an empty parameter list", 8: "name 'scheduler_simple' is not defined",
        9: "name 'scheduler_dropout' is not defined", 10: "x and y must have same first dimension"},
    "Module16/16_batchnorm_simple.ipynb": {},
    "Module16/16_simple_batchnorm_eval.ipynb": {},
    "Module10/10_GAN_double_moon.ipynb": {12: SECOND_BACKWARD},
    "Module9/sol/09_AE_NoisyAE_sol.ipynb": {},
}

# notebook -> {line: replacement}: fewer epochs, and local data folders
CHANGES = {
    "Module9/Normalizing_flows_sol.ipynb": {"for t in range(5001):    ": "for t in range(51):    "},
    "Module10/10_GAN_double_moon.ipynb": {"nb_epochs = 500": "nb_epochs = 5", "nb_epochs = 1000": "nb_epochs = 5"},
    "Module16/16_batchnorm_simple.ipynb": {"        self.num_epochs = 12": "        self.num_epochs = 1",
                                           "args.num_epochs = 10": "args.num_epochs = 1"},
    "Module15/15b_dropout_mnist.ipynb": {"        self.num_epochs = 20": "        self.num_epochs = 2",
                                         "        self.data_dir = '/home/docker_user/'": "        self.data_dir = '.'"},
    "Module9/sol/09_AE_NoisyAE_sol.ipynb": {
        f"{call}(model, loss_fn{sep}data_loader=train_loader{sep}epochs=10{sep}optimizer=optimizer{tail})":
        f"{call}(model, loss_fn{sep}data_loader=train_loader{sep}epochs=1{sep}optimizer=optimizer{tail})"
        for call, sep, tail in (("train_model", ", ", ""), ("train_model", ",", ""), ("train_model_conv", ",", ""),
                                ("train_model_up", ",", ""), ("train_denoiser", ",", ", noise=0.8"))},
}
# over ~30 s on a loaded 2-core CPU
SLOW = {"Module10/10_GAN_double_moon.ipynb", "Module16/16_batchnorm_simple.ipynb", "Module15/15b_dropout_mnist.ipynb",
        "Module9/sol/09_AE_NoisyAE_sol.ipynb"}


def _data(folder):
    for root in ("data", "data/MNIST", ".", "content/data", "home/data/MNIST"):
        write_mnist(os.path.join(folder, root), n_train=256, n_test=64)
        write_cifar(os.path.join(folder, root), n_per_batch=40, n_test=40)


@needs(REPO)
@pytest.mark.parametrize("notebook", [pytest.param(n, marks=[pytest.mark.slow] if n in SLOW else [])
                                      for n in sorted(RAISES)])
def test_notebooks_raise_where_pytorch_raises(tmp_path, notebook):
    for module in ("matplotlib", "sklearn", "IPython"):
        pytest.importorskip(module)
    _data(str(tmp_path))
    raised, out, err = run_cells(str(tmp_path), source(REPO, notebook), changes=CHANGES.get(notebook),
                                 env={"HOME": str(tmp_path / "home")})
    assert_raised(raised, RAISES[notebook], out, err)
    assert "nan" not in out.lower().split(), out[-2000:]
