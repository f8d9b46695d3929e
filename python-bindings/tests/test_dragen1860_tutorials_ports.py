"""dragen1860/Deep-Learning-with-PyTorch-Tutorials (the scripts of a Chinese-language video course),
run with their imports changed only from $GLASSGRAD_SCRIPT_SOURCES/dragen1860-deep-learning-tutorials
(script_sources.py; without it these tests skip), each in a ported copy of its lesson's folder with
MNIST (256 training, 64 test images) and CIFAR-10 (40 images a batch file) written where it reads
them. Lines changed beyond the imports, named in RUNS: the epoch count (`epochs=10` to 1, the
CIFAR-10 ResNet's `range(1000)` to 1) and lesson 45's `torch.device('cuda')`, which would stop
it at once without a GPU.

Every script here also ran under PyTorch 2.14.1 on the same files (a driver outside the
repository): RUNS end as PyTorch's runs end, printing the lines checked alike, except where
DIFFERS says why; STOPS stop where PyTorch's runs stop, for the same cause (visdom, torchnlp and
torchtext are not installed, the GCN's Cora files and the Pokemon images are not written here,
lessons 28-29 and 43 ask for a GPU, lesson 32 splits 60000 images by fixed sizes, lesson 53 is
Python 2). Lesson 49's series fit (6000 steps) is left out for its time."""
import os
import subprocess
import sys

import pytest

from data_fixtures import write_cifar, write_mnist
from script_sources import checkout, needs, port_script
from test_ported_scripts import _env

REPO = "dragen1860-deep-learning-tutorials"
NO_GPU = "CUDA device cuda:0 cannot be used"  # glassgrad's DeviceError where PyTorch finds no driver
NO_VISDOM = "No module named 'visdom'"

# script -> (folders under the lesson's copy to write the data sets in, {line: new line}, lines printed)
RUNS = {
    "lesson01-PyTorch初见/autograd_demo.py": ([], {}, ["before: None None None\nafter : tensor(2.) tensor(1.) tensor(1.)"]),
    "lesson02-开发环境安装/main.py": ([], {}, []),
    "lesson04-简单回归案例实战/gd.py": ([], {}, ["After 1000 iterations b = 0.0889365199374", "m = 1.477744085189"]),
    "lesson05-手写数字问题/mnist_train.py": (["mnist_data"], {}, ["glassgrad.Size([256, 1, 28, 28]) glassgrad.Size([256])",
                                                             "test acc:"]),
    "lesson26-LR多分类实战/main.py": (["../data"], {"epochs=10": "epochs=1"}, ["Test set: Average loss:"]),
    "lesson27-MLP网络层/main.py": (["../data"], {"epochs=10": "epochs=1"}, ["Test set: Average loss:"]),
    "lesson45-Cifar10与ResNet18实战/lenet5.py": ([], {}, ["lenet out: glassgrad.Size([2, 10])"]),
    "lesson45-Cifar10与ResNet18实战/resnet.py": ([], {}, ["resnet: glassgrad.Size([2, 10])"]),
    "lesson45-Cifar10与ResNet18实战/main.py": (["cifar"], {"    device = torch.device('cuda')": "    device = torch.device('cpu')",
                                                         "    for epoch in range(1000):": "    for epoch in range(1):"},
                                             ["x: glassgrad.Size([128, 3, 32, 32]) label: glassgrad.Size([128])", "0 test acc:"]),
    "lesson48-RNN-Layer使用/rnn.py": ([], {}, ["RNN(100, 20, num_layers=4)\nglassgrad.Size([10, 3, 20]) "
                                                 "glassgrad.Size([4, 3, 20])\nrnn by cell"]),
    "lesson55-VAE实战/ae.py": ([], {}, []),
    "lesson55-VAE实战/vae.py": ([], {}, []),
}
# script -> {why glassgrad's run differs from PyTorch's}
DIFFERS = {
    "lesson45-Cifar10与ResNet18实战/main.py": "`iter(cifar_train).next()` runs: glassgrad's loader iterators keep the "
                                            "`.next()` PyTorch removed in 1.13 (scripts of that time call it); "
                                            "PyTorch raises AttributeError there",
}
# script -> (folders to write the data sets in, the end of its error output)
STOPS = {
    "lesson01-PyTorch初见/gpu_accelerate.py": ([], NO_GPU),
    # Axes3D through fig.gca(projection='3d'), which Matplotlib 3.6 removed
    "lesson22-优化小实例/main.py": ([], "unexpected keyword argument 'projection'"),
    "lesson28-激活函数与GPU加速/main.py": (["../data"], NO_GPU),
    "lesson29-MNIST测试/main.py": (["../data"], NO_GPU),
    "lesson30-Visdom可视化/main.py": (["../data"], NO_VISDOM),
    "lesson32-Train-Val-Test-交叉验证/main.py": (["../data"], "Sum of input lengths does not equal the length of the input dataset!"),
    "lesson33-regularization/main.py": (["../data"], NO_VISDOM),
    "lesson35-Early-stopping-Dropout/main.py": (["../data"], NO_VISDOM),
    "lesson43-nn.Module/main.py": ([], NO_GPU),
    "lesson44-数据增强/main.py": (["../data"], NO_VISDOM),
    "lesson46-时间序列表示/main.py": ([], "No module named 'torchnlp'"),
    "lesson53-情感分类实战/lstm.py": ([], "SyntaxError: invalid syntax"),
    "lesson55-VAE实战/main.py": (["mnist"], NO_VISDOM),
    "lesson57-WGAN实战/gan.py": ([], NO_VISDOM),
    "lesson57-WGAN实战/wgan_gp.py": ([], NO_VISDOM),
    "lesson58-图卷积网络GCN/train.py": ([], "./data/cora/cora.content not found."),
    "lesson63-迁移学习-自定义数据集实战/train_scratch.py": ([], NO_VISDOM),
    "lesson63-迁移学习-自定义数据集实战/train_transfer.py": ([], NO_VISDOM),
}


def _run(tmp_path, script, folders, changes=None):
    """Runs the script ported (and changed) in a copy of its lesson's folder (tmp_path/lesson),
    the data sets written under each of folders; returns the finished process."""
    pytest.importorskip("matplotlib")
    lesson, name = os.path.split(script)
    folder = tmp_path / "lesson"
    port_script.port_tree(os.path.join(checkout(REPO), lesson), str(folder))
    if changes:
        port_script.port_file(os.path.join(checkout(REPO), script), str(folder / name), changes)
    for data in folders:
        write_mnist(str(folder / data), n_train=256, n_test=64)
        write_cifar(str(folder / data), n_per_batch=40, n_test=40)
    return subprocess.run([sys.executable, name], cwd=folder, capture_output=True, text=True, timeout=900,
                          env=_env(MPLBACKEND="Agg"))


@needs(REPO)
@pytest.mark.parametrize("script", sorted(RUNS))
def test_scripts_run_to_their_end(tmp_path, script):
    folders, changes, shown = RUNS[script]
    proc = _run(tmp_path, script, folders, changes)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for line in shown:
        assert line in proc.stdout, (line, proc.stdout[-3000:])


@needs(REPO)
@pytest.mark.parametrize("script", sorted(STOPS))
def test_scripts_stop_where_pytorch_stops(tmp_path, script):
    folders, end = STOPS[script]
    proc = _run(tmp_path, script, folders)
    assert proc.returncode != 0 and end in proc.stderr[-1500:], proc.stderr[-3000:]
