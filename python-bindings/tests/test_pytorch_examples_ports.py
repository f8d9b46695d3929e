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


# gymnasium's CartPole-v1 stand-in (gymnasium is not a test dependency): 4 numbers of state, 2
# actions, episodes of at most 40 steps; a reward threshold of 20 ends the scripts' endless
# episode loops once the running reward passes it ("Solved!"), as 475 does for the real one.
FAKE_GYMNASIUM = '''import numpy as np
class _Spec:
    reward_threshold = 20.0
class _CartPole:
    spec = _Spec()
    def reset(self, seed=None):
        if seed is not None or not hasattr(self, "rng"):
            self.rng = np.random.default_rng(seed)
        self.t, self.state = 0, self.rng.uniform(-0.05, 0.05, 4)
        return self.state.copy(), {}
    def step(self, action):
        self.t += 1
        self.state = self.state + (0.02 if action == 1 else -0.02) + self.rng.normal(0, 0.01, 4)
        return self.state.copy(), 1.0, bool(abs(self.state[2]) > 0.2 or self.t >= 40), False, {}
    def render(self):
        pass
def make(name, render_mode=None):
    assert name == "CartPole-v1", name
    return _CartPole()
'''


@pytest.mark.parametrize("script", ["reinforce.py", "actor_critic.py"])
def test_reinforcement_learning_runs_with_its_imports_changed_only(tmp_path, script):
    """Categorical sampling, log_prob, returns normalized by std, the policy gradient step (both
    ran under PyTorch 2.14.1 on this stand-in too, to "Solved!")."""
    folder, fake = tmp_path / "rl", tmp_path / "fake"
    fake.mkdir()
    (fake / "gymnasium.py").write_text(FAKE_GYMNASIUM)
    changed = port(os.path.join(EXAMPLES, "reinforcement_learning", script), folder / script)
    assert all(a.startswith(("import torch", "from torch")) for a, _ in changed) and changed
    out = run(folder, script, "--log-interval", "1", path=[fake])
    assert "Episode 1\tLast reward:" in out and "Solved! Running reward is now" in out, out[-2000:]


def _images(folder, n, size, seed=0):
    from PIL import Image
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        Image.fromarray(rng.integers(0, 256, (size, size + 8, 3), dtype=np.uint8)).save(folder / f"{i}.jpg")


def test_fast_neural_style_stylizes_with_a_saved_model_and_stops_at_vgg16_weights_in_training(tmp_path):
    """eval: a TransformerNet state_dict (InstanceNorm layers, upsampling convolutions) loaded
    after the script drops old running-statistics keys, an image written; the output matches
    PyTorch's on the same file and weights (checked outside the tests). train: vgg16(weights=
    IMAGENET1K_V1) needs a download in PyTorch (URLError offline); glassgrad refuses it naming the fix."""
    pytest.importorskip("PIL")
    folder = tmp_path / "fns"
    changed = port_script.port_tree(os.path.join(EXAMPLES, "fast_neural_style", "neural_style"), str(folder))
    assert sum(len(c) for c in changed.values()) == 10  # import lines only
    _images(tmp_path / "content", 1, 36)
    sys.path.insert(0, str(folder))
    try:
        from transformer_net import TransformerNet
        gg.manual_seed(0)
        gg.save(TransformerNet().state_dict(), str(tmp_path / "style.pth"))
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("transformer_net", None)
    out = run(tmp_path, str(folder / "neural_style.py"), "eval", "--content-image", str(tmp_path / "content" / "0.jpg"),
              "--output-image", str(tmp_path / "out.png"), "--model", str(tmp_path / "style.pth"))
    assert "Using device: cpu" in out and (tmp_path / "out.png").exists()
    _images(tmp_path / "train" / "a", 2, 40)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([BINDINGS, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, str(folder / "neural_style.py"), "train", "--dataset", str(tmp_path / "train"),
                           "--style-image", str(tmp_path / "content" / "0.jpg"), "--save-model-dir",
                           str(tmp_path / "models"), "--epochs", "1", "--image-size", "32", "--batch-size", "2"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode != 0
    assert "vgg16(weights=VGG16_Weights.IMAGENET1K_V1): glassgrad bundles no pretrained weights" in done.stderr
    assert "fix: model = vgg16(weights=None); model.load_state_dict(" in done.stderr


@pytest.mark.parametrize("script", ["invert.py", "replace_op.py", "module_tracer.py", "subgraph_rewriter_basic_use.py"])
def test_fx_examples_stop_at_their_import_naming_what_is_left_out(tmp_path, script):
    """torch.fx has no glassgrad counterpart (docs/porting.md, "Modules glassgrad leaves out"):
    the scripts run under PyTorch and stop here at their first torch.fx import, with the reason."""
    port(os.path.join(EXAMPLES, "fx", script), tmp_path / script)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([BINDINGS, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    last = done.stderr.strip().split("\n")
    assert last[-2].startswith("ModuleNotFoundError: No module named 'glassgrad.fx': glassgrad leaves out torch.fx"), \
        done.stderr[-2000:]
    assert last[-1].startswith("  fix: run the module itself")


def test_ddp_tutorial_series_single_gpu_names_the_missing_gpu_and_multigpu_finds_none(tmp_path):
    """single_gpu.py moves its model to device 0 (cuda:0): PyTorch on a CPU machine raises
    RuntimeError (no NVIDIA driver), glassgrad its DeviceError with the fix. multigpu.py spawns
    torch.cuda.device_count() processes: none without a GPU, and it ends at once in both."""
    folder = tmp_path / "ddp"
    port_script.port_tree(os.path.join(EXAMPLES, "distributed", "ddp-tutorial-series"), str(folder))
    if gg.cuda.is_available():
        pytest.skip("a usable GPU: single_gpu.py would train on it")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([BINDINGS, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "single_gpu.py", "2", "1"], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode != 0 and "DeviceError: CUDA device cuda:0 cannot be used" in done.stderr
    assert "fix: use device='cpu'" in done.stderr
    assert run(folder, "multigpu.py", "2", "1") == ""
