"""akamaster/pytorch_resnet_cifar10 (resnet.py: the CIFAR-10 ResNets 20-1202 of He et al. with
option-A shortcuts, F.pad of a strided slice in a LambdaLayer; trainer.py: SGD with momentum and
weight decay, MultiStepLR, a DataParallel model, checkpoints with torch.save, --resume and
--evaluate; its --resume stops where PyTorch's does, at MultiStepLR without the
optimizer's 'initial_lr'), ported on the fly with their imports changed only from
$GLASSGRAD_SCRIPT_SOURCES/pytorch_resnet_cifar10 (script_sources.py; without it these tests skip).

trainer.py calls .cuda() on the model, the loss and each batch; with no GPU here these calls are
.cpu() (CPU_LINES, the only lines changed; unchanged, the script stops at model.cuda(), PyTorch's
RuntimeError and glassgrad's DeviceError alike). The epoch count, batch size and workers come
from its command line. CIFAR-10 is written small under ./data (data_fixtures.write_cifar);
torchvision's CIFAR10(download=True) checks the files' MD5 sums and downloads the real set when
they differ, so under PyTorch trainer.py's own main() cannot run on them offline: its train() and
validate() are compared instead, called with the same batches (no shuffling, no random
augmentation) from the same state_dict, which goes both ways (PyTorch's torch.save file loaded
here, glassgrad's checkpoint loaded by PyTorch). hubconf.py downloads the pretrained weights:
not run."""
import contextlib
import io
import os
import re
import subprocess
import sys
from argparse import Namespace

import numpy as np
import pytest

from data_fixtures import write_cifar
from script_sources import checkout, importing_from, needs, port_script, source
from test_ported_scripts import _env

REPO = "pytorch_resnet_cifar10"
CPU_LINES = {
    "    model.cuda()": "    model.cpu()",
    "    criterion = nn.CrossEntropyLoss().cuda()": "    criterion = nn.CrossEntropyLoss().cpu()",
    "        target = target.cuda()": "        target = target.cpu()",
    "        input_var = input.cuda()": "        input_var = input.cpu()",
    "            target = target.cuda()": "            target = target.cpu()",
    "            input_var = input.cuda()": "            input_var = input.cpu()",
    "            target_var = target.cuda()": "            target_var = target.cpu()",
}
# the parameter counts resnet.py's test() prints for each model, as under PyTorch
PARAMETERS = {"resnet20": 269722, "resnet32": 464154, "resnet44": 658586, "resnet56": 853018,
              "resnet110": 1727962, "resnet1202": 19421274}


