"""rasbt/deeplearning-models (pytorch_ipynb/: autoencoders, CNNs, GANs, graph networks, MLPs and
the "mechanics" notebooks), ported on the fly with their imports changed only from
$GLASSGRAD_SCRIPT_SOURCES/deeplearning-models (script_sources.py; without it these tests skip) and
run cell by cell (notebook_cells.py) in a folder holding what they read: MNIST (256 training, 64
test images) and CIFAR-10 (40 images a batch file) under ./data, the notebook's own data files,
and the repository's helper_*.py modules, ported. Each notebook's epoch count (`num_epochs = 10`,
`NUM_EPOCHS = 100`) is set to 1, the only line changed beyond the imports.

Every notebook here also ran under PyTorch 2.14.1 on the same files (a driver outside the
repository): the cells that raise are the ones PyTorch's run raises, and the lines checked are
ones PyTorch's run prints alike (with `glassgrad.` for `torch.` in dtype and Size names)."""
import os
import shutil

import pytest

from data_fixtures import write_course_data
from notebook_cells import assert_raised, one_epoch, run_cells
from script_sources import checkout, needs, port_script

REPO = "deeplearning-models"
ROOT = "pytorch_ipynb"

IN_WORKER = "IndexError: Caught IndexError in DataLoader worker process 0"
NOT_DEFINED = "NameError: name"  # a cell using what a failed cell would have defined
SHAPES = "x and y must have same first dimension"  # Matplotlib, plotting the empty results
# packages the notebooks import that the test leaves out (not glassgrad's), so they raise alike
LEFT_OUT = ("torchsummary", "tensorflow")


def _batch(n):
    return [f"Image batch dimensions: glassgrad.Size([{n}, 1, 28, 28])", f"Image label dimensions: glassgrad.Size([{n}])"]


