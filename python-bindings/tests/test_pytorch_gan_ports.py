"""eriklindernoren/PyTorch-GAN's implementations run with their imports changed only, ported on the
fly by tools/port_script.py from $GLASSGRAD_SCRIPT_SOURCES/PyTorch-GAN (script_sources.py; without
it these tests skip) into tmp_path in the repository's layout (implementations/<name>/, data in
../../data). Each runs one epoch (`--n_epochs 1`) on data the test writes in the layout the script
reads: MNIST in torchvision's folders (the scripts pass download=True, which finds the files), or
pictures in the folders their datasets.py globs. `--sample_interval` is left larger than the run,
so each saves the sample grid of its first batch only.

Scripts that stop under PyTorch 2.14.1 stop at the same line with the same exception class here
(checked by running the originals with torch). The library paths these runs need are covered
without the checkout by the own script own_scripts/gan_variants.py (test_own_scripts.py)."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from data_fixtures import write_mnist
from notebook_cells import IMPORT
from script_sources import checkout, needs, port_script
from test_ported_scripts import _env

REPO = "PyTorch-GAN"
N_TRAIN = 128  # two batches of the scripts' default 64


def _port(tmp_path, name):
    """implementations/<name>/*.py ported into tmp_path's copy of that folder; only import lines
    change. Returns the folder, where the script runs (as the repository's README runs it)."""
    folder = os.path.join(checkout(REPO) or "", "implementations", name)
    run = tmp_path / "implementations" / name
    run.mkdir(parents=True)
    for f in os.listdir(folder):
        if f.endswith(".py"):
            changed = port_script.port_file(os.path.join(folder, f), str(run / f))
            assert changed and all(IMPORT.match(old) for _, old, _ in changed), changed
    return run


def _run(run, script, *args, timeout=900):
    return subprocess.run([sys.executable, script, "--n_epochs", "1", "--sample_interval", "100000", *args],
                          cwd=run, env=_env(MPLBACKEND="Agg"), capture_output=True, text=True, timeout=timeout)


def _mnist_run(tmp_path, name, write=None):
    """The script ported and run on MNIST (write(tmp_path, run) adds other data first); returns
    its folder and the finished process."""
    run = _port(tmp_path, name)
    write_mnist(str(tmp_path / "data" / "mnist"), n_train=N_TRAIN, n_test=16)
    if write is not None:
        write(tmp_path, run)
    return run, _run(run, f"{name}.py")


def _ok(proc, name):
    assert proc.returncode == 0, f"{name}:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    losses = [float(v) for v in re.findall(r"loss: (-?[\d.]+(?:e[+-]?\d+)?|nan|inf)", proc.stdout)]
    assert losses and all(np.isfinite(losses)), proc.stdout[-2000:]


def _grid_size(n, nrow, size):
    """save_image's grid of n size x size pictures, nrow a row, 2 pixels of padding (torchvision's)."""
    rows = (n + nrow - 1) // nrow
    return (min(n, nrow) * (size + 2) + 2, rows * (size + 2) + 2)


# name -> (the sample grids its first batch saves, their (width, height)): the MNIST scripts that
# run through an epoch as published (image sizes 28 or 32; 25 samples in rows of 5, or the
# conditional ones' 10 x 10 grid of every class)
MNIST_RUNS = {
    "gan": (["0.png"], _grid_size(25, 5, 28)),
    "wgan": (["0.png"], _grid_size(25, 5, 28)),
    "dcgan": (["0.png"], _grid_size(25, 5, 32)),
    "lsgan": (["0.png"], _grid_size(25, 5, 32)),
    "relativistic_gan": (["0.png"], _grid_size(25, 5, 32)),
    "ebgan": (["0.png"], _grid_size(25, 5, 32)),
    "sgan": (["0.png"], _grid_size(25, 5, 32)),
    "aae": (["0.png"], _grid_size(100, 10, 32)),
    "cgan": (["0.png"], _grid_size(100, 10, 32)),
    "acgan": (["0.png"], _grid_size(100, 10, 32)),
    "infogan": (["static/0.png", "varying_c1/0.png", "varying_c2/0.png"], _grid_size(100, 10, 32)),
    # gradient penalties (autograd.grad(create_graph=True)) through LeakyReLU(0.2, inplace=True)
    "wgan_gp": (["0.png"], _grid_size(25, 5, 28)),
    "wgan_div": (["0.png"], _grid_size(25, 5, 28)),
}


@needs(REPO)
@pytest.mark.parametrize("name", sorted(MNIST_RUNS))
def test_mnist_gan_trains_an_epoch_and_saves_its_first_samples(tmp_path, name):
    from PIL import Image
    run, proc = _mnist_run(tmp_path, name)
    _ok(proc, name)
    assert "[Epoch 0/1] [Batch 0/2]" in proc.stdout, proc.stdout
    grids, size = MNIST_RUNS[name]
    for grid in grids:
        assert Image.open(run / "images" / grid).size == size, grid
    assert sum(len(files) for _, _, files in os.walk(run / "images")) == len(grids)


# name -> (line, exception): where the published script stops under PyTorch 2.14.1 too
STOPS = {
    # `(d_loss_real + torch.abs(diff)).data[0]`: indexing a 0-d tensor (PyTorch 0.3's loss was 1-d)
    "began": ('began.py", line 196', "IndexError"),
    # the loop reads `mnist_loader`, which the script never defines (it names it `dataloader`)
    "bgan": ('bgan.py", line 126', "NameError: name 'mnist_loader' is not defined"),
    "dragan": ('dragan.py", line 175', "NameError: name 'mnist_loader' is not defined"),
    # pictures in their folders: names the scripts use before defining them
    "bicyclegan": ('bicyclegan.py", line 58', "NameError: name 'in_channels' is not defined"),
    "ccgan": ('ccgan.py", line 56', "NameError: name 'weights_init_normal' is not defined"),
    # g_loss.backward() after optimizer_D.step() changed the discriminator's weights the
    # generator's graph saved (d_loss.backward(retain_graph=True) kept that graph)
    "softmax_gan": ('softmax_gan.py", line 158', "one of the variables needed for gradient computation has been "
                                                 "modified by an inplace operation"),
}


@needs(REPO)
@pytest.mark.parametrize("name", sorted(STOPS))
def test_gan_stops_where_pytorch_stops(tmp_path, name):
    _, proc = _mnist_run(tmp_path, name)
    line, error = STOPS[name]
    assert proc.returncode == 1 and f"{line}, in <module>" in proc.stderr, proc.stderr[-3000:]
    assert any(error in text for text in proc.stderr.strip().splitlines()[-8:]), proc.stderr[-3000:]


def test_indexing_a_0d_loss_raises_index_error_as_pytorch():
    # began.py line 196 under both: PyTorch's IndexError ("invalid index of a 0-dim tensor")
    import glassgrad.torch as gtorch
    with pytest.raises(IndexError):
        gtorch.tensor(1.5).data[0]
    torch = pytest.importorskip("torch")
    with pytest.raises(IndexError):
        torch.tensor(1.5).data[0]


def _mnistm(tmp_path, run):
    """MNIST-M as its download leaves it before processing: raw/keras_mnistm.pkl (28 x 28 RGB
    pictures under b'train' and b'test') and an empty processed/; mnistm.py then reads MNIST's
    labels from ./data (its mnist_root) and saves processed/*.pt with torch.save."""
    import pickle
    write_mnist(str(run / "data"), n_train=N_TRAIN, n_test=16)
    folder = tmp_path / "data" / "mnistm"
    (folder / "processed").mkdir(parents=True)
    (folder / "raw").mkdir()
    rng = np.random.default_rng(3)
    with open(folder / "raw" / "keras_mnistm.pkl", "wb") as f:
        pickle.dump({b"train": rng.integers(0, 256, (N_TRAIN, 28, 28, 3), dtype=np.uint8),
                     b"test": rng.integers(0, 256, (16, 28, 28, 3), dtype=np.uint8)}, f)


@needs(REPO)
@pytest.mark.parametrize("name", ["cogan", "pixelda"])
def test_mnistm_gan_processes_its_data_and_trains_an_epoch(tmp_path, name):
    # mnistm.py saves the processed pictures with torch.save and reads them back with torch.load,
    # calling .numpy() on the tensors it gets (as torch.load gives them)
    run, proc = _mnist_run(tmp_path, name, _mnistm)
    _ok(proc, name)
    assert os.path.exists(run / "images" / "0.png")


def _pictures(folder, n, width, height, seed=0):
    """n random RGB JPEGs of width x height in folder."""
    from PIL import Image
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(seed)
    for i in range(n):
        Image.fromarray(rng.integers(0, 256, (height, width, 3), dtype=np.uint8)).save(os.path.join(folder, f"{i}.jpg"))


@needs(REPO)
def test_context_encoder_inpaints_masked_faces(tmp_path):
    # datasets.py keeps the last 4,000 files for validation and masks with its own defaults
    # (128-pixel pictures, 64-pixel masks) whatever --img_size says: 4,008 small pictures make one
    # training batch of 8 at the published sizes.
    run = _port(tmp_path, "context_encoder")
    _pictures(tmp_path / "data" / "img_align_celeba", 4008, 20, 24)
    proc = _run(run, "context_encoder.py", "--n_cpu", "0")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert re.search(r"\[Batch 0/1\] \[D loss: [\d.]+\] \[G adv: [\d.]+, pixel: [\d.]+\]", proc.stdout), proc.stdout
    assert os.listdir(run / "images") == ["0.png"]


def _domains(root, n, size):
    """train/A, train/B, test/A, test/B with n size x size pictures each (cyclegan's and unit's layout)."""
    for mode in ("train", "test"):
        for side in "AB":
            _pictures(root / mode / side, n, size, size, seed=ord(side))


def _pairs(root, n, width, height, modes=("train", "val")):
    """n pictures of each pair side by side (2 * width x height) under each mode folder."""
    for mode in modes:
        _pictures(root / mode, n, 2 * width, height)


def _celeba(root, n, size):
    """n pictures and CelebA's attribute list (list_attr_celeba.txt: a count, the attribute names,
    then a file name and +-1 per attribute a line), as stargan's dataset reads them."""
    _pictures(root, n, size, size)
    names = "5_o_Clock_Shadow Arched_Eyebrows Black_Hair Blond_Hair Brown_Hair Male Young".split()
    rng = np.random.default_rng(7)
    rows = [f"{i}.jpg " + " ".join(str(v) for v in rng.choice([-1, 1], len(names))) for i in range(n)]
    (root / "list_attr_celeba.txt").write_text("\n".join([str(n), " ".join(names)] + rows) + "\n")


# name -> (the data it reads, as a function of tmp_path/data; arguments beyond --n_epochs and
# --sample_interval, each size change named; the sample grid its first batch saves)
PICTURE_RUNS = {
    # --img_height/--img_width 32 (256 published), two pictures a domain; --decay_epoch 0: its
    # LambdaLR schedule requires decay_epoch < n_epochs
    "cyclegan": (lambda d: _domains(d / "monet2photo", 2, 40),
                 ["--n_cpu", "0", "--decay_epoch", "0", "--img_height", "32", "--img_width", "32"], "monet2photo/0.png"),
    # the same changes; its encoders and generators share a block, so Adam gets their parameters
    # chained with the shared ones twice (PyTorch warns and updates them twice a step)
    "unit": (lambda d: _domains(d / "apple2orange", 2, 40),
             ["--n_cpu", "0", "--decay_epoch", "0", "--img_height", "32", "--img_width", "32"], "apple2orange/0.png"),
    # as published (64 x 64, batch 64: four pairs make one batch)
    "discogan": (lambda d: _pairs(d / "edges2shoes", 4, 64, 64), ["--n_cpu", "0"], "edges2shoes/0.png"),
    # as published (128 x 128, batch 1); its AdaIN layers normalize with F.batch_norm over their
    # buffers repeated per sample; --decay_epoch 0 as cyclegan
    "munit": (lambda d: _pairs(d / "edges2shoes", 1, 128, 128, ("train", "test", "val")),
              ["--n_cpu", "0", "--decay_epoch", "0"], "edges2shoes/0.png"),
    # --img_height/--img_width 64 (128 published), batch 4: the dataset keeps its last 2,000
    # files for validation, so 2,008 pictures make two batches; sampling edits repeated labels
    "stargan": (lambda d: _celeba(d / "img_align_celeba", 2008, 16),
                ["--n_cpu", "0", "--decay_epoch", "0", "--batch_size", "4", "--img_height", "64", "--img_width", "64"],
                "0.png"),
}
SLOW = ("munit", "stargan")  # a minute or more each on a 2-core CPU


@needs(REPO)
@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.slow] if n in SLOW else []) for n in sorted(PICTURE_RUNS)])
def test_picture_gan_trains_an_epoch_and_saves_its_first_samples(tmp_path, name):
    write, args, grid = PICTURE_RUNS[name]
    run = _port(tmp_path, name)
    write(tmp_path / "data")
    proc = _run(run, f"{name}.py", *args)
    _ok(proc, name)
    assert "[Epoch 0/1] [Batch 0/" in proc.stdout
    assert [os.path.relpath(os.path.join(d, f), run / "images") for d, _, fs in os.walk(run / "images") for f in fs] == [grid]
    if name == "unit":
        assert "duplicate parameters" in proc.stderr


@pytest.mark.slow
@needs(REPO)
def test_pix2pix_trains_its_unet_on_paired_pictures(tmp_path):
    # its U-Net halves the picture 8 times, so the published 256 x 256 size stays; each file
    # holds the pair side by side (512 x 256); train reads train/ and test/.
    run = _port(tmp_path, "pix2pix")
    for mode in ("train", "test", "val"):
        _pictures(tmp_path / "data" / "facades" / mode, 1, 512, 256)
    proc = _run(run, "pix2pix.py", "--n_cpu", "0", "--decay_epoch", "0")
    _ok(proc, "pix2pix")
    assert "[Batch 1/2]" in proc.stdout
    assert os.listdir(run / "images" / "facades") == ["0.png"]
