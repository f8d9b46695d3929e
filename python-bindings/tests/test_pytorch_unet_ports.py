"""milesial/Pytorch-UNet (train.py, predict.py and the unet/, utils/ modules they import), ported
on the fly with their imports changed only from $GLASSGRAD_SCRIPT_SOURCES/Pytorch-UNet
(script_sources.py; without it these tests skip). No line beyond the imports is changed.

Data: ten 64x64 RGB images in data/imgs and their Carvana-style masks (<id>_mask.gif, a square of
255 on 0) in data/masks, written here; train.py runs one epoch at --scale 0.5 (nine training
steps, a validation round after each). wandb is not installed: wandb_stand_in.py, copied beside
the scripts as wandb.py, keeps what train.py logs and prints its scalars.

Both runs also ran under PyTorch 2.14.1 on the same files (a driver outside the repository):
two classes trains to "Checkpoint 1 saved!", its ReduceLROnPlateau cutting the learning rate
only after six validation rounds without a better Dice score; `--classes 1 --bilinear` trains a
step and stops in evaluate.py at dice_coeff's `assert input.size() == target.size()` (the
script's own bug: [1, 1, 32, 32] predictions against [1, 32, 32] masks). predict.py's logits
for a PyTorch-written checkpoint matched PyTorch's within 4e-8 there."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from script_sources import checkout, importing_from, needs, port_script
from test_ported_scripts import _env

REPO = "Pytorch-UNet"
HERE = os.path.dirname(os.path.abspath(__file__))


def _ported(tmp_path):
    """The repository ported into tmp_path/run with the stand-in wandb and the small data set."""
    Image = pytest.importorskip("PIL.Image")
    pytest.importorskip("tqdm")
    folder = tmp_path / "run"
    changed = port_script.port_tree(checkout(REPO), str(folder))
    assert all("glassgrad" in (new or "") for lines in changed.values() for _, _, new in lines)
    shutil.copy(os.path.join(HERE, "wandb_stand_in.py"), folder / "wandb.py")
    rng = np.random.default_rng(0)
    (folder / "data" / "imgs").mkdir(parents=True, exist_ok=True)  # the checkout has them, empty
    (folder / "data" / "masks").mkdir(parents=True, exist_ok=True)  # the checkout has them, empty
    for i in range(10):
        img = rng.integers(0, 256, (64, 64, 3), dtype=np.uint8)
        mask = np.zeros((64, 64), np.uint8)
        y, x = rng.integers(8, 40, 2)
        mask[y:y + 20, x:x + 20] = 255
        img[mask > 0] //= 2
        Image.fromarray(img).save(folder / "data" / "imgs" / f"{i}.jpg")
        Image.fromarray(mask).save(folder / "data" / "masks" / f"{i}_mask.gif")
    return folder


def _run(folder, *args):
    return subprocess.run([sys.executable, *args], cwd=folder, capture_output=True, text=True, timeout=900,
                          env=_env())


@needs(REPO)
def test_train_runs_an_epoch_and_predict_writes_masks_from_its_checkpoint(tmp_path):
    folder = _ported(tmp_path)
    proc = _run(folder, "train.py", "--epochs", "1", "--scale", "0.5")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Checkpoint 1 saved!" in proc.stderr and "Unique mask values: [0, 1]" in proc.stderr, proc.stderr[-2000:]
    assert proc.stderr.count("Validation Dice score:") == 9
    logged = [line for line in proc.stdout.splitlines() if "learning rate=" in line]
    assert [line.split("step=")[1] for line in logged] == [str(s) for s in range(1, 10)]
    checkpoint = folder / "checkpoints" / "checkpoint_epoch1.pth"
    assert checkpoint.exists()
    proc = _run(folder, "predict.py", "--model", str(checkpoint), "-i", "data/imgs/0.jpg", "data/imgs/1.jpg",
                "-o", "p0.png", "p1.png")
    assert proc.returncode == 0 and "Mask saved to p1.png" in proc.stderr, proc.stderr[-3000:]
    from PIL import Image
    for name in ("p0.png", "p1.png"):
        mask = np.asarray(Image.open(folder / name))
        assert mask.shape == (64, 64) and mask.dtype == bool  # mask_to_image's one-bit image for [0, 1]


@needs(REPO)
def test_one_class_with_bilinear_upsampling_trains_then_stops_at_the_dice_assertion_as_under_pytorch(tmp_path):
    folder = _ported(tmp_path)
    proc = _run(folder, "train.py", "--epochs", "1", "--scale", "0.5", "--classes", "1", "--bilinear")
    assert proc.returncode != 0
    assert "wandb.log epoch=1 step=1 train loss=" in proc.stdout, proc.stdout[-2000:]
    tail = proc.stderr.strip().splitlines()
    assert tail[-1] == "AssertionError" and "assert input.size() == target.size()" in tail[-3], proc.stderr[-2000:]


@needs(REPO)
@pytest.mark.parametrize("bilinear", [False, True])
def test_unet_logits_match_pytorch_for_the_same_weights(tmp_path, bilinear):
    torch = pytest.importorskip("torch")
    folder = _ported(tmp_path)
    import glassgrad as gg
    with importing_from(checkout(REPO), "unet"):
        import unet
        theirs = unet.UNet(3, 2, bilinear=bilinear).eval()
    with importing_from(folder, "unet"):
        import unet
        ours = unet.UNet(3, 2, bilinear=bilinear).eval()
    ours.load_state_dict({k: gg.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(1).random((2, 3, 32, 48), dtype=np.float32)
    with gg.no_grad():
        got = ours(gg.tensor(x)).numpy()
    want = theirs(torch.tensor(x)).detach().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