# notebook -> ({cell: a fragment of the error it raises, as under PyTorch}, lines its printout has)
NOTEBOOKS = {
    "autoencoder/ae-basic.ipynb": ({}, [*_batch(256)]),
    # written for the 60000 images: view(60000, 784), arrays of 1000 rows (NumPy refuses the rest)
    "autoencoder/ae-basic-with-rf.ipynb": ({8: "cannot reshape [256, 1, 28, 28] (200704 elements)", 9: NOT_DEFINED,
                                            10: NOT_DEFINED, 11: NOT_DEFINED, 13: "could not broadcast input array",
                                            14: "could not broadcast input array"},
                                           [*_batch(256), "Image batch dimensions: glassgrad.Size([15, 1, 28, 28])"]),
    "autoencoder/ae-cnn-cvae.ipynb": ({}, [*_batch(128), "Class Label 0"]),
    "autoencoder/ae-conv-nneighbor.ipynb": ({}, [*_batch(128)]),
    "autoencoder/ae-conv-var.ipynb": ({}, [*_batch(128)]),
    "autoencoder/ae-cvae.ipynb": ({}, [*_batch(128), "Class Label 0"]),
    "autoencoder/ae-deconv.ipynb": ({}, [*_batch(128)]),
    "autoencoder/ae-deconv-jaccard.ipynb": ({}, [*_batch(128)]),
    "autoencoder/ae-deconv-nopool.ipynb": ({}, [*_batch(128)]),
    "autoencoder/ae-var.ipynb": ({}, [*_batch(128)]),
    # zero-initialized weights: the first cost is log(10) on any machine
    "basic-ml/softmax-regression.ipynb": ({}, [*_batch(256), "Epoch: 001/001 | Batch 000/001 | Cost: 2.3026"]),
    "cnn/cnn-allconv.ipynb": ({}, [*_batch(256)]),
    "cnn/cnn-basic.ipynb": ({}, [*_batch(128), "Test accuracy:"]),
    "cnn/cnn-he-init.ipynb": ({}, [*_batch(128), "Test accuracy:"]),
    "cnn/cnn-standardized.ipynb": ({}, ["Mean: tensor([0.4985])", "Std Dev: tensor([0.2900])", *_batch(128)]),
    "cnn/resnet-ex-1.ipynb": ({}, [*_batch(128), "Test accuracy:"]),
    "cnn/fc-to-conv.ipynb": ({}, ["glassgrad.Size([2, 1, 2, 2])", "         [[19.0000]]]], grad_fn=<ReluBackward0>)"]),
    # plt.plot of a list of losses that require grad, refused as under PyTorch
    "gan/gan.ipynb": ({7: "Can't call numpy() on Tensor that requires grad"}, [*_batch(128)]),
    "gan/gan-conv.ipynb": ({12: "torchsummary"}, [*_batch(128), "GAN("]),
    "gan/wgan-1.ipynb": ({}, [*_batch(128)]),
    "gan/dc-wgan-1.ipynb": ({12: "torchsummary"}, [*_batch(128), "GAN("]),
    # the graph notebooks split the 60000 images by fixed index ranges: the loader stops in a worker
    "gnn/gnn-basic-1.ipynb": ({4: IN_WORKER, 9: IN_WORKER, 10: "a cannot be empty", 11: SHAPES, 12: IN_WORKER}, []),
    "gnn/gnn-basic-edge-1.ipynb": ({4: IN_WORKER, 7: IN_WORKER, 8: "'GraphNet' object has no attribute 'A'",
                                    9: "a cannot be empty", 10: SHAPES, 11: IN_WORKER}, []),
    "gnn/gnn-basic-graph-spectral-1.ipynb": ({4: IN_WORKER, 10: IN_WORKER, 11: "a cannot be empty", 12: SHAPES,
                                              13: IN_WORKER}, []),
    "mechanics/cnn-weight-sharing.ipynb": ({}, [*_batch(128)]),
    "mechanics/dataloader-nesting.ipynb": ({}, ["main loop: 1", "nested loop: 1", "nested loop: 2"]),
    "mechanics/manual-gradients.ipynb": ({1: "tensorflow"},
                                         ["d_a_x: (tensor([2.]),)", "d_a_w: (tensor([3.]),)", "d_a_b: (tensor([1.]),)"]),
    "mechanics/mlp-sequential.ipynb": ({}, [*_batch(64), "  (0): Linear(in_features=784, out_features=128, bias=True)"]),
    "mechanics/validation-splits.ipynb": ({6: IN_WORKER, 7: IN_WORKER, 8: IN_WORKER, 11: IN_WORKER, 12: IN_WORKER,
                                           13: IN_WORKER}, [*_batch(64)]),
    "mlp/mlp-basic.ipynb": ({}, [*_batch(64), "Epoch: 001/001 training accuracy:", "Test accuracy:"]),
    "mlp/mlp-batchnorm.ipynb": ({}, [*_batch(64), "Test accuracy:"]),
    "mlp/mlp-dropout.ipynb": ({}, [*_batch(64), "Test accuracy:"]),
    "mlp/mlp-fromscratch__sigmoid-mse.ipynb": ({}, [*_batch(100), "Training Accuracy:"]),
    "tricks/gradclipping_mlp.ipynb": ({}, [*_batch(64), "Test accuracy:"]),
}
SLOW = set()


def _prepare(folder, notebook):
    """The data, the notebook folder's files and the repository's helpers, ported, in folder."""
    here = os.path.join(checkout(REPO) or "", ROOT)
    for name in os.listdir(here):
        if name.startswith("helper") and name.endswith(".py"):
            port_script.port_file(os.path.join(here, name), os.path.join(folder, name))
    port_script.port_tree(os.path.dirname(os.path.join(here, notebook)), folder)
    # ../data/perceptron_toydata.txt and the like, read from the notebook's folder
    shutil.copytree(os.path.join(here, "data"), os.path.join(os.path.dirname(folder), "data"), dirs_exist_ok=True)
    for name in os.listdir(folder):
        if name.endswith(".ipynb"):
            os.remove(os.path.join(folder, name))
    write_course_data(folder)


@needs(REPO)
@pytest.mark.parametrize("notebook", [pytest.param(n, marks=[pytest.mark.slow] if n in SLOW else [])
                                      for n in sorted(NOTEBOOKS)])
def test_notebooks_run_as_under_pytorch(tmp_path, notebook):
    pytest.importorskip("matplotlib")
    folder = tmp_path / "run"
    folder.mkdir()
    _prepare(str(folder), notebook)
    path = os.path.join(checkout(REPO), ROOT, notebook)
    raises, shown = NOTEBOOKS[notebook]
    raised, out, err = run_cells(str(folder), path, hide=LEFT_OUT, changes=one_epoch(path))
    assert_raised(raised, raises, out, err)
    for line in shown:
        assert line in out, (line, out[-3000:])
    shutil.rmtree(folder / "data", ignore_errors=True)
