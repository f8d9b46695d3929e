"""Three small DDPM tutorials, ported on the fly with their imports changed only from
$GLASSGRAD_SCRIPT_SOURCES (script_sources.py; without a checkout its tests skip):

- cloneofsimo/minDiffusion (`minDiffusion`): superminddpm.py (a 1000-step DDPM on MNIST around a
  plain conv stack), train_cifar10.py (its NaiveUnet with GroupNorm, ConvTranspose2d and a sine
  time embedding) and mindiffusion/ddim.py's DDIM sampler;
- TeaPearce/Conditional_Diffusion_MNIST (`Conditional_Diffusion_MNIST`): script.py, classifier-
  free guidance on MNIST (one_hot, bernoulli context masks, repeat, nonzero, GELU, GroupNorm),
  sampling at three guidance strengths, matplotlib's animated GIFs of the sampling steps;
- dome272/Diffusion-Models-pytorch (`Diffusion-Models-pytorch`): ddpm.py and ddpm_conditional.py
  (a UNet with nn.MultiheadAttention over 64x64 feature maps, an EMA copy kept by
  load_state_dict and `.data =`, torch.lerp, TensorBoard's SummaryWriter), noising_test.py.

The scripts are written for a GPU and for hours of training: the tests change only the lines that
set the device, the epochs, the batch and data sizes, the number of diffusion steps and the
widths of the networks (each `changes` below; a line that is not in the script fails the test).
Data are written small in the layouts the scripts read: torchvision's MNIST and CIFAR-10 folders,
an ImageFolder of random JPEGs. Under PyTorch the same changed scripts print the same lines and
write pictures of the same sizes (checked by running them with torch); their losses differ, as
the frameworks' random generators do (docs/porting.md)."""
import os
import re
import subprocess
import sys

import numpy as np

from data_fixtures import write_cifar, write_mnist
from notebook_cells import port_imports_only
from script_sources import checkout, needs, port_script, source
from test_ported_scripts import _env

MIN = "minDiffusion"
COND = "Conditional_Diffusion_MNIST"
DOME = "Diffusion-Models-pytorch"

SUPERMIN = {
    'def train_mnist(n_epoch: int = 100, device="cuda:0") -> None:':
        'def train_mnist(n_epoch: int = 1, device="cpu") -> None:',
    "    ddpm = DDPM(eps_model=DummyEpsModel(1), betas=(1e-4, 0.02), n_T=1000)":
        "    ddpm = DDPM(eps_model=DummyEpsModel(1), betas=(1e-4, 0.02), n_T=3)",
    "    dataloader = DataLoader(dataset, batch_size=128, shuffle=True, num_workers=20)":
        "    dataloader = DataLoader(dataset, batch_size=8, shuffle=True, num_workers=0)",
}
CIFAR = {
    '    n_epoch: int = 100, device: str = "cuda:1", load_pth: Optional[str] = None':
        '    n_epoch: int = 1, device: str = "cpu", load_pth: Optional[str] = None',
    "    ddpm = DDPM(eps_model=NaiveUnet(3, 3, n_feat=128), betas=(1e-4, 0.02), n_T=1000)":
        "    ddpm = DDPM(eps_model=NaiveUnet(3, 3, n_feat=16), betas=(1e-4, 0.02), n_T=3)",
    "    dataloader = DataLoader(dataset, batch_size=512, shuffle=True, num_workers=16)":
        "    dataloader = DataLoader(dataset, batch_size=8, shuffle=True, num_workers=0)",
}
GUIDED = {
    "    n_epoch = 20": "    n_epoch = 1",
    "    batch_size = 256": "    batch_size = 8",
    "    n_T = 400 # 500": "    n_T = 4 # 500",
    '    device = "cuda:0"': '    device = "cpu"',
    "    n_feat = 128 # 128 ok, 256 better (but slower)": "    n_feat = 16 # 128 ok, 256 better (but slower)",
    "    save_model = False": "    save_model = True",
    "    dataloader = DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=5)":
        "    dataloader = DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=0)",
}
# both of dome272's scripts: two diffusion steps (one sampling step), the data folder, the CPU;
# its UNets take `device` (default "cuda") for the time encoding's arange, which the scripts leave out
DOME_COMMON = {
    '    def __init__(self, noise_steps=1000, beta_start=1e-4, beta_end=0.02, img_size=256, device="cuda"):':
        '    def __init__(self, noise_steps=2, beta_start=1e-4, beta_end=0.02, img_size=256, device="cuda"):',
    '    args.device = "cuda"': '    args.device = "cpu"',
}
DDPM = dict(DOME_COMMON, **{
    "    args.epochs = 500": "    args.epochs = 1",
    "    args.batch_size = 12": "    args.batch_size = 2",
    '    args.dataset_path = r"C:\\Users\\dome\\datasets\\landscape_img_folder"': '    args.dataset_path = "data"',
    "    model = UNet().to(device)": "    model = UNet(device=device).to(device)",
})
DDPM_CONDITIONAL = dict(DOME_COMMON, **{
    "    args.epochs = 300": "    args.epochs = 1",
    "    args.batch_size = 14": "    args.batch_size = 2",
    '    args.dataset_path = r"C:\\Users\\dome\\datasets\\cifar10\\cifar10-64\\train"': '    args.dataset_path = "data"',
    "    model = UNet_conditional(num_classes=args.num_classes).to(device)":
        "    model = UNet_conditional(num_classes=args.num_classes, device=device).to(device)",
})


