"""mrdbourke/pytorch-deep-learning's notebooks 00-04 and its going_modular scripts, ported on the
fly with their imports changed only from $GLASSGRAD_SCRIPT_SOURCES/mrdbourke-pytorch-deep-learning
(script_sources.py; without it these tests skip) and run cell by cell (notebook_cells.py) on data
written here where the notebooks would download it: scikit-learn's make_circles (02), FashionMNIST
in torchvision's layout (03), a pizza_steak_sushi folder of JPEGs and the custom picture (04, 05),
helper_functions.py ported from the checkout beside the notebook (the notebooks download it).

The cells that raise are the ones PyTorch 2.14's run of the original raises: a notebook's own
demonstration of an error, or a package the course installs with pip that these runs leave out
(torchmetrics, mlxtend, torchinfo). docs/porting.md, "Running real scripts", lists them."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from data_fixtures import write_fashion_mnist
from notebook_cells import IMPORT, assert_raised, run_cells
from script_sources import checkout, needs, port_script
from test_ported_scripts import _env

REPO = "mrdbourke-pytorch-deep-learning"
LEFT_OUT = ("torchmetrics", "mlxtend", "torchinfo")  # pip installs of the course, not glassgrad's


def _notebook(name):
    return os.path.join(checkout(REPO) or "", name)


def _helper_functions(folder):
    port_script.port_file(_notebook("helper_functions.py"), str(folder / "helper_functions.py"))


def _food_pictures(data, seed=0):
    """data/pizza_steak_sushi/{train,test}/<class>/*.jpg of a few sizes, and data/04-pizza-dad.jpeg."""
    image = pytest.importorskip("PIL.Image")
    rng = np.random.default_rng(seed)
    for split, n in (("train", 8), ("test", 3)):
        for cls in ("pizza", "steak", "sushi"):
            folder = os.path.join(data, "pizza_steak_sushi", split, cls)
            os.makedirs(folder, exist_ok=True)
            for i in range(n):
                h, w = rng.integers(70, 120, 2)
                image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8)).save(os.path.join(folder, f"{i}.jpg"))
    image.fromarray(rng.integers(0, 256, (90, 110, 3), dtype=np.uint8)).save(os.path.join(data, "04-pizza-dad.jpeg"))


def _run(folder, name, raises):
    """Runs the notebook; the cells that raised and a fragment of each one's error are `raises`."""
    pytest.importorskip("matplotlib")
    pytest.importorskip("requests")  # imported by the cells that download (the files are here already)
    raised, out, err = run_cells(str(folder), _notebook(name), hide=LEFT_OUT)
    assert_raised(raised, raises, out, err)
    return out


@needs(REPO)
def test_00_fundamentals_raises_where_pytorch_does(tmp_path):
    # cell 36: torch.matmul of two [3, 2] tensors, the notebook's example of a shape error
    out = _run(tmp_path, "00_pytorch_fundamentals.ipynb", {36: "inner sizes differ"})
    for shown in ("Out[44]: (tensor(90), tensor(0), tensor(45.), tensor(450))",  # max, min, mean, sum
                  "Out[48]: tensor([10, 20, 30, 40, 50, 60, 70, 80, 90], dtype=glassgrad.int8)",
                  "Out[68]: tensor([[True, True, True, True],"):  # reseeded by torch.random.manual_seed
        assert shown in out, out[-3000:]


@needs(REPO)
def test_01_workflow_trains_saves_and_loads(tmp_path):
    out = _run(tmp_path, "01_pytorch_workflow.ipynb", {})
    losses = [float(v) for v in re.findall(r"Epoch: \d+ \| Train loss: ([\d.e-]+)", out)]
    assert len(losses) == 10 and losses[-1] < 0.1 * losses[0], out[-2000:]
    assert (tmp_path / "models" / "01_pytorch_workflow_model_1.pth").is_file()


@needs(REPO)
def test_02_classification_on_make_circles(tmp_path):
    pytest.importorskip("sklearn")
    pytest.importorskip("pandas")
    _helper_functions(tmp_path)
    out = _run(tmp_path, "02_pytorch_classification.ipynb", {59: "torchmetrics"})
    accuracy = [float(v) for v in re.findall(r"Epoch: 90 \| Loss: [\d.]+, Acc: ([\d.]+)%", out)]
    assert accuracy and accuracy[-1] > 90, out[-2000:]  # the blobs model, 4 separable classes


@needs(REPO)
def test_03_computer_vision_on_fashion_mnist_files(tmp_path):
    pytest.importorskip("tqdm")
    _helper_functions(tmp_path)
    write_fashion_mnist(str(tmp_path / "data"))
    out = _run(tmp_path, "03_pytorch_computer_vision.ipynb",
               {53: "torchmetrics", 54: "mlxtend", 55: "torchmetrics"})  # the confusion matrix cells
    # model_0 (linear) learns the bands in 3 epochs as under PyTorch (100% on this data); the
    # CNN's loss falls slowly at its 30 steps (so under PyTorch too)
    linear = [float(v) for v in re.findall(r"Test acc: ([\d.]+)%", out)]
    assert len(linear) == 3 and linear[-1] > 90, out[-3000:]
    losses = [float(v) for v in re.findall(r"Train loss: ([\d.]+) \| Train accuracy", out)]
    assert len(losses) == 6 and losses[2] < losses[0] and losses[5] < losses[3], out[-3000:]


@needs(REPO)
def test_04_custom_datasets_on_an_image_folder(tmp_path):
    _food_pictures(str(tmp_path / "data"))
    # 42: torchinfo.summary; 60: the uint8 picture fed to the model; 64, 65: the picture without
    # its batch axis (the notebook's demonstrations of the three errors it names)
    out = _run(tmp_path, "04_pytorch_custom_datasets.ipynb",
               {42: "torchinfo", 60: "uint8", 64: "Linear", 65: "Linear"})
    assert "Custom image shape: glassgrad.Size([3, 90, 110])" in out


@needs(REPO)
def test_05_going_modular_cell_mode_notebook(tmp_path):
    pytest.importorskip("tqdm")
    _food_pictures(str(tmp_path / "data"))
    # cell 0 downloads the pictures whether or not they are there (its download is not under its
    # `if`), which fails at the closed proxy of notebook_cells.OFFLINE, after setting the folders' paths
    out = _run(tmp_path, "going_modular/05_pytorch_going_modular_cell_mode.ipynb", {0: "ProxyError"})
    assert len(re.findall(r"Epoch: \d+ \| train_loss: [\d.]+", out)) == 5, out[-2000:]
    assert (tmp_path / "models" / "05_going_modular_cell_mode_tinyvgg_model.pth").is_file()


# the model train.py saved, loaded into the script's TinyVGG and scored by predictions.py
PREDICT = """import glassgrad.torch as torch
import model_builder, predictions
model = model_builder.TinyVGG(input_shape=3, hidden_units=10, output_shape=3)
model.load_state_dict(torch.load("models/05_going_modular_script_mode_tinyvgg_model.pth"))
predictions.pred_and_plot_image(model, ["pizza", "steak", "sushi"], "data/04-pizza-dad.jpeg", image_size=(64, 64))
print("predicted")
"""


@needs(REPO)
def test_05_going_modular_scripts_train_save_and_predict(tmp_path):
    pytest.importorskip("tqdm")
    pytest.importorskip("matplotlib")
    changed = port_script.port_tree(os.path.join(checkout(REPO) or "", "going_modular", "going_modular"), str(tmp_path))
    assert all(IMPORT.match(old) for lines in changed.values() for _, old, _ in lines), changed
    _food_pictures(str(tmp_path / "data"))
    out = _ok(tmp_path, "train.py")
    assert len(re.findall(r"Epoch: \d+ \| train_loss: [\d.]+", out)) == 5, out
    (tmp_path / "predict.py").write_text(PREDICT, encoding="utf-8")
    assert "predicted" in _ok(tmp_path, "predict.py")


def _ok(folder, script):
    proc = subprocess.run([sys.executable, script], cwd=folder, env=_env(MPLBACKEND="Agg"), capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, f"{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout
