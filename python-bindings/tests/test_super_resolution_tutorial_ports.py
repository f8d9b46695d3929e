"""sgrvinod/a-PyTorch-Tutorial-to-Super-Resolution (create_data_lists.py, train_srresnet.py,
train_srgan.py, eval.py, super_resolve.py with their models.py, datasets.py, utils.py), ported on
the fly with their imports changed only from
$GLASSGRAD_SCRIPT_SOURCES/a-PyTorch-Tutorial-to-Super-Resolution (script_sources.py; without it
these tests skip; its img/ folder is not needed).

Data: small random PNGs written here in the folders create_data_lists.py names (train2014,
val2014, BSDS100, Set5, Set14), each with one image under its 100-pixel minimum. Changed beyond
the imports: create_data_lists.py's folder paths ('/media/ssd/sr data/' -> 'data/') and
train_srresnet.py's `iterations = 1e6` (cut to 2: two epochs of two batches of 16).

Under PyTorch 2.14.1 (a driver outside the repository, on the same files) create_data_lists.py
and train_srresnet.py run to their end; train_srgan.py and super_resolve.py stop at torch.load's
weights_only=True default (PyTorch 2.6) refusing the whole SRResNet the checkpoint holds, and
eval.py at the SRGAN checkpoint that train_srgan.py could not write (FileNotFoundError). SRGAN's
training needs torchvision's pretrained VGG19 (a download) beyond that, which is not run here."""
import json
import subprocess
import sys

import numpy as np
import pytest

from script_sources import checkout, importing_from, needs, port_script, source
from test_ported_scripts import _env

REPO = "a-PyTorch-Tutorial-to-Super-Resolution"
FOLDERS = {"train2014": 12, "val2014": 8, "BSDS100": 2, "Set5": 2, "Set14": 2}


def _ported(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    folder = tmp_path / "run"
    port_script.port_tree(checkout(REPO), str(folder))
    port_script.port_file(source(REPO, "create_data_lists.py"), str(folder / "create_data_lists.py"),
                          {line: line.replace("/media/ssd/sr data/", "data/") for line in
                           open(source(REPO, "create_data_lists.py")).read().split("\n") if "/media/ssd" in line})
    line = [x for x in open(source(REPO, "train_srresnet.py")).read().split("\n") if x.startswith("iterations = 1e6")]
    port_script.port_file(source(REPO, "train_srresnet.py"), str(folder / "train_srresnet.py"),
                          {line[0]: line[0].replace("1e6", "2")})
    rng = np.random.default_rng(0)
    for name, n in FOLDERS.items():
        (folder / "data" / name).mkdir(parents=True)
        for i in range(n):
            h, w = rng.integers(100, 130, 2)
            Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8)).save(folder / "data" / name / f"{i}.png")
        Image.fromarray(rng.integers(0, 256, (60, 80, 3), dtype=np.uint8)).save(folder / "data" / name / "small.png")
    return folder


def _run(folder, script):
    return subprocess.run([sys.executable, script], cwd=folder, capture_output=True, text=True, timeout=900,
                          env=_env())


@needs(REPO)
def test_data_lists_then_srresnet_training_then_the_scripts_stop_where_pytorch_stops(tmp_path):
    folder = _ported(tmp_path)
    proc = _run(folder, "create_data_lists.py")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "There are 20 images in the training data." in proc.stdout
    assert len(json.loads((folder / "Set5_test_images.json").read_text())) == 2  # small.png left out
    proc = _run(folder, "train_srresnet.py")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Epoch: [0][0/2]" in proc.stdout and "Epoch: [1][0/2]" in proc.stdout, proc.stdout[-2000:]
    assert (folder / "checkpoint_srresnet.pth.tar").exists()
    for script in ("train_srgan.py", "super_resolve.py"):
        proc = _run(folder, script)
        error = [x for x in proc.stderr.splitlines() if "Weights only load failed." in x]
        assert proc.returncode != 0 and error and "models.SRResNet" in error[-1], proc.stderr[-2000:]
    proc = _run(folder, "eval.py")
    assert proc.returncode != 0 and "checkpoint_srgan.pth.tar" in proc.stderr, proc.stderr[-2000:]
    assert "FileNotFoundError" in proc.stderr or "CheckpointNotFoundError" in proc.stderr

    # the whole model train_srresnet.py saved loads with weights_only=False once its class is imported
    import glassgrad as gg
    with importing_from(folder, "models", "utils", "datasets"):
        import models
        saved = gg.load(str(folder / "checkpoint_srresnet.pth.tar"), weights_only=False)
    assert saved["epoch"] == 1 and isinstance(saved["model"], models.SRResNet)
    with gg.no_grad():
        assert tuple(saved["model"].eval()(gg.rand(1, 3, 6, 8)).shape) == (1, 3, 24, 32)


@needs(REPO)
def test_models_and_image_conversions_match_pytorch(tmp_path):
    torch = pytest.importorskip("torch")
    from PIL import Image
    folder = _ported(tmp_path)
    import glassgrad as gg
    rng = np.random.default_rng(1)
    img = Image.fromarray(rng.integers(0, 256, (24, 32, 3), dtype=np.uint8))
    x = rng.random((2, 3, 12, 16), dtype=np.float32) * 2 - 1
    results = []
    for lib, where in ((torch, checkout(REPO)), (gg, str(folder))):
        models, utils = _modules(where)
        lib.manual_seed(0)
        nets = [models.SRResNet(n_blocks=2, n_channels=16), models.Discriminator(n_channels=16, n_blocks=4)]
        if results:
            for net, state in zip(nets, results[0][0]):
                net.load_state_dict({k: gg.tensor(v) for k, v in state.items()})
        with lib.no_grad():
            sr = nets[0].eval()(lib.tensor(x))
            score = nets[1].eval()(sr)
        conversions = {target: utils.convert_image(img, "pil", target).numpy()
                       for target in ("[0, 255]", "[0, 1]", "[-1, 1]", "imagenet-norm")}
        conversions["y-channel"] = utils.convert_image(lib.tensor(x), "[-1, 1]", "y-channel").numpy()
        back = np.asarray(utils.convert_image(lib.tensor(x[0]), "[-1, 1]", "pil"))
        results.append(([{k: v.numpy() for k, v in n.state_dict().items()} for n in nets],
                        sr.numpy(), score.numpy(), conversions, back))
    (_, want_sr, want_score, want_conv, want_back), (_, got_sr, got_score, got_conv, got_back) = results
    np.testing.assert_allclose(got_sr, want_sr, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got_score, want_score, rtol=1e-4, atol=1e-5)
    for target, want in want_conv.items():
        np.testing.assert_allclose(got_conv[target], want, rtol=1e-5, atol=1e-5, err_msg=target)
    np.testing.assert_array_equal(got_back, want_back)


def _modules(folder):
    """(models, utils) imported from folder, then forgotten by name."""
    with importing_from(folder, "models", "utils", "datasets"):
        import models
        import utils
        return models, utils
