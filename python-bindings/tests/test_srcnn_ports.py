"""yjn870/SRCNN-pytorch (prepare.py: image patches into HDF5; train.py: SRCNN, three convolutions,
trained with Adam's per-layer learning rates, evaluated by PSNR each epoch, the best weights kept
by copy.deepcopy of the state_dict; test.py: the model loaded by copy_ into its state_dict, a
picture upscaled), ported on the fly with their imports changed only from
$GLASSGRAD_SCRIPT_SOURCES/SRCNN-pytorch (script_sources.py; without it these tests skip). No line
of the scripts is changed; needs h5py.

The pictures are random RGB bitmaps written here, small: prepare.py cuts 33 x 33 patches of their
luma, 12 in all, so that one batch of 12 is an epoch and the loss does not depend on the order the
loader shuffles them in. With PyTorch's initial weights loaded (the comparison run saves them), the
PSNRs train.py and test.py print are PyTorch's."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from notebook_cells import port_imports_only
from script_sources import checkout, needs, port_script, source
from test_ported_scripts import _env

REPO = "SRCNN-pytorch"
TRAIN = ["--train-file", "train.h5", "--eval-file", "eval.h5", "--outputs-dir", "out", "--num-epochs", "3",
         "--num-workers", "0", "--batch-size", "12"]
# the comparison: PyTorch's run saves its initial weights, ours loads them
SAVE = ("    model = SRCNN().to(device)",
        "    model = SRCNN().to(device); torch.save(model.state_dict(), 'init.pth')")
LOAD = ("    model = SRCNN().to(device)",
        "    model = SRCNN().to(device); model.load_state_dict(torch.load('init.pth'))")


def _pictures(folder):
    from PIL import Image
    rng = np.random.default_rng(0)
    for sub, shapes in (("train", [(60, 66), (48, 66)]), ("eval", [(30, 36)])):
        os.makedirs(os.path.join(folder, sub), exist_ok=True)
        for i, shape in enumerate(shapes):
            picture = rng.integers(0, 256, (*shape, 3), dtype=np.uint8)
            Image.fromarray(picture).save(os.path.join(folder, sub, f"{i}.bmp"))
    Image.fromarray(rng.integers(0, 256, (45, 45, 3), dtype=np.uint8)).save(os.path.join(folder, "picture.bmp"))


def _run(folder, *args, torch=False):
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="") if torch else _env()
    proc = subprocess.run([sys.executable, *args], cwd=folder, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return proc.stdout


def _prepare(folder, torch=False):
    _pictures(str(folder))
    _run(folder, "prepare.py", "--images-dir", "train", "--output-path", "train.h5", "--scale", "3", torch=torch)
    _run(folder, "prepare.py", "--images-dir", "eval", "--output-path", "eval.h5", "--scale", "3", "--eval",
         torch=torch)


def _ported(tmp_path, changes=None):
    folder = tmp_path / "ours"
    port_imports_only(REPO, folder)
    if changes:
        port_script.port_file(source(REPO, "train.py"), str(folder / "train.py"), changes)
    _prepare(folder)
    return folder


def _psnrs(out):
    return [float(v) for v in re.findall(r"eval psnr: ([\d.]+)", out)]


@needs(REPO)
def test_srcnn_trains_keeps_the_best_epoch_and_upscales(tmp_path):
    import h5py
    from PIL import Image
    folder = _ported(tmp_path)
    with h5py.File(folder / "train.h5") as f:
        assert f["lr"].shape == (12, 33, 33) and f["lr"].dtype == np.float32
    out = _run(folder, "train.py", *TRAIN)
    psnrs = _psnrs(out)
    assert len(psnrs) == 3 and all(np.isfinite(psnrs)), out
    best = int(np.argmax(psnrs))  # the first of equal ones, as its `>` keeps
    assert f"best epoch: {best}, psnr: {psnrs[best]:.2f}" in out, out
    assert sorted(os.listdir(folder / "out" / "x3")) == ["best.pth", "epoch_0.pth", "epoch_1.pth", "epoch_2.pth"]
    import glassgrad
    saved = glassgrad.load(folder / "out" / "x3" / f"epoch_{best}.pth")
    for key, value in glassgrad.load(folder / "out" / "x3" / "best.pth").items():
        np.testing.assert_array_equal(value.numpy(), saved[key].numpy(), err_msg=key)
    out = _run(folder, "test.py", "--weights-file", "out/x3/best.pth", "--image-file", "picture.bmp")
    assert re.fullmatch(r"PSNR: \d+\.\d\d\n", out), out
    for name in ("picture_bicubic_x3.bmp", "picture_srcnn_x3.bmp"):
        assert Image.open(folder / name).size == (45, 45)


@needs(REPO)
def test_srcnn_psnrs_match_pytorchs_from_the_same_weights(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("torchvision")  # the comparison's PyTorch side only
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    for name in os.listdir(checkout(REPO)):
        if name.endswith(".py"):
            (theirs / name).write_bytes(open(source(REPO, name), "rb").read())
    text = (theirs / "train.py").read_text()
    assert "\n" + SAVE[0] + "\n" in text
    (theirs / "train.py").write_text(text.replace(SAVE[0], SAVE[1]))
    _prepare(theirs, torch=True)
    want = _psnrs(_run(theirs, "train.py", *TRAIN, torch=True))
    want_test = _run(theirs, "test.py", "--weights-file", "out/x3/best.pth", "--image-file", "picture.bmp",
                     torch=True)
    ours = _ported(tmp_path, dict([LOAD]))
    (ours / "init.pth").write_bytes((theirs / "init.pth").read_bytes())
    got = _psnrs(_run(ours, "train.py", *TRAIN))
    assert len(got) == len(want) == 3
    np.testing.assert_allclose(got, want, atol=0.011)  # printed with two decimals
    got_test = _run(ours, "test.py", "--weights-file", "out/x3/best.pth", "--image-file", "picture.bmp")
    np.testing.assert_allclose(float(got_test.split()[1]), float(want_test.split()[1]), atol=0.011)
