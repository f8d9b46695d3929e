"""pytorch/examples' scripts run with their imports changed only (docs/porting.md, "Scripts run
with their imports changed only"), ported by tools/port_script.py from a checkout at
$GLASSGRAD_SCRIPT_SOURCES/pytorch-examples (script_sources.py; without it these tests skip,
saying how to run them) and run at a small size on data the test writes."""
import os
import subprocess
import sys
import tarfile

import numpy as np
import pytest

import glassgrad as gg
from data_fixtures import write_mnist
from script_sources import checkout, needs, port_script

pytestmark = needs("pytorch-examples")
EXAMPLES = checkout("pytorch-examples") or ""

# Where the glassgrad under test lives: the source tree in a dev build, site-packages when the
# tests run against the installed package (tools/run_tests.sh).
BINDINGS = os.path.dirname(os.path.dirname(os.path.abspath(gg.__file__)))


def port(source, target):
    """Ports source to target with tools/port_script.py; returns the (before, after) lines changed."""
    return [(old, new) for _, old, new in port_script.port_file(source, target)]


def run(folder, script, *args, path=(), **env_extra):
    # path (the fake modules a test writes) comes first: BINDINGS may be site-packages, which
    # holds the real ones.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([*map(str, path), BINDINGS, os.environ.get("PYTHONPATH", "")]),
               **env_extra)
    done = subprocess.run([sys.executable, script, *args], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    return done.stdout


def test_mnist_forward_forward_runs_with_its_imports_changed_only(tmp_path):
    changed = port(os.path.join(EXAMPLES, "mnist_forward_forward", "main.py"), tmp_path / "main.py")
    assert [a for a, _ in changed] == [
        "import torch", "import torch.nn as nn", "from torchvision.datasets import MNIST",
        "from torchvision.transforms import Compose, ToTensor, Normalize, Lambda",
        "from torch.utils.data import DataLoader", "from torch.optim import Adam"]
    write_mnist(str(tmp_path / "data"), n_train=32, n_test=16)
    out = run(tmp_path, "main.py", "--epochs", "3", "--train_size", "32", "--test_size", "16",
              "--log-interval", "1")
    assert "training layer:  1" in out and "test error:" in out


def test_mnist_hogwild_runs_with_its_imports_changed_only(tmp_path):
    folder = tmp_path / "mnist_hogwild"
    folder.mkdir()
    changed = port(os.path.join(EXAMPLES, "mnist_hogwild", "main.py"), folder / "main.py")
    changed += port(os.path.join(EXAMPLES, "mnist_hogwild", "train.py"), folder / "train.py")
    assert len(changed) == 9
    write_mnist(str(tmp_path / "data"), n_train=64, n_test=16)  # the script reads ../data
    out = run(folder, "main.py", "--epochs", "1", "--batch-size", "16", "--test-batch-size", "16",
              "--num-processes", "2", "--log-interval", "1")
    assert out.count("Train Epoch: 1 [48/64") == 2 and "Test set: Average loss:" in out


# requests.get(url, stream=True) serving a local archive: the scripts download Cora, tests have no network.
FAKE_REQUESTS = '''import os
class _Response:
    def __init__(self):
        self.raw = open(os.environ["FAKE_DOWNLOAD"], "rb")
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        self.raw.close()
def get(url, stream=False, **kwargs):
    return _Response()
'''


def write_cora(folder, n=1600, features=12, edges=3000, seed=0):
    """cora.tgz holding cora/cora.content (id, binary features, class) and cora/cora.cites (id
    pairs), Cora's layout; n > 1500 (gcn) or 1600 (gat): their splits keep that many test and
    validation nodes before the training ones."""
    rng = np.random.default_rng(seed)
    ids = rng.choice(10**6, n, replace=False)
    src = folder / "src" / "cora"
    src.mkdir(parents=True)
    with open(src / "cora.content", "w") as f:
        for i in ids:
            f.write("\t".join([str(i), *map(str, rng.integers(0, 2, features)), "ABC"[rng.integers(3)]]) + "\n")
    with open(src / "cora.cites", "w") as f:
        for _ in range(edges):
            a, b = rng.choice(ids, 2, replace=False)
            f.write(f"{a}\t{b}\n")
    with tarfile.open(folder / "cora.tgz", "w:gz") as t:
        t.add(src, arcname="cora")
    return folder / "cora.tgz"


@pytest.mark.parametrize("name, nodes, args", [
    ("gcn", 1600, ()), ("gat", 1700, ("--hidden-dim", "8", "--num-heads", "2"))])
def test_graph_network_runs_with_its_imports_changed_only(tmp_path, name, nodes, args):
    folder, fake = tmp_path / name, tmp_path / "fake"
    folder.mkdir()
    fake.mkdir()
    (fake / "requests.py").write_text(FAKE_REQUESTS)
    changed = port(os.path.join(EXAMPLES, name, "main.py"), folder / "main.py")
    assert [a for a, _ in changed] == ["import torch", "from torch import nn", "import torch.nn.functional as F",
                                       "from torch.optim import Adam"]
    archive = write_cora(tmp_path, n=nodes)
    out = run(folder, "main.py", "--epochs", "2", "--val-every", "1", *args, path=[fake], FAKE_DOWNLOAD=str(archive))
    assert out.count("loss_train:") == 2 and "nan" not in out and "Test set results:" in out
