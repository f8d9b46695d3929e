"""weiaicunzai/pytorch-cifar100 (train.py, test.py and the models/ they build: the repository's
fifty-odd CIFAR-100 networks; dataset.py's readers of the pickles), ported on the fly with their imports changed only from
$GLASSGRAD_SCRIPT_SOURCES/pytorch-cifar100 (script_sources.py; without it these tests skip).

Every network utils.get_network builds (the names train.py's -net takes) is built from the ported
models/ and called on a batch of two 32x32 images; with PyTorch installed, the original model is
built too, its state_dict loaded into the port (and the port's back into a fresh original), and
the two compared in float64: the logits in eval mode, then one step of train.py's SGD (lr 0.1, momentum 0.9,
weight decay 5e-4) on CrossEntropyLoss in train mode, its loss and every entry of the state
afterwards (parameters and batchnorm statistics). Dropout stays in eval mode for that step, and
the stochastic-depth ResNets take it in eval mode (their blocks draw torch.bernoulli in training;
glassgrad does not reproduce PyTorch's random numbers).

train.py runs one epoch, the one line changed beyond the imports being conf/global_settings.py's
`EPOCH = 200` (set to 1), on CIFAR-100 files of 8 training and 4 test images in the
python-pickle format (data_fixtures.write_cifar100) under ./data, with tensorboard logging;
test.py evaluates a state_dict PyTorch saved. Both also ran under PyTorch 2.14.1 on the same
files (a driver outside the repository, with torchvision's MD5 checks of the files off):
the lines checked are ones PyTorch's run prints alike. Left out: lr_finder.py (cv2, and it moves
every batch to the GPU unconditionally)."""
import argparse
import importlib
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from data_fixtures import write_cifar100
from script_sources import checkout, importing_from, needs, port_script
from test_ported_scripts import _env

REPO = "pytorch-cifar100"
NETS = (["attention56", "attention92", "googlenet", "inceptionv3", "inceptionv4", "inceptionresnetv2",
         "mobilenet", "mobilenetv2", "nasnet", "rir", "shufflenet", "shufflenetv2", "squeezenet", "wideresnet",
         "xception"]
        + [f"densenet{d}" for d in (121, 161, 169, 201)] + [f"vgg{d}" for d in (11, 13, 16, 19)]
        + [f"{kind}{d}" for kind in ("resnet", "preactresnet", "seresnet") for d in (18, 34, 50, 101, 152)]
        + [f"resnext{d}" for d in (50, 101, 152)] + [f"stochasticdepth{d}" for d in (18, 34, 50, 101)])
# a minute or more a network on a loaded 2-core machine
SLOW = {"attention92", "inceptionv4", "inceptionresnetv2", "nasnet", "wideresnet", "xception", "densenet161",
        "densenet169", "densenet201", "resnet101", "resnet152", "preactresnet101", "preactresnet152", "seresnet101",
        "seresnet152", "resnext101", "resnext152", "stochasticdepth101"}
# get_network's names for which utils.py has no branch (the modules define them): rir
EXTRA = {"rir": ("rir", "resnet_in_resnet")}


def _params(names):
    return [pytest.param(n, marks=[pytest.mark.slow] if n in SLOW else []) for n in sorted(names)]


def _ported(tmp_path):
    folder = tmp_path / "run"
    changed = port_script.port_tree(checkout(REPO), str(folder))
    assert all("glassgrad" in (new or "") for lines in changed.values() for _, _, new in lines)
    return folder


def _build(folder, net):
    """The network as train.py builds it (utils.get_network), from the modules in folder."""
    with importing_from(folder, "models", "utils", "conf"):
        if net in EXTRA:
            module, function = EXTRA[net]
            return getattr(importlib.import_module("models." + module), function)()
        import utils
        return utils.get_network(argparse.Namespace(net=net, gpu=False))


def _batch():
    x = np.random.default_rng(1).standard_normal((2, 3, 32, 32)).astype(np.float32)
    return x, np.array([3, 97])


