"""rasbt/stat453-deep-learning-ss21 (the lecture code, L03-L18: plain PyTorch notebooks with their
helper_*.py modules, and two scripts), ported on the fly with their imports changed only from
$GLASSGRAD_SCRIPT_SOURCES/stat453-deep-learning-ss21 (script_sources.py; without it these tests
skip). A notebook runs cell by cell (notebook_cells.py) in a ported copy of its folder with MNIST
(256 training, 64 test images) and CIFAR-10 (40 images a batch file) under ./data; its epoch count
(`NUM_EPOCHS = 100`) is set to 1, the only line changed beyond the imports.

The lecture helpers split 60000 MNIST (50000 CIFAR-10) images by fixed index ranges
(`SubsetRandomSampler(torch.arange(1000, 60000))`), so on the small copies their loaders stop at
an index out of range, under PyTorch as here; what runs before (the helpers' version check, data
sets, samplers, models, optimizers, schedulers) and the notebooks without those helpers run to
their end.

Every notebook and script here also ran under PyTorch 2.14.1 on the same files (a driver outside
the repository): the cells that raise are the ones PyTorch's run raises, with the same exception
and message start, and the lines checked are ones PyTorch's run prints alike."""
import os
import shutil
import subprocess
import sys

import pytest

from data_fixtures import write_course_data
from notebook_cells import check_cells, one_epoch, ported_notebook
from script_sources import checkout, needs, port_script
from test_ported_scripts import _env

REPO = "stat453-deep-learning-ss21"
# a helper's loader asks for an index of the full-size set
OUT_OF_RANGE = "IndexError: index"
IN_WORKER = "IndexError: Caught IndexError in DataLoader worker process 0"
NOT_DEFINED = "NameError: name"  # a cell using what a failed cell would have defined
NO_VERBOSE = "unexpected keyword argument 'verbose'"

