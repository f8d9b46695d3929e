"""zfjsail/gae-pytorch (the graph auto-encoder of Kipf and Welling: a GCN encoder over a
torch.sparse.FloatTensor adjacency, an inner-product decoder, trained on the Cora files the
repository carries under gae/data), ported on the fly from $GLASSGRAD_SCRIPT_SOURCES/gae-pytorch
(script_sources.py; without it these tests skip). It needs SciPy, NetworkX and scikit-learn:
without them the tests skip.

Unedited, train.py stops at F.binary_cross_entropy_with_logits(..., pos_weight=<a NumPy
float>) with PyTorch's TypeError, as under PyTorch 2.14.1; with that argument made
torch.tensor(pos_weight) it trains, validates and tests. train.py draws its held-out edges from
NumPy's unseeded generator and asserts on them, which fails now and then under PyTorch too: the
tests run it with NumPy seeded first."""
import os
import re
import subprocess
import sys

import pytest

from script_sources import checkout, needs, port_script
from test_ported_scripts import _env

REPO = "gae-pytorch"
LOSS = "    cost = norm * F.binary_cross_entropy_with_logits(preds, labels, pos_weight=pos_weight)"
# train.py run with NumPy's global generator seeded (the script never seeds it)
SEEDED = ("import runpy, sys, numpy; numpy.random.seed(0); sys.argv = ['train.py', '--epochs', '2']; "
          "runpy.run_path('train.py', run_name='__main__')")


def _run(tmp_path, changes=None):
    for name in ("scipy", "networkx", "sklearn"):
        pytest.importorskip(name)
    folder = tmp_path / "run"
    port_script.port_tree(checkout(REPO), str(folder))
    for old, new in (changes or {}).items():
        port_script.port_file(os.path.join(checkout(REPO), "gae", "optimizer.py"), str(folder / "gae" / "optimizer.py"),
                              {old: new})
    env = _env()
    env["PYTHONPATH"] = os.pathsep.join([str(folder), env["PYTHONPATH"]])   # train.py imports gae.model
    return subprocess.run([sys.executable, "-c", SEEDED], cwd=folder / "gae", capture_output=True, text=True,
                          timeout=900, env=env)


@needs(REPO)
def test_train_stops_at_a_numpy_pos_weight_as_under_pytorch(tmp_path):
    proc = _run(tmp_path)
    assert proc.returncode != 0
    assert ("binary_cross_entropy_with_logits(): argument 'pos_weight' (position 4) must be Tensor, not "
            "numpy.float64") in proc.stderr, proc.stderr[-2000:]


@needs(REPO)
def test_train_validates_and_tests_with_a_tensor_pos_weight(tmp_path):
    proc = _run(tmp_path, {LOSS: LOSS.replace("pos_weight=pos_weight", "pos_weight=torch.tensor(pos_weight)")})
    assert proc.returncode == 0, proc.stderr[-3000:]
    epochs = re.findall(r"Epoch: (\d{4}) train_loss= ([\d.]+) val_ap= ([\d.]+)", proc.stdout)
    assert [e[0] for e in epochs] == ["0001", "0002"], proc.stdout
    assert "Optimization Finished!" in proc.stdout and re.search(r"Test ROC score: 0\.\d+\nTest AP score: 0\.\d+",
                                                                 proc.stdout), proc.stdout
