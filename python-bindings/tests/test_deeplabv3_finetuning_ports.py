"""msminhas93/DeepLabv3FineTuning (main.py with model.py, datahandler.py, segdataset.py and
trainer.py: torchvision's deeplabv3_resnet101 with its head replaced by DeepLabHead(2048, 1),
trained with MSELoss and Adam on images and masks read from two folders, F1 and ROC AUC from
scikit-learn each phase, log.csv written, the whole model saved with torch.save; Tests/: the data
set's unit tests), ported on the fly with their imports changed from
$GLASSGRAD_SCRIPT_SOURCES/DeepLabv3FineTuning (script_sources.py; without it these tests skip).
Needs click, scikit-learn and tqdm.

One documented substitution: model.py builds the network with `pretrained=True`, a download of
COCO-trained weights; the port builds it with `pretrained=False` (glassgrad bundles no weights and
downloads nothing), the network torchvision builds before loading them.

The data set is written small in the repository's layout (Images/NNN.jpg, Masks/NNN_label.PNG):
five 32 x 32 pictures with a bright square and its mask, so the 80/20 split gives two training
batches of 2 (a batch of 1 would stop at the BatchNorm of ASPP's pooling branch, in PyTorch too)
and one test batch; main.py runs one epoch through its own arguments."""
import csv
import os
import subprocess
import sys

import numpy as np
import pytest

from script_sources import checkout, needs, port_script
from test_ported_scripts import _env

REPO = "DeepLabv3FineTuning"
CHANGED = {"model.py": {"    model = models.segmentation.deeplabv3_resnet101(pretrained=True,":
                        "    model = models.segmentation.deeplabv3_resnet101(pretrained=False,"}}


def _data(folder, n=5, side=32):
    from PIL import Image
    rng = np.random.default_rng(0)
    os.makedirs(folder / "Images")
    os.makedirs(folder / "Masks")
    for i in range(n):
        mask = np.zeros((side, side), np.uint8)
        r, c = rng.integers(0, side // 2, 2)
        mask[r:r + side // 3, c:c + side // 3] = 255
        picture = (rng.integers(0, 80, (side, side, 3)) + (mask[..., None] > 0) * 150).astype(np.uint8)
        Image.fromarray(picture).save(folder / "Images" / f"{i:03d}.jpg")
        Image.fromarray(mask).save(folder / "Masks" / f"{i:03d}_label.PNG")


def _ported(tmp_path):
    for module in ("click", "sklearn", "tqdm"):
        pytest.importorskip(module)
    folder = tmp_path / REPO
    report = port_script.port_tree(checkout(REPO), str(folder))
    for rel, changes in CHANGED.items():
        report[rel] = port_script.port_file(os.path.join(checkout(REPO), rel), str(folder / rel), changes)
    assert sorted(report) == ["Tests/test_segmentation_dataset.py", "datahandler.py", "main.py", "model.py",
                              "segdataset.py", "trainer.py"]
    return folder


def _run(folder, *args):
    proc = subprocess.run([sys.executable, *args], cwd=folder, env=_env(), capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-4000:]
    return proc


@needs(REPO)
def test_main_fine_tunes_deeplabv3_logs_and_saves(tmp_path):
    import glassgrad as gg
    folder = _ported(tmp_path)
    _data(folder / "data")
    proc = _run(folder, "main.py", "--data-directory", "data", "--exp_directory", "exp", "--epochs", "1",
                "--batch-size", "2")
    assert "Train Loss:" in proc.stdout and "Test Loss:" in proc.stdout and "Lowest Loss:" in proc.stdout
    with open(folder / "exp" / "log.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 1 and rows[0]["epoch"] == "1"
    for field in ("Train_loss", "Test_loss"):
        assert 0 < float(rows[0][field]) < 1  # MSE of sigmoid-free outputs against masks in [0, 1]
    for field in ("Train_f1_score", "Train_auroc", "Test_f1_score", "Test_auroc"):
        assert 0 <= float(rows[0][field]) <= 1
    # torch.save(model, ...): the whole model, read back and run
    model = gg.load(str(folder / "exp" / "weights.pt"), weights_only=False).eval()
    assert type(model).__name__ == "DeepLabV3" and model.classifier[-1].out_channels == 1
    with gg.no_grad():
        assert tuple(model(gg.rand(1, 3, 24, 40))["out"].shape) == (1, 1, 24, 40)


@needs(REPO)
def test_its_data_set_tests_pass(tmp_path):
    # Tests/test_segmentation_dataset.py reads the repository's CrackForest pictures (320 x 480)
    folder = _ported(tmp_path)
    proc = _run(folder, "-m", "pytest", "-q", "-p", "no:cacheprovider", "Tests/test_segmentation_dataset.py")
    assert " passed" in proc.stdout and "failed" not in proc.stdout, proc.stdout[-2000:]
