"""aladdinpersson/Machine-Learning-Collection (ML/Pytorch: the small scripts of a YouTube course),
run with their imports changed only from $GLASSGRAD_SCRIPT_SOURCES/Machine-Learning-Collection
(script_sources.py; without it these tests skip). Each script runs in a ported copy of its folder
with MNIST (256 training, 64 test images) and CIFAR-10 (40 images a batch file) written under
./dataset and ./ds, where its `download=True` finds them; the epochs are the scripts' own.

Every script here also ran under PyTorch 2.14.1 on the same files (a driver outside the
repository): the same ones finish, and the printouts no random number decides are PyTorch's, with
`glassgrad.` for `torch.` in dtype and Size names (docs/porting.md)."""
import os
import subprocess
import sys

import pytest

from data_fixtures import write_cifar, write_mnist
from script_sources import needs, port_script, source
from test_ported_scripts import _env

REPO = "Machine-Learning-Collection"
BASICS = "ML/Pytorch/Basics"
CNNS = "ML/Pytorch/CNN_architectures"

# script -> lines its printout has (the ones PyTorch's run prints alike)
SCRIPTS = {
    f"{BASICS}/pytorch_tensorbasics.py": [
        "Shape of tensor glassgrad.Size([2, 3])\nRequires gradient: True\n"
        "Converted Boolean: tensor([False,  True,  True,  True])\n"
        "Converted int16 tensor([0, 1, 2, 3], dtype=glassgrad.int16)\nConverted int64 tensor([0, 1, 2, 3])\n"
        "Converted float16 tensor([0., 1., 2., 3.], dtype=glassgrad.float16)\n"
        "Converted float32 tensor([0., 1., 2., 3.])",
        "tensor([0, 2, 4, 6, 8])\ntensor([ 0,  2,  4,  6,  8, 10,  6,  7,  8,  9])\n1\n10\nFalse\n"
        "tensor([0, 3, 6, 1, 4, 7, 2, 5, 8])\nglassgrad.Size([4, 5])\nglassgrad.Size([2, 10])\n"
        "glassgrad.Size([64, 1, 5])\nglassgrad.Size([64, 1, 5])\nglassgrad.Size([1, 10])\nglassgrad.Size([10, 1])"],
    f"{BASICS}/pytorch_init_weights.py": ["Parameter containing:"],
    f"{BASICS}/pytorch_simple_fullynet.py": ["Accuracy on training set:", "Accuracy on test set:"],
    f"{BASICS}/pytorch_simple_CNN.py": ["Accuracy on training set:", "Accuracy on test set:"],
    f"{BASICS}/pytorch_std_mean.py": ["tensor([0.50", "tensor([0.2"],
    f"{BASICS}/pytorch_transforms.py": ["Cost at epoch 4 is", "Got "],
    f"{BASICS}/pytorch_tensorboard_.py": [],
    f"{BASICS}/pytorch_rnn_gru_lstm.py": ["Accuracy on test set:"],
    f"{BASICS}/pytorch_bidirectional_lstm.py": ["Checking accuracy on test data"],
    f"{CNNS}/lenet5_pytorch.py": ["glassgrad.Size([64, 10])"],
    f"{CNNS}/pytorch_inceptionet.py": ["glassgrad.Size([3, 1000])"],
    f"{CNNS}/pytorch_efficientnet.py": ["glassgrad.Size([4, 10])"],
    f"{CNNS}/pytorch_vgg_implementation.py": [],
}
# over ~20 s on a loaded 2-core CPU
SLOW = {f"{BASICS}/pytorch_rnn_gru_lstm.py", f"{BASICS}/pytorch_bidirectional_lstm.py",
        f"{BASICS}/pytorch_tensorboard_.py", f"{CNNS}/pytorch_vgg_implementation.py"}
# script -> the last line of its error, as PyTorch 2.14.1's run of it ends
STOPS = {
    # verbose= was removed from the schedulers in PyTorch 2.7
    f"{BASICS}/pytorch_lr_ratescheduler.py": "unexpected keyword argument 'verbose'",
    # vgg16(pretrained=True): a download in PyTorch (URLError offline)
    f"{BASICS}/pytorch_pretrain_finetune.py": "glassgrad.load reads PyTorch's files",
    # test() moves the output to "cuda"
    f"{CNNS}/pytorch_resnet.py": "use device='cpu'",
}


def _run(tmp_path, script):
    folder = tmp_path / "run"
    port_script.port_tree(source(REPO, os.path.dirname(script)), str(folder))
    for root in ("dataset", "ds"):
        write_mnist(str(folder / root), n_train=256, n_test=64)
        write_cifar(str(folder / root), n_per_batch=40, n_test=40)
    return subprocess.run([sys.executable, os.path.basename(script)], cwd=folder, capture_output=True, text=True,
                          timeout=900, env=_env(MPLBACKEND="Agg", HTTP_PROXY="http://127.0.0.1:9",
                                                HTTPS_PROXY="http://127.0.0.1:9"))


@needs(REPO)
@pytest.mark.parametrize("script", [pytest.param(s, marks=[pytest.mark.slow] if s in SLOW else [])
                                    for s in sorted(SCRIPTS)])
def test_scripts_run_to_their_end_as_under_pytorch(tmp_path, script):
    pytest.importorskip("matplotlib")
    if "tensorboard" in script:
        pytest.importorskip("tensorboard")
    proc = _run(tmp_path, script)
    assert proc.returncode == 0, f"{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    for shown in SCRIPTS[script]:
        assert shown in proc.stdout, (shown, proc.stdout[-3000:])


@needs(REPO)
@pytest.mark.parametrize("script", sorted(STOPS))
def test_scripts_stop_where_pytorch_stops(tmp_path, script):
    proc = _run(tmp_path, script)
    assert proc.returncode != 0 and STOPS[script] in proc.stderr.strip().split("\n")[-1] + proc.stderr[-600:], \
        proc.stderr[-3000:]
