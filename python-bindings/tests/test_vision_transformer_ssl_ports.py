"""Vision transformers, self-supervised and attention models, ported on the fly from
$GLASSGRAD_SCRIPT_SOURCES (script_sources.py; without the checkouts these tests skip):

- sthalles/SimCLR (run.py: a ResNet-18 with a projection head trained with the InfoNCE loss on two
  augmented views, a GaussianBlur made of two grouped convolutions, GradScaler, tensorboard);
- ritheshkumar95/pytorch-vqvae (its tests of the vector-quantization Functions, a custom
  autograd Function with a straight-through gradient; vqvae.py, then pixelcnn_prior.py on the
  saved VQ-VAE);
- omihub777/ViT-CIFAR (its ViT, AutoAugment policy, random crop-paste, CutMix, MixUp and
  label-smoothing loss, by a driver doing main.py's training step: main.py itself needs PyTorch
  Lightning);
- kevinzakka/recurrent-visual-attention (main.py: the glimpse network, an LSTM-free core, REINFORCE
  with a baseline; trained, then tested from its best checkpoint; its tests/ scripts);
- lucidrains/vit-pytorch (its tests and the README's examples, most through einops.layers.torch's
  Rearrange, which glassgrad.einops_layers stands in for);
- zalandoresearch/pytorch-vq-vae (its notebook, with the quantizer whose codebook is an
  exponential moving average: the module reassigns its buffer and Parameters inside forward).

Lines changed beyond the imports are those PyTorch 2.x and current libraries refuse alike:
torchvision's removed `make_grid(range=)` (now `value_range=`), NumPy's removed `np.int`, a
missing import in pixelcnn_prior.py, and the README's training loops cut to one step. Each run
also ran under PyTorch 2.14.1 on the same small data (a driver outside the repository): the same
printed shapes, dtypes and outputs (ViT-CIFAR's model gives PyTorch's logits from the same
weights); losses differ with the frameworks' random streams."""
import glob
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from data_fixtures import write_cifar, write_mnist
from notebook_cells import check_cells, ported_notebook
from script_sources import needs, port_script, slow_params, source
from test_ported_scripts import _env

SIMCLR, VQVAE, VITCIFAR, RVA, VIT = ("sthalles-SimCLR", "pytorch-vqvae", "ViT-CIFAR", "recurrent-visual-attention",
                                     "vit-pytorch")
ZALANDO = "zalandoresearch-pytorch-vq-vae"