@needs(REPO)
@pytest.mark.parametrize("net", _params(NETS))
def test_every_network_gives_cifar100_logits_and_trains_a_step(tmp_path, net):
    import glassgrad as gg
    model = _build(_ported(tmp_path), net)
    x, y = _batch()
    model.eval()
    with gg.no_grad():
        logits = model(gg.tensor(x))
    assert tuple(logits.shape) == (2, 100) and np.isfinite(logits.numpy()).all()
    model.train(not net.startswith("stochasticdepth"))
    loss = gg.nn.CrossEntropyLoss()(model(gg.tensor(x)), gg.tensor(y))
    loss.backward()
    assert np.isfinite(loss.item()) and any(p.grad is not None for p in model.parameters())
    assert all(np.isfinite(p.grad.numpy()).all() for p in model.parameters() if p.grad is not None)


@needs(REPO)
@pytest.mark.parametrize("net", _params(NETS))
def test_every_network_matches_pytorch_from_the_same_weights(tmp_path, net):
    torch = pytest.importorskip("torch")
    import glassgrad as gg
    torch.manual_seed(0)
    theirs = _build(checkout(REPO), net)
    ours = _build(_ported(tmp_path), net)
    start = {k: v.clone() for k, v in theirs.state_dict().items()}
    ours.load_state_dict({k: gg.tensor(v.numpy()) for k, v in start.items()})
    assert list(ours.state_dict()) == list(start)
    theirs.double()
    ours.double()
    start = {k: v.clone() for k, v in theirs.state_dict().items()}
    x, y = _batch()
    x = x.astype(np.float64)
    theirs.eval()
    ours.eval()
    with torch.no_grad():
        want = theirs(torch.tensor(x)).numpy()
    with gg.no_grad():
        got = ours(gg.tensor(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-10 * np.abs(want).max())

    for model in (theirs, ours):
        model.train(not net.startswith("stochasticdepth"))
        for m in model.modules():
            if "Dropout" in type(m).__name__:
                m.eval()
    theirs_opt = torch.optim.SGD(theirs.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    ours_opt = gg.optim.SGD(ours.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    want_loss = torch.nn.CrossEntropyLoss()(theirs(torch.tensor(x)), torch.tensor(y))
    want_loss.backward()
    theirs_opt.step()
    got_loss = gg.nn.CrossEntropyLoss()(ours(gg.tensor(x)), gg.tensor(y))
    got_loss.backward()
    ours_opt.step()
    # attention92's train-mode batchnorms amplify rounding about 1e6-fold: float32's loss differs
    # from PyTorch's by 5e-2, float64's by 4e-10
    assert abs(got_loss.item() - want_loss.item()) < 1e-8 * abs(want_loss.item())
    after = theirs.state_dict()
    # in float64: float32's rounding, amplified where batchnorm normalizes two values, moves the
    # state after the step by up to a tenth of the step's size (attention56)
    step = max(float((after[k].double() - v.double()).abs().max()) for k, v in start.items()
               if v.is_floating_point() and v.numel())
    for k, v in ours.state_dict().items():
        np.testing.assert_allclose(v.numpy(), after[k].numpy(), rtol=0, atol=1e-6 * step, err_msg=k)

    back = _build(checkout(REPO), net).double()
    mine = {k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()}
    back.load_state_dict(mine)
    assert all(torch.equal(v, mine[k]) for k, v in back.state_dict().items())


def _cifar_run(tmp_path):
    folder = _ported(tmp_path)
    settings = folder / "conf" / "global_settings.py"
    text = settings.read_text()
    assert "EPOCH = 200\n" in text
    settings.write_text(text.replace("EPOCH = 200\n", "EPOCH = 1\n"))
    write_cifar100(str(folder / "data"), n_train=8, n_test=4)
    return folder


def _run(folder, *args):
    return subprocess.run([sys.executable, *args], cwd=folder, capture_output=True, text=True, timeout=900,
                          env=_env(MPLBACKEND="Agg"))


@needs(REPO)
@pytest.mark.parametrize("net", ["squeezenet", "mobilenet"])
def test_train_runs_an_epoch_with_warmup_and_tensorboard_logs(tmp_path, net):
    pytest.importorskip("tensorboard")
    pytest.importorskip("PIL")
    folder = _cifar_run(tmp_path)
    proc = _run(folder, "train.py", "-net", net, "-b", "4")
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    # WarmUpLR's first step: base_lr * last_epoch / (iterations + 1e-8), 0 then 0.05 over 2 batches
    assert lines[0].startswith("Training Epoch: 1 [4/8]\tLoss: ") and lines[0].endswith("LR: 0.000000"), lines
    assert lines[1].startswith("Training Epoch: 1 [8/8]\tLoss: ") and lines[1].endswith("LR: 0.050000"), lines
    assert "Evaluating Network....." in lines
    assert any(line.startswith("Test set: Epoch: 1, Average loss: ") for line in lines), lines
    events = [f for _, _, files in os.walk(folder / "runs" / net) for f in files]
    assert len(events) == 1 and events[0].startswith("events.out.tfevents."), events


@needs(REPO)
def test_test_py_reports_pytorch_s_errors_for_a_pytorch_checkpoint(tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("matplotlib")
    folder = _cifar_run(tmp_path)
    torch.manual_seed(0)
    theirs = _build(checkout(REPO), "squeezenet").eval()
    torch.save(theirs.state_dict(), folder / "squeezenet.pth")
    proc = _run(folder, "test.py", "-net", "squeezenet", "-weights", "squeezenet.pth", "-b", "2")
    assert proc.returncode == 0, proc.stderr[-3000:]
    from glassgrad.vision.datasets import CIFAR100
    data = CIFAR100(str(folder / "data"), train=False)
    images = torch.tensor(np.stack([np.asarray(data[i][0]) for i in range(len(data))])).permute(0, 3, 1, 2) / 255
    mean, std = torch.tensor([0.5070751592371323, 0.48654887331495095, 0.4409178433670343]), \
        torch.tensor([0.2673342858792401, 0.2564384629170883, 0.27615047132568404])
    with torch.no_grad():
        top5 = theirs((images - mean[:, None, None]) / std[:, None, None]).topk(5, 1).indices
    labels = torch.tensor(data.targets)
    top1_err = 1 - (top5[:, 0] == labels).float().mean().item()
    top5_err = 1 - (top5 == labels[:, None]).any(1).float().mean().item()
    assert "iteration: 2\ttotal 2 iterations" in proc.stdout
    shown = dict(re.findall(r"^Top (\d) err:  tensor\(([\d.]+)\)$", proc.stdout, re.M))
    assert abs(float(shown["1"]) - top1_err) < 1e-4 and abs(float(shown["5"]) - top5_err) < 1e-4, proc.stdout[-800:]
    assert f"Parameter numbers: {sum(p.numel() for p in theirs.parameters())}" in proc.stdout


@needs(REPO)
def test_dataset_py_reads_the_cifar100_pickles(tmp_path):
    pytest.importorskip("skimage")
    pytest.importorskip("matplotlib")
    folder = _ported(tmp_path)
    files = write_cifar100(str(folder / "data"), n_train=8, n_test=4)
    from glassgrad.vision import transforms
    with importing_from(folder, "dataset"):
        import dataset
        path = str(folder / "data" / "cifar-100-python")
        train = dataset.CIFAR100Train(path, transform=transforms.ToTensor())
        test = dataset.CIFAR100Test(path, transform=transforms.ToTensor())
    assert len(train) == 8 and len(test) == 4
    for data_set, (data, fine) in ((train, files["train"]), (test, files["test"])):
        label, image = data_set[3]  # (label, image), the module's order
        assert label == fine[3] and tuple(image.shape) == (3, 32, 32)
        np.testing.assert_allclose(image.numpy(), data[3].reshape(3, 32, 32) / 255, atol=1e-6)
