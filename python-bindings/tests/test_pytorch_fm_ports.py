"""rixwew/pytorch-fm (torchfm: 16 click-through-rate models, factorization machines to AutoInt and
AFN, with their Criteo, Avazu and MovieLens datasets), ported on the fly with its imports changed
only from $GLASSGRAD_SCRIPT_SOURCES/pytorch-fm (script_sources.py; without it these tests skip).
No line of the repository is changed.

Each model examples/main.py's get_model builds is built under PyTorch (the original package) and
here (the ported one) on four fields; PyTorch's state_dict is loaded into ours and both give the
same outputs in eval mode and the same gradients of a BCELoss in train mode (dropout 0 where the
model's sizes fix it; main.py's models with dropout run in eval mode). examples/main.py then
trains DeepFM two epochs on a small Criteo train.txt (its lmdb cache built by CriteoDataset, its
eight loader workers as written) and the repository's test/test_layers.py passes. Needs lmdb,
tqdm and scikit-learn; MovieLensDataset reads NumPy's removed `np.int`, and stops under PyTorch
too."""
import os
import subprocess
import sys

import numpy as np
import pytest

from script_sources import checkout, importing_from, needs, port_script, source
from test_ported_scripts import _env

REPO = "pytorch-fm"
MODELS = ["lr", "fm", "hofm", "ffm", "fnn", "wd", "ipnn", "opnn", "dcn", "nfm", "fnfm", "dfm", "xdfm", "afm", "afi",
          "afn"]
FIELDS = np.array([7, 5, 9, 4])


def _python(folder, *args):
    env = _env()  # torchfm importable as setup.py installs it
    env["PYTHONPATH"] = os.pathsep.join((str(folder), env["PYTHONPATH"]))
    proc = subprocess.run([sys.executable, *args], cwd=folder, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def ported(tmp_path_factory):
    pytest.importorskip("lmdb")
    pytest.importorskip("tqdm")
    pytest.importorskip("sklearn")
    folder = tmp_path_factory.mktemp("fm") / "run"
    report = port_script.port_tree(source(REPO, "."), str(folder))
    assert all(old.startswith(("import torch", "from torch")) for lines in report.values() for _, old, _ in lines)
    return folder


class _Dataset:
    field_dims = FIELDS
    user_field_idx = np.array((0,))
    item_field_idx = np.array((1,))


def _run(torch, where, name, state=None):
    """get_model(name)'s eval outputs, then its train-mode BCELoss and gradients, and its state."""
    with importing_from(str(where), "torchfm"), importing_from(str(where / "examples"), "main"):
        import main
        torch.manual_seed(0)
        model = main.get_model(name, _Dataset())
    if state is not None:
        model.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()})
    initial = {k: v.numpy().copy() for k, v in model.state_dict().items()}  # before train mode moves BatchNorm's
    rng = np.random.default_rng(0)
    x = torch.from_numpy(np.stack([rng.integers(0, d, 16) for d in FIELDS], 1))
    target = torch.from_numpy(rng.integers(0, 2, 16).astype(np.float32))
    model.eval()
    with torch.no_grad():
        y = model(x).numpy()
    for m in model.modules():  # the gradients compared without dropout's draws
        if isinstance(m, torch.nn.Dropout):
            m.p = 0.0
        if type(m).__name__ == "AttentionalFactorizationMachine":  # F.dropout with its dropouts
            m.dropouts = (0.0, 0.0)
    model.train()
    loss = torch.nn.BCELoss()(model(x), target)
    loss.backward()
    grads = {n: p.grad.numpy() for n, p in model.named_parameters() if p.grad is not None}
    return y, loss.item(), grads, initial


@needs(REPO)
@pytest.mark.parametrize("name", MODELS)
def test_model_gives_pytorchs_outputs_and_gradients(ported, name):
    torch = pytest.importorskip("torch")
    import glassgrad.torch as gtorch
    from pathlib import Path
    yt, lt, gt, state = _run(torch, Path(checkout(REPO)), name)
    yg, lg, gg, _ = _run(gtorch, ported, name, state)
    np.testing.assert_allclose(yg, yt, rtol=1e-4, atol=1e-6)
    assert abs(lg - lt) < 1e-5 * max(1.0, abs(lt))
    assert sorted(gg) == sorted(gt)
    for k in gt:
        np.testing.assert_allclose(gg[k], gt[k], rtol=1e-3, atol=1e-6, err_msg=k)


@needs(REPO)
def test_main_trains_deepfm_on_a_criteo_file(ported):
    rng = np.random.default_rng(0)
    lines = []
    for _ in range(300):  # label, 13 integer features (some missing), 26 hashed categories
        ints = [str(rng.integers(0, 50)) if rng.random() > 0.1 else "" for _ in range(13)]
        lines.append("\t".join([str(rng.integers(0, 2))] + ints + ["%08x" % rng.integers(0, 12) for _ in range(26)]))
    (ported / "train.txt").write_text("\n".join(lines) + "\n")
    (ported / "chkpt").mkdir()
    out = _python(ported, "examples/main.py", "--dataset_name", "criteo", "--dataset_path", "train.txt",
                  "--model_name", "dfm", "--epoch", "2", "--device", "cpu", "--batch_size", "64")
    aucs = [float(line.split("auc:")[1]) for line in out.splitlines() if "validation: auc:" in line]
    assert len(aucs) == 2 and all(0 <= a <= 1 for a in aucs) and "test auc: " in out
    assert (ported / ".criteo").is_dir() and (ported / "chkpt" / "dfm.pt").is_file()


@needs(REPO)
def test_repository_layer_tests_pass(ported):
    out = _python(ported, "-m", "pytest", "-p", "no:cacheprovider", "-q", "test")
    assert "3 passed" in out