def _python(folder, *args, timeout=900):
    proc = subprocess.run([sys.executable, *args], cwd=str(folder), env=_env(), capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, f"{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def _port(repo, folder, changes=None):
    """The checkout ported into folder, `changes` ({file: {line: new}}) made to the files named."""
    port_script.port_tree(source(repo, "."), str(folder))
    for rel, lines in (changes or {}).items():
        port_script.port_file(source(repo, rel), str(folder / rel), lines)
    return folder


@needs(SIMCLR)
def test_simclr_trains_and_checkpoints(tmp_path):
    folder = _port(SIMCLR, tmp_path / "run")
    write_cifar(str(folder / "datasets"), n_per_batch=8)  # 40 images: 5 batches of 8
    _python(folder, "run.py", "-data", "./datasets", "-dataset-name", "cifar10", "--epochs", "1", "-b", "8",
            "-j", "0", "--log-every-n-steps", "2", "--seed", "0")
    [log] = glob.glob(str(folder / "runs" / "*" / "training.log"))
    with open(log) as f:
        text = f.read()
    assert "Start SimCLR training for 1 epochs." in text and "Training has finished." in text
    loss = float(re.search(r"Epoch: 0\tLoss: ([\d.]+)\tTop1 accuracy: [\d.]+", text).group(1))
    assert 0 < loss < 10  # InfoNCE of 16 views: log(15) at chance
    import glassgrad as gg
    [ckpt] = glob.glob(str(folder / "runs" / "*" / "checkpoint_0001.pth.tar"))
    state = gg.load(ckpt)
    assert state["epoch"] == 1 and state["arch"] == "resnet18"
    assert tuple(state["state_dict"]["backbone.fc.0.weight"].shape) == (512, 512)
    assert tuple(state["state_dict"]["backbone.fc.2.weight"].shape) == (128, 512)


@needs(VQVAE)
def test_vqvae_functions_pass_their_tests(tmp_path):
    folder = _port(VQVAE, tmp_path / "run")
    out = _python(folder, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_functions.py")
    assert "5 passed" in out


VQVAE_CHANGES = {
    "vqvae.py": {
        "    fixed_grid = make_grid(fixed_images, nrow=8, range=(-1, 1), normalize=True)":
            "    fixed_grid = make_grid(fixed_images, nrow=8, value_range=(-1, 1), normalize=True)",
        "    grid = make_grid(reconstruction.cpu(), nrow=8, range=(-1, 1), normalize=True)":
            "    grid = make_grid(reconstruction.cpu(), nrow=8, value_range=(-1, 1), normalize=True)",
        "        grid = make_grid(reconstruction.cpu(), nrow=8, range=(-1, 1), normalize=True)":
            "        grid = make_grid(reconstruction.cpu(), nrow=8, value_range=(-1, 1), normalize=True)"},
    "pixelcnn_prior.py": {
        "from torchvision import transforms": "from glassgrad.vision import transforms, datasets",
        "    fixed_grid = make_grid(fixed_images, nrow=8, range=(-1, 1), normalize=True)":
            "    fixed_grid = make_grid(fixed_images, nrow=8, value_range=(-1, 1), normalize=True)"},
}


def _write_miniimagenet(root):
    """The layout MiniImagenet reads: images/ and train.csv, val.csv, test.csv (filename,label),
    three training classes and two of each other split, six random 84 x 84 JPEGs a class."""
    from PIL import Image
    rng = np.random.default_rng(0)
    os.makedirs(root / "images")
    for split, classes in (("train", ["n01", "n02", "n03"]), ("val", ["n04", "n05"]), ("test", ["n06", "n07"])):
        rows = ["filename,label"]
        for c in classes:
            for i in range(6):
                name = f"{c}{i:04d}.jpg"
                Image.fromarray(rng.integers(0, 256, (84, 84, 3), dtype=np.uint8)).save(root / "images" / name)
                rows.append(f"{name},{c}")
        (root / f"{split}.csv").write_text("\n".join(rows) + "\n")


@needs(VQVAE)
def test_vqvae_then_its_pixelcnn_prior(tmp_path):
    folder = _port(VQVAE, tmp_path / "run", VQVAE_CHANGES)
    _write_miniimagenet(folder / "mini")
    common = ["--data-folder", "mini", "--dataset", "miniimagenet", "--k", "32", "--batch-size", "8",
              "--num-epochs", "1", "--num-workers", "0"]
    _python(folder, "vqvae.py", *common, "--hidden-size", "16", "--output-folder", "vq")
    assert (folder / "models" / "vq" / "best.pt").exists() and (folder / "models" / "vq" / "model_1.pt").exists()
    out = _python(folder, "pixelcnn_prior.py", *common, "--model", "models/vq/best.pt", "--hidden-size-vae", "16",
                  "--hidden-size-prior", "8", "--num-layers", "3")
    assert out.count("Skipping initialization of  GatedMaskedConv2d") == 3
    with open(folder / "models" / "prior" / "labels.json") as f:
        assert sorted(json.load(f)) == ["n01", "n02", "n03"]
    import glassgrad as gg
    prior = gg.load(str(folder / "models" / "prior" / "prior.pt"))
    assert tuple(prior["embedding.weight"].shape) == (32, 8)  # one vector a VQ-VAE code


VIT_CIFAR_DRIVER = '''
import argparse
import random
import numpy as np
import glassgrad.torch as torch
import glassgrad.vision as torchvision
import utils
from da import CutMix, MixUp

np.random.seed(0)
random.seed(0)
torch.manual_seed(0)
ns = argparse.Namespace(dataset="c10", model_name="vit", patch=4, dropout=0.0, head=4, num_layers=2, hidden=32,
                        mlp_hidden=64, is_cls_token=True, autoaugment=True, rcpaste=True, criterion="ce",
                        label_smoothing=True, smoothing=0.1)
train_ds, test_ds = utils.get_dataset(ns)
net = utils.get_model(ns)
rng = np.random.default_rng(0)
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.1, tuple(p.shape)).astype(np.float32)))
out = net(torch.from_numpy(rng.normal(0, 1, (2, 3, 32, 32)).astype(np.float32)))
print("fixed", tuple(out.shape), " ".join(f"{v:.4f}" for v in out.detach().numpy().ravel()))
crit = utils.get_criterion(ns)
logits = torch.from_numpy(rng.normal(0, 1, (4, 10)).astype(np.float32))
print("smoothed", type(crit).__name__, f"{crit(logits, torch.tensor([1, 2, 3, 4])).item():.4f}")
opt = torch.optim.Adam(net.parameters(), lr=1e-3, weight_decay=5e-5)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=3, eta_min=1e-5)
cutmix, mixup = CutMix(32, beta=1.), MixUp(alpha=1.)
for step, (img, label) in enumerate(torch.utils.data.DataLoader(train_ds, batch_size=8, shuffle=True)):
    print("batch", tuple(img.shape), img.dtype, tuple(label.shape), label.dtype)
    img, label, rand_label, lam = (cutmix if step % 2 == 0 else mixup)((img, label))
    out = net(img)
    loss = crit(out, label) * lam + crit(out, rand_label) * (1. - lam)
    acc = torch.eq(out.argmax(-1), label).float().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    print("step", step, f"{loss.item():.4f}", acc.item())
    if step == 3:
        break
net.eval()
with torch.no_grad():
    x, y = next(iter(torch.utils.data.DataLoader(test_ds, batch_size=16)))
    print("eval", tuple(net(x).shape))
print("grid", tuple(torchvision.utils.make_grid(x[:4], nrow=4).permute(1, 2, 0).shape))
'''

# the logits PyTorch 2.14.1 gives from the driver's weights and input (the model's forward alone)
VIT_CIFAR_FIXED = ("0.1831 -0.0857 0.0857 -0.2084 0.1202 -0.1202 -0.1616 0.1117 0.0033 -0.0988 "
                   "0.1832 -0.0940 0.0926 -0.2021 0.1316 -0.1200 -0.1558 0.1162 0.0097 -0.0982")


@needs(VITCIFAR)
def test_vit_cifar_training_step_with_its_augmentations(tmp_path):
    folder = _port(VITCIFAR, tmp_path / "run", {
        "autoaugment.py": {'            "posterize": np.round(np.linspace(8, 4, 10), 0).astype(np.int),':
                           '            "posterize": np.round(np.linspace(8, 4, 10), 0).astype(int),'},
        "da.py": {"        cut_w = np.int(W * cut_rat)": "        cut_w = int(W * cut_rat)",
                  "        cut_h = np.int(H * cut_rat)": "        cut_h = int(H * cut_rat)"}})
    (folder / "torchsummary.py").write_text("def summary(model, input_size, *args, **kwargs):\n    print(model)\n")
    (folder / "driver.py").write_text(VIT_CIFAR_DRIVER)
    write_cifar(str(folder / "data"), n_per_batch=16, n_test=32)
    out = _python(folder, "driver.py").splitlines()
    assert out[0] == "fixed (2, 10) " + VIT_CIFAR_FIXED
    assert out[1] == "smoothed LabelSmoothingCrossEntropyLoss 3.4210"
    assert out[2::2][:4] == ["batch (8, 3, 32, 32) glassgrad.float32 (8,) glassgrad.int64"] * 4
    losses = [float(line.split()[2]) for line in out[3:11:2]]
    assert all(1.5 < v < 3.5 for v in losses), losses  # about log(10) for 10 classes
    assert out[-2:] == ["eval (16, 10)", "grid (36, 138, 3)"]


@needs(RVA)
def test_recurrent_visual_attention_trains_then_tests(tmp_path):
    folder = _port(RVA, tmp_path / "run")
    # tensorboard_logger (an old package) logs the scalars: a stand-in prints them
    (folder / "tensorboard_logger.py").write_text(
        "def configure(logdir, flush_secs=2):\n    print('configure', logdir)\n"
        "def log_value(name, value, step=None):\n    print('log_value', name, value, step)\n")
    write_mnist(str(folder / "data"), n_train=60, n_test=20)
    common = ["--batch_size", "8", "--num_workers", "0", "--use_gpu", "False", "--num_glimpses", "3"]
    out = _python(folder, "main.py", *common, "--epochs", "2", "--use_tensorboard", "True", "--plot_freq", "1")
    assert "[*] Train on 54 samples, validate on 6 samples" in out
    assert re.findall(r"train loss: [\d.]+ - train acc: [\d.]+ - val loss: [\d.]+ - val acc: [\d.]+", out) \
        and out.count("Epoch: ") == 2
    assert out.count("log_value valid_acc") == 2
    assert sorted(os.listdir(folder / "ckpt")) == ["ram_3_8x8_1_ckpt.pth.tar", "ram_3_8x8_1_model_best.pth.tar",
                                                  "ram_3_8x8_1_params.json"]
    assert sorted(os.listdir(folder / "plots" / "ram_3_8x8_1")) == ["g_1.p", "g_2.p", "l_1.p", "l_2.p"]
    out = _python(folder, "main.py", *common, "--is_train", "False")
    assert re.search(r"\[\*\] Loaded ram_3_8x8_1_model_best.pth.tar checkpoint @ epoch \d", out)
    assert re.search(r"\[\*\] Test Acc: \d+/20 ", out)


@needs(RVA)
@pytest.mark.parametrize("script", ["test_modules.py", "test_model.py", "test_retina.py"])
def test_recurrent_visual_attention_tests(tmp_path, monkeypatch, script):
    # scripts asserting the glimpse sensor's, the networks' and the retina's shapes on the
    # repository's two photographs (data/lenna.jpg, data/cat.jpg), run from tests/
    monkeypatch.setenv("MPLBACKEND", "Agg")
    folder = _port(RVA, tmp_path / "run")
    _python(folder / "tests", script)


@needs(VIT)
def test_vit_pytorch_tests(tmp_path):
    folder = _port(VIT, tmp_path / "run")
    # (the repository's pyproject.toml adds -q: with -v the summary line is printed)
    assert "1 passed in" in _python(folder, "-m", "pytest", "-v", "-p", "no:cacheprovider", "tests/test_vit.py")


def _readme_examples():
    """The README's python code blocks, in order."""
    with open(source(VIT, "README.md"), encoding="utf-8") as f:
        return re.findall(r"```python\n(.*?)```", f.read(), re.S)


# README examples that stop under PyTorch too, or need what the tests do not install
README_LEFT_OUT = {
    "vit_pytorch.na_vit_nested_tensor": "torch.nested, which glassgrad leaves out (docs/porting.md)",
    "resnet50(pretrained = True)": "pretrained weights, a download",
    "from vit_pytorch.vivit import ViT": "vivit has no ViT any more (ImportError under PyTorch too)",
    "nystrom_attention": "the nystrom-attention package",
    "x_transformers": "the x-transformers package",
    "MAE(": "mae.py adds the 2-d pos_embedding[:, 1:n] to (b, n, d) tokens: PyTorch's RuntimeError too",
    "SimMIM(": "simmim.py adds the 2-d pos_embedding[:, 1:n] to (b, n, d) tokens: PyTorch's RuntimeError too",
    "MPP(": "mpp.py repeats the 2-d cls_token with '() n d -> b n d': einops' EinopsError under PyTorch too",
}
# README examples that continue the one before them (v, model, images or JetViT unset): left out
README_FRAGMENTS = (3, 6, 43, 47, 48)


def _readme_ids():
    return [i for i in range(53) if i not in README_FRAGMENTS]


@needs(VIT)
@pytest.mark.parametrize("index", slow_params(_readme_ids(), set(_readme_ids())))
def test_vit_pytorch_readme_example(tmp_path, index):
    examples = _readme_examples()
    if index >= len(examples):
        pytest.skip(f"the README has {len(examples)} examples")
    code = examples[index]
    left_out = [why for mark, why in README_LEFT_OUT.items() if mark in code]
    if left_out:
        pytest.skip(left_out[0])
    folder = _port(VIT, tmp_path / "run")
    (folder / "example.py").write_text(code)
    # the training loops (Dino, EsViT) run one step of their 100 or 1000
    port_script.port_file(str(folder / "example.py"), str(folder / "ported.py"),
                          {line: line.replace("range(1000)", "range(1)").replace("range(100)", "range(1)")
                           for line in code.split("\n") if re.match(r"for _ in range\(10+\):", line)})
    _python(folder, "ported.py")


# umap-learn (the notebook's last cells project the codebook to 2-d): a stand-in with its call
UMAP_STAND_IN = """import numpy as np
class UMAP:
    def __init__(self, n_neighbors=15, min_dist=0.1, metric="euclidean"):
        pass
    def fit_transform(self, x):
        x = np.asarray(x)
        return (x - x.mean(0)) @ np.linalg.svd(x - x.mean(0), full_matrices=False)[2][:2].T
"""


@needs(ZALANDO)
@pytest.mark.parametrize("decay", ["0.99", "0"])  # the EMA codebook (the notebook's) and the plain one
def test_zalando_vq_vae_notebook(tmp_path, decay):
    folder, path = ported_notebook(tmp_path, ZALANDO, "vq-vae.ipynb")
    (folder / "umap.py").write_text(UMAP_STAND_IN)
    write_cifar(str(folder / "data"), n_per_batch=16, n_test=32)
    changes = {"batch_size = 256": "batch_size = 16", "num_training_updates = 15000": "num_training_updates = 4",
               "num_hiddens = 128": "num_hiddens = 16", "num_residual_hiddens = 32": "num_residual_hiddens = 8",
               "embedding_dim = 64": "embedding_dim = 16", "num_embeddings = 512": "num_embeddings = 32",
               "decay = 0.99": f"decay = {decay}", "    if (i+1) % 100 == 0:": "    if (i+1) % 2 == 0:",
               # SciPy's filter needs a window no longer than the 4 steps
               "train_res_recon_error_smooth = savgol_filter(train_res_recon_error, 201, 7)":
                   "train_res_recon_error_smooth = savgol_filter(train_res_recon_error, 3, 1)",
               "train_res_perplexity_smooth = savgol_filter(train_res_perplexity, 201, 7)":
                   "train_res_perplexity_smooth = savgol_filter(train_res_perplexity, 3, 1)"}
    check_cells(folder, path, raises={}, shown=["2 iterations", "4 iterations", "perplexity: "], changes=changes)