def _port(repo, folder, script, changes):
    """The checkout ported into folder with only import lines changed, then `script` ported again
    with `changes` (each must be a line of it)."""
    port_imports_only(repo, folder)
    if changes:
        changed = port_script.port_file(source(repo, script), str(folder / script), changes)
        assert {old for _, old, _ in changed} >= set(changes), set(changes) - {old for _, old, _ in changed}


def _run(folder, *cmd):
    proc = subprocess.run([sys.executable, *cmd], cwd=folder, env=_env(MPLBACKEND="Agg"), capture_output=True,
                          text=True, timeout=1800)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    return proc


def _grid(n, nrow, size, padding=2):
    """(width, height) of make_grid's picture of n size x size images, nrow a row."""
    rows = (n + nrow - 1) // nrow
    return (min(n, nrow) * (size + padding) + padding, rows * (size + padding) + padding)


def _losses(text):
    losses = [float(v) for v in re.findall(r"(?:loss: |MSE=)(-?[\d.]+(?:e[+-]?\d+)?|nan|inf)", text)]
    assert losses and np.all(np.isfinite(losses)), text[-2000:]
    return losses


def _state(path):
    import glassgrad
    return {k: tuple(v.shape) for k, v in glassgrad.load(path).items()}


@needs(MIN)
def test_superminddpm_trains_an_epoch_and_samples(tmp_path):
    from PIL import Image
    _port(MIN, tmp_path, "superminddpm.py", SUPERMIN)
    write_mnist(str(tmp_path / "data"), n_train=16, n_test=4)
    proc = _run(tmp_path, "superminddpm.py")
    assert len(_losses(proc.stderr)) >= 2  # tqdm's description, once a batch
    # 16 samples of 1 x 28 x 28 in rows of 4; the schedules saved as buffers beside the model
    assert Image.open(tmp_path / "contents" / "ddpm_sample_0.png").size == _grid(16, 4, 28)
    state = _state(tmp_path / "ddpm_mnist.pth")
    assert state["sqrtab"] == (4,) and state["eps_model.conv.0.0.weight"] == (64, 1, 7, 7)
    assert state["eps_model.conv.7.weight"] == (1, 64, 3, 3) and "eps_model.conv.0.1.num_batches_tracked" in state


@needs(MIN)
def test_train_cifar10_trains_the_naive_unet(tmp_path):
    from PIL import Image
    _port(MIN, tmp_path, "train_cifar10.py", CIFAR)
    write_cifar(str(tmp_path / "data"), n_per_batch=4)
    proc = _run(tmp_path, "train_cifar10.py")
    assert "Epoch 0 : " in proc.stdout
    assert len(_losses(proc.stderr)) >= 3  # 20 images, batches of 8
    # 8 samples then x[:8] of the last batch (the 4 images left of 20), normalized over
    # value_range=(-1, 1), in rows of 4
    assert Image.open(tmp_path / "contents" / "ddpm_sample_cifar0.png").size == _grid(8 + 4, 4, 32)
    state = _state(tmp_path / "ddpm_cifar.pth")
    assert state["eps_model.up0.0.weight"] == (32, 32, 4, 4) and state["eps_model.timeembed.lin1.weight"] == (32, 1)


DDIM_DRIVER = """
import glassgrad.torch as torch
from mindiffusion.ddim import DDIM
from mindiffusion.unet import NaiveUnet

torch.manual_seed(0)
ddim = DDIM(eps_model=NaiveUnet(3, 3, n_feat=16), betas=(1e-4, 0.02), eta=0.5, n_T=4)
loss = ddim(torch.randn(2, 3, 32, 32))
loss.backward()
with torch.no_grad():
    x = ddim.sample(2, (3, 32, 32), "cpu")
print("loss", loss.item(), "sample", tuple(x.shape), x.dtype, bool(torch.isfinite(x).all()))
"""


@needs(MIN)
def test_ddim_trains_and_samples_through_the_ddpm_it_extends(tmp_path):
    _port(MIN, tmp_path, "superminddpm.py", None)
    (tmp_path / "ddim_driver.py").write_text(DDIM_DRIVER)
    out = _run(tmp_path, "ddim_driver.py").stdout
    assert "sample (2, 3, 32, 32) glassgrad.float32 True" in out, out
    assert np.isfinite(float(re.search(r"loss (\S+)", out).group(1)))