def _folder(tmp_path, ported=True):
    folder = tmp_path / ("ported" if ported else "original")
    folder.mkdir()
    for name in ("resnet.py", "trainer.py"):
        with open(source(REPO, name), encoding="utf-8") as f:
            text = f.read()
        changes = CPU_LINES if name == "trainer.py" else {}
        if ported:
            text, _ = port_script.port_text(text, changes)
        else:
            lines = text.split("\n")
            text = "\n".join(changes.get(line, line) for line in lines)
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def _run(folder, *args):
    proc = subprocess.run([sys.executable, *args], cwd=folder, capture_output=True, text=True, timeout=900,
                          env=_env(OMP_NUM_THREADS="1"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


@needs(REPO)
def test_resnet_py_counts_each_models_parameters_and_layers(tmp_path):
    out = _run(_folder(tmp_path), "resnet.py")
    for name, count in PARAMETERS.items():
        layers = name[len("resnet"):]
        assert f"{name}\nTotal number of params {count}\nTotal layers {layers}\n" in out, out


@needs(REPO)
def test_trainer_stops_at_model_cuda_without_a_gpu(tmp_path):
    folder = tmp_path / "run"
    port_script.port_tree(checkout(REPO), str(folder))
    proc = subprocess.run([sys.executable, "trainer.py", "--arch", "resnet20"], cwd=folder, capture_output=True,
                          text=True, timeout=300, env=_env())
    assert proc.returncode != 0 and "model.cuda()" in proc.stderr and "DeviceError" in proc.stderr, proc.stderr[-2000:]


@needs(REPO)
def test_trainer_trains_checkpoints_resumes_and_evaluates(tmp_path):
    folder = _folder(tmp_path)
    write_cifar(str(folder / "data"), n_per_batch=20, n_test=24)
    common = ["-j", "2", "-b", "32", "-p", "1", "--save-every", "1"]
    out = _run(folder, "trainer.py", "--arch", "resnet20", "--epochs", "2", *common)
    assert out.startswith("['resnet110', 'resnet1202', 'resnet20', 'resnet32', 'resnet44', 'resnet56']\n"), out
    assert out.count("current lr 1.00000e-01") == 2 and "Epoch: [1][3/4]" in out, out
    assert out.count(" * Prec@1 ") == 2 and "Test: [0/1]" in out, out
    assert sorted(os.listdir(folder / "save_temp")) == ["checkpoint.th", "model.th"]
    # checkpoint.th was saved after epoch 1 ('epoch': 2); resuming builds MultiStepLR with
    # last_epoch=2 for an optimizer whose groups have no 'initial_lr' (the script saves no optimizer
    # state), which PyTorch refuses with this KeyError too
    proc = subprocess.run([sys.executable, "trainer.py", "--arch", "resnet20", "--epochs", "3", "--resume",
                           "save_temp/checkpoint.th", *common], cwd=folder, capture_output=True, text=True,
                          timeout=600, env=_env())
    assert proc.returncode != 0 and "=> loaded checkpoint 'False' (epoch 2)" in proc.stdout, proc.stderr[-2000:]
    assert "KeyError: \"param 'initial_lr' is not specified in param_groups[0] when resuming" in proc.stderr, \
        proc.stderr[-2000:]
    out = _run(folder, "trainer.py", "--arch", "resnet20", "-e", *common)
    assert "Epoch:" not in out and "Test: [0/1]" in out and " * Prec@1 " in out, out


def _modules(folder):
    with importing_from(folder, "resnet", "trainer"), contextlib.redirect_stdout(io.StringIO()):
        import resnet
        import trainer
    trainer.args = Namespace(half=False, print_freq=1)
    return resnet, trainer


def _batches(framework, count=3, size=16, seed=0):
    rng = np.random.default_rng(seed)
    return [(framework.tensor(rng.standard_normal((size, 3, 32, 32)).astype(np.float32)),
             framework.tensor(rng.integers(0, 10, size))) for _ in range(count)]


def _printed(call, *args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = call(*args)
    losses = [float(v) for v in re.findall(r"Loss (\S+) ", out.getvalue())]
    precisions = [float(v) for v in re.findall(r"Prec@1 (\S+) ", out.getvalue())]
    return result, losses, precisions


@needs(REPO)
def test_train_and_validate_match_pytorch_from_the_same_state_dict(tmp_path):
    torch = pytest.importorskip("torch")
    import glassgrad.torch as gg
    torch.manual_seed(0)
    resnet_t, trainer_t = _modules(_folder(tmp_path, ported=False))
    resnet_g, trainer_g = _modules(_folder(tmp_path))
    model_t, model_g = torch.nn.DataParallel(resnet_t.resnet20()), gg.nn.DataParallel(resnet_g.resnet20())
    # PyTorch's file, read here
    torch.save({"state_dict": model_t.state_dict(), "epoch": 0}, tmp_path / "start.th")
    model_g.load_state_dict(gg.load(str(tmp_path / "start.th"))["state_dict"])

    results = {}
    for name, fw, trainer, model in (("torch", torch, trainer_t, model_t), ("glassgrad", gg, trainer_g, model_g)):
        criterion = fw.nn.CrossEntropyLoss()
        optimizer = fw.optim.SGD(model.parameters(), 0.1, momentum=0.9, weight_decay=1e-4)
        _, train_losses, _ = _printed(trainer.train, _batches(fw), model, criterion, optimizer, 0)
        prec, val_losses, _ = _printed(trainer.validate, _batches(fw, seed=1), model, criterion)
        results[name] = (train_losses, val_losses, prec)
    (t_train, t_val, t_prec), (g_train, g_val, g_prec) = results["torch"], results["glassgrad"]
    assert len(g_train) == 3 and g_train == pytest.approx(t_train, rel=1e-3), (g_train, t_train)
    assert g_val == pytest.approx(t_val, rel=1e-3) and g_prec == t_prec, (g_val, t_val, g_prec, t_prec)

    # glassgrad's checkpoint, read by PyTorch: the trained weights and BatchNorm statistics
    trainer_g.save_checkpoint({"state_dict": model_g.state_dict(), "best_prec1": g_prec}, False,
                              filename=str(tmp_path / "trained.th"))
    loaded = torch.load(tmp_path / "trained.th")
    assert sorted(loaded["state_dict"]) == sorted(model_t.state_dict())
    ours = model_g.state_dict()
    for key, value in model_t.state_dict().items():
        np.testing.assert_array_equal(loaded["state_dict"][key].numpy(), ours[key].numpy(), err_msg=key)
        # PyTorch's own float32 gradients of the first layers are off by up to 1e-2 of the largest
        # (against float64) on some initial weights, where glassgrad's stay within 1e-6: three
        # steps at lr 0.1 leave the weights apart by up to about 1e-3
        np.testing.assert_allclose(ours[key].numpy(), value.numpy(), rtol=1e-2, atol=3e-3, err_msg=key)
    model_t.load_state_dict(loaded["state_dict"])
    prec, losses, _ = _printed(trainer_t.validate, _batches(torch, seed=1), model_t, torch.nn.CrossEntropyLoss())
    assert prec == g_prec and losses == pytest.approx(g_val, rel=1e-3)