# notebook -> ({cell: a fragment of the error it raises, as under PyTorch}, lines its printout has)
NOTEBOOKS = {
    # np.int, removed in NumPy 1.24, as under PyTorch
    "L03/code/perceptron-pytorch.ipynb": ({2: "module 'numpy' has no attribute 'int'", 3: NOT_DEFINED,
                                           4: NOT_DEFINED, 6: NOT_DEFINED, 7: NOT_DEFINED, 8: NOT_DEFINED}, []),
    "L05/code/linear-regr-gd.ipynb": ({}, []),
    "L05/code/adaline-sgd.ipynb": ({}, []),
    # the notebook's own demonstration: a hand-written class that is no Module has no .parameters()
    "L06/code/adaline-with-autograd.ipynb": ({12: "'Adaline2' object has no attribute 'parameters'"}, []),
    "L06/code/pytorch-autograd.ipynb": ({}, []),
    "L08/code/cross-entropy-pytorch.ipynb": ({}, []),
    "L08/code/softmax-regression_scratch.ipynb": ({}, ["Epoch: 001 | Train ACC:"]),
    "L08/code/softmax-regression-mnist.ipynb": ({}, ["Epoch: 001/001"]),
    # plt.plot of a [30, 1, 1] tensor of weights, refused by Matplotlib as under PyTorch
    "L08/code/logistic-regression.ipynb": ({5: "x and y can be no greater than 2D"},
                                           ["Epoch: 030 | Train ACC: 1.000 | Cost: 0.032", "Test set accuracy: 96.00%"]),
    "L09/code/mlp-pytorch_sigmoid-mse.ipynb": ({}, []),
    "L09/code/mlp-pytorch_softmax-crossentr.ipynb": ({}, []),
    "L09/code/mlp-fromscratch__sigmoid-mse.ipynb": ({}, ["Epoch: 001/001", "Test Accuracy:"]),
    "L09/code/xor-problem.ipynb": ({}, ["Epoch: 001/001 | Cost:"]),
    "L09/code/custom-dataloader/custom-dataloader-example.ipynb": ({}, ["Array Dimensions (28, 28)"]),
    "L10/code/data-augmentation.ipynb": ({}, []),
    "L10/code/dropout.ipynb": ({5: OUT_OF_RANGE, 7: OUT_OF_RANGE, 8: OUT_OF_RANGE}, []),
    "L10/code/L2-log-reg.ipynb": ({}, ["tensor([[3.1196, 3.1309]], requires_grad=True)", "Test set accuracy: 96.00%"]),
    "L11/code/batchnorm.ipynb": ({5: OUT_OF_RANGE, 7: OUT_OF_RANGE}, []),
    "L11/code/weight_kaiming.ipynb": ({5: OUT_OF_RANGE, 7: OUT_OF_RANGE}, []),
    "L11/code/weight_normal.ipynb": ({5: OUT_OF_RANGE, 7: OUT_OF_RANGE}, []),
    "L12/code/adam.ipynb": ({5: OUT_OF_RANGE, 7: OUT_OF_RANGE}, []),
    "L12/code/adamW.ipynb": ({5: OUT_OF_RANGE, 7: OUT_OF_RANGE}, []),
    "L12/code/batchsize-64.ipynb": ({5: OUT_OF_RANGE, 7: OUT_OF_RANGE}, []),
    # ReduceLROnPlateau(verbose=True): verbose= was removed from the schedulers in PyTorch 2.7
    "L12/code/scheduler.ipynb": ({5: OUT_OF_RANGE, 7: NO_VERBOSE}, []),
    "L12/code/sgd-scheduler-momentum.ipynb": ({5: OUT_OF_RANGE, 7: NO_VERBOSE}, []),
    "L13/code/1-lenet5-mnist.ipynb": ({5: OUT_OF_RANGE, 7: NO_VERBOSE}, []),
    "L13/code/save-and-load/1-lenet5-save.ipynb": ({5: OUT_OF_RANGE, 7: NO_VERBOSE, 9: NOT_DEFINED}, []),
    "L13/code/notes/cross-correlation.ipynb": ({}, []),
    "L14/2-resnet-example.ipynb": ({}, []),
    "L14/4-fc-to-conv.ipynb": ({}, []),
    # the index error raised in a loader worker, then names the failed cells left undefined
    "L16/conv-autoencoder_mnist.ipynb": ({6: IN_WORKER, 9: IN_WORKER, 10: NOT_DEFINED, 11: IN_WORKER,
                                          12: NOT_DEFINED}, []),
    "L17/1_VAE_mnist_sigmoid_mse.ipynb": ({6: IN_WORKER, 9: IN_WORKER, 10: NOT_DEFINED, 11: IN_WORKER,
                                           12: NOT_DEFINED}, []),
    "L18/optional_wgan/04_02_wgan-mnist.ipynb": ({}, []),
    "L18/optional_wgan/04_04_wgan-gp-mnist.ipynb": ({}, []),
}
SLOW = set()
# script (run in its folder) -> (arguments, the end of its error, as PyTorch 2.14.1's run ends)
STOPS = {
    # helper.py's set_deterministic() calls torch.set_deterministic, gone since PyTorch 1.9
    "L01/code/simple_cnn.py": ([], "has no attribute 'set_deterministic'"),
    "L09/code/mlp-softmax-pyscripts/train_model.py": (["--settings_path", "settings.yaml", "--results_path", "results"],
                                                      "has no attribute 'set_deterministic'"),
}


@needs(REPO)
@pytest.mark.parametrize("notebook", [pytest.param(n, marks=[pytest.mark.slow] if n in SLOW else [])
                                      for n in sorted(NOTEBOOKS)])
def test_notebooks_run_as_under_pytorch(tmp_path, notebook):
    pytest.importorskip("matplotlib")
    folder, path = ported_notebook(tmp_path, REPO, notebook, sub="run/notebook")
    parent = os.path.dirname(os.path.dirname(path))  # L18's notebooks import it (sys.path.append('../'))
    for name in os.listdir(parent):
        if name.startswith("helper") and name.endswith(".py"):
            port_script.port_file(os.path.join(parent, name), str(tmp_path / "run" / name))
    write_course_data(str(folder))
    raises, shown = NOTEBOOKS[notebook]
    check_cells(folder, path, raises, shown, changes=one_epoch(path))
    shutil.rmtree(folder / "data", ignore_errors=True)


@needs(REPO)
@pytest.mark.parametrize("script", sorted(STOPS))
def test_scripts_stop_where_pytorch_stops(tmp_path, script):
    pytest.importorskip("matplotlib")
    if "pyscripts" in script:
        pytest.importorskip("yaml")
    folder = tmp_path / "run"
    port_script.port_tree(os.path.join(checkout(REPO), os.path.dirname(script)), str(folder))
    write_course_data(str(folder))
    args, end = STOPS[script]
    proc = subprocess.run([sys.executable, os.path.basename(script), *args], cwd=folder, capture_output=True,
                          text=True, timeout=600, env=_env(MPLBACKEND="Agg"))
    assert proc.returncode != 0 and end in proc.stderr[-800:], proc.stderr[-3000:]