@needs(COND)
def test_guided_diffusion_trains_samples_and_animates(tmp_path):
    from PIL import Image
    _port(COND, tmp_path, "script.py", GUIDED)
    write_mnist(str(tmp_path / "data"), n_train=16, n_test=4)
    out_dir = tmp_path / "data" / "diffusion_outputs10"
    out_dir.mkdir()
    proc = _run(tmp_path, "script.py")
    assert "epoch 0" in proc.stdout and len(_losses(proc.stderr)) >= 2
    for w in (0.0, 0.5, 2.0):
        # 40 samples (4 of each class) above 40 training images, 10 a row
        assert Image.open(out_dir / f"image_ep0_w{w}.png").size == _grid(80, 10, 28)
        assert f"saved image at ./data/diffusion_outputs10/gif_ep0_w{w}.gif" in proc.stdout
        # a frame for each stored step: 4 steps of n_T = 4 (i == n_T or i < 8)
        assert Image.open(out_dir / f"gif_ep0_w{w}.gif").n_frames == 4
    assert "saved model at ./data/diffusion_outputs10/model_0.pth" in proc.stdout
    state = _state(out_dir / "model_0.pth")
    assert state["nn_model.contextembed1.model.0.weight"] == (32, 10) and state["sqrtab"] == (5,)


def _image_folder(root, classes=("a", "b"), per_class=2, size=(90, 100)):
    """root/<class>/<i>.jpg: random RGB JPEGs for ImageFolder."""
    from PIL import Image
    rng = np.random.default_rng(0)
    for name in classes:
        os.makedirs(os.path.join(root, name), exist_ok=True)
        for i in range(per_class):
            Image.fromarray(rng.integers(0, 256, (*size, 3), dtype=np.uint8)).save(os.path.join(root, name, f"{i}.jpg"))


def _dome(tmp_path, script, changes):
    _port(DOME, tmp_path, script, changes)
    _image_folder(str(tmp_path / "data"))
    return _run(tmp_path, script)


@needs(DOME)
def test_dome_ddpm_trains_samples_and_logs(tmp_path):
    from PIL import Image
    proc = _dome(tmp_path, "ddpm.py", DDPM)
    assert "Starting epoch 0:" in proc.stderr and "Sampling 2 new images...." in proc.stderr
    assert len(_losses(proc.stderr)) >= 2  # tqdm's postfix, MSE=...
    # the two uint8 samples of 3 x 64 x 64 side by side
    assert Image.open(tmp_path / "results" / "DDPM_Uncondtional" / "0.jpg").size == _grid(2, 8, 64)
    assert os.listdir(tmp_path / "runs" / "DDPM_Uncondtional")  # the SummaryWriter's events
    assert _state(tmp_path / "models" / "DDPM_Uncondtional" / "ckpt.pt")["sa6.mha.in_proj_weight"] == (192, 64)


@needs(DOME)
def test_dome_conditional_ddpm_keeps_an_ema_copy(tmp_path):
    from PIL import Image
    proc = _dome(tmp_path, "ddpm_conditional.py", DDPM_CONDITIONAL)
    assert proc.stderr.count("Sampling 10 new images....") == 2  # the model's, then the EMA copy's
    folder = tmp_path / "results" / "DDPM_conditional"
    for name in ("0.jpg", "0_ema.jpg"):
        assert Image.open(folder / name).size == _grid(10, 8, 64)
    models = tmp_path / "models" / "DDPM_conditional"
    # fewer than 2000 steps: EMA.step_ema copies the model's state into the EMA model
    import glassgrad
    ckpt, ema = glassgrad.load(models / "ckpt.pt"), glassgrad.load(models / "ema_ckpt.pt")
    assert ckpt.keys() == ema.keys() and "label_emb.weight" in ckpt
    for key in ckpt:
        np.testing.assert_array_equal(ckpt[key].numpy(), ema[key].numpy(), err_msg=key)
    assert set(glassgrad.load(models / "optim.pt")) == {"state", "param_groups"}


@needs(DOME)
def test_dome_noising_test_saves_the_noised_batch(tmp_path):
    from PIL import Image
    # its Diffusion(device="cpu") keeps ddpm.py's 1000 steps, which t = 999 indexes
    proc = _dome(tmp_path, "noising_test.py", {
        'args.dataset_path = r"C:\\Users\\dome\\datasets\\landscape_img_folder"': 'args.dataset_path = "data"'})
    assert not proc.stdout
    assert Image.open(tmp_path / "noise.jpg").size == _grid(8, 8, 64)


@needs(DOME)
def test_dome_modules_main_builds_the_conditional_unet(tmp_path):
    port_script.port_tree(checkout(DOME), str(tmp_path))
    out = _run(tmp_path, "modules.py").stdout.split("\n")
    # the parameter count, then the output's shape for a batch of three 64 x 64 pictures
    assert out[0] == "23335299" and out[1] == "glassgrad.Size([3, 3, 64, 64])", out
