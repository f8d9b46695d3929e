"""Zeleni9/pytorch-wgan (main.py with DCGAN, WGAN with weight clipping and WGAN with gradient
penalty, models/*.py, utils/), ported on the fly with its imports changed only from
$GLASSGRAD_SCRIPT_SOURCES/pytorch-wgan (script_sources.py; without it these tests skip). Needs
matplotlib. TensorFlow, which utils/tensorboard_logger.py logs through, is replaced by
tensorflow_summary_stand_in.py, copied beside main.py as tensorflow.py.

MNIST is read the way torchvision 0.2 kept it: data/MNIST/processed/training.pt and test.pt, each
a tuple (uint8 images, int64 labels) saved by torch.save (written here with glassgrad.save, 128
training images: two batches of the models' 64). The scripts' `download` would fetch the raw files.

As published, main.py never trains: check_args turns --is_train into a bool, and main() compares it
with the string 'True', so every run evaluates, loading the weights named by --load_G (default
'False', a missing file under PyTorch 2.14.1 too). The training tests change that one line
(TRAIN below). The models' sizes are the repository's; one generator iteration of WGAN saves 64
of 800 samples as an 8 x 8 grid, logs five scalars and two image summaries."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from data_fixtures import write_mnist
from notebook_cells import port_imports_only
from script_sources import needs, port_script, source
from test_ported_scripts import _env

REPO = "pytorch-wgan"
HERE = os.path.dirname(os.path.abspath(__file__))
TRAIN = {"    if args.is_train == 'True':": "    if args.is_train:"}
MNIST = ["--dataroot", "data/MNIST", "--dataset", "mnist"]
WEIGHTS = ["--load_D", "discriminator.pkl", "--load_G", "generator.pkl"]


def _ported(tmp_path, changes=None):
    folder = tmp_path / "run"
    port_imports_only(REPO, folder)
    if changes:
        port_script.port_file(source(REPO, "main.py"), str(folder / "main.py"), changes)
    shutil.copy(os.path.join(HERE, "tensorflow_summary_stand_in.py"), folder / "tensorflow.py")
    import glassgrad
    arrays = write_mnist(str(folder / "data"), n_train=128, n_test=16)
    processed = folder / "data" / "MNIST" / "processed"
    processed.mkdir()
    for split, name in (("train", "training.pt"), ("t10k", "test.pt")):
        images, labels = arrays[split]
        glassgrad.save((glassgrad.from_numpy(images), glassgrad.from_numpy(labels.astype(np.int64))), processed / name)
    return folder


def _run(folder, *args, ok=True):
    proc = subprocess.run([sys.executable, "main.py", *args], cwd=folder, env=_env(), capture_output=True, text=True,
                          timeout=1800)
    assert (proc.returncode == 0) == ok, proc.stdout[-2000:] + proc.stderr[-4000:]
    return proc


def _state(path):
    import glassgrad
    return {k: tuple(v.shape) for k, v in glassgrad.load(path).items()}


@needs(REPO)
def test_published_main_evaluates_and_stops_at_the_missing_weights(tmp_path):
    folder = _ported(tmp_path)
    proc = _run(folder, "--model", "WGAN-GP", *MNIST, ok=False)
    assert "WGAN_GradientPenalty init model." in proc.stdout
    # PyTorch's FileNotFoundError; glassgrad.load's error is one too
    assert "No such file or directory: " in proc.stderr and "/False" in proc.stderr, proc.stderr[-2000:]


@needs(REPO)
def test_dcgan_trains_an_epoch(tmp_path):
    folder = _ported(tmp_path, TRAIN)
    proc = _run(folder, "--model", "DCGAN", *MNIST, "--epochs", "1")
    assert "DCGAN model initalization." in proc.stdout and "Time of training-" in proc.stdout
    generator, discriminator = _state(folder / "generator.pkl"), _state(folder / "discriminator.pkl")
    assert generator["main_module.0.weight"] == (100, 1024, 4, 4)
    assert discriminator["output.0.weight"] == (1, 1024, 4, 4)


def _grid(n, nrow, size=32, padding=2):
    rows = (n + nrow - 1) // nrow
    return (min(n, nrow) * (size + padding) + padding, rows * (size + padding) + padding)


@needs(REPO)
@pytest.mark.parametrize("model", ["WGAN-CP", "WGAN-GP"])
def test_wgan_trains_a_generator_iteration_and_logs(tmp_path, model):
    from PIL import Image
    folder = _ported(tmp_path, TRAIN)
    proc = _run(folder, "--model", model, *MNIST, "--generator_iters", "1")
    # five critic iterations (weights clipped with p.data.clamp_, or a gradient penalty through
    # autograd.grad(create_graph=True)), then the generator's
    for d_iter in range(5):
        assert f"Discriminator iteration: {d_iter}/5, loss_fake: " in proc.stdout, proc.stdout[-2000:]
    assert "Generator iteration: 0/1, g_loss: " in proc.stdout
    assert Image.open(folder / "training_result_images" / "img_generatori_iter_000.png").size == _grid(64, 8)
    with open(folder / "logs" / "summaries.json") as f:
        logged = json.load(f)
    scalars = [r["tag"] for r in logged if r["kind"] == "scalar"]
    assert scalars == ["Wasserstein distance", "Loss D", "Loss G", "Loss D Real", "Loss D Fake"], logged
    images = [(r["tag"], r["shape"], r["dtype"]) for r in logged if r["kind"] == "image"]
    assert images == [("real_images", [10, 32, 32, 1], "uint8"), ("generated_images", [10, 32, 32, 1], "uint8")]
    if model == "WGAN-GP":
        # the evaluation main.py runs with --is_train False: 64 samples, then 50 latent walks of
        # 10 steps, each a row of 10 pictures (z_intp.data set in place each step)
        proc = _run(folder, "--model", model, "--is_train", "False", *MNIST, *WEIGHTS)
        assert proc.stdout.count("Saved interpolated images.") == 50
        assert Image.open(folder / "dgan_model_image.png").size == _grid(64, 8)
        walks = sorted(os.listdir(folder / "interpolated_images"))
        assert len(walks) == 50 and Image.open(folder / "interpolated_images" / walks[0]).size == _grid(10, 10)
