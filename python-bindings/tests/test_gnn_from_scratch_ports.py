"""Graph networks written without a graph library, ported on the fly with their imports changed
only: tkipf/pygcn (a GCN whose adjacency is a torch.sparse.FloatTensor, multiplied with
torch.spmm) and Diego999/pyGAT (a dense GAT and a sparse one, whose custom autograd Function saves
a sparse_coo_tensor and reads its _indices() in backward), from $GLASSGRAD_SCRIPT_SOURCES/pygcn and
$GLASSGRAD_SCRIPT_SOURCES/pyGAT (script_sources.py; without them these tests skip).

Both train.py scripts read Cora's files (data/cora/cora.content, cora.cites), which the tests
write: a 1,600-node graph of 3 classes (their splits take nodes up to 1,500). Under PyTorch 2.14.1 the same
runs print the same lines (pygcn also PyTorch's deprecation warning for the sparse constructor),
and pyGAT's sparse layer gives PyTorch's outputs and gradients from the same weights
(test_sparse_gat_layer_matches_pytorchs, where torch is installed)."""
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from script_sources import checkout, importing_from, needs, port_script
from test_ported_scripts import _env
from test_pytorch_examples_ports import write_cora


def _ported_with_cora(tmp_path, repo, data):
    """The repository ported into tmp_path/run with Cora's files at run/<data>/cora."""
    pytest.importorskip("scipy")
    folder = tmp_path / "run"
    port_script.port_tree(checkout(repo), str(folder))
    write_cora(tmp_path / "cora")   # Cora's layout, 3 classes
    shutil.copytree(tmp_path / "cora" / "src" / "cora", folder / data / "cora")
    return folder


def _train(cwd, *args, path=None):
    env = _env()
    if path:
        env["PYTHONPATH"] = os.pathsep.join([str(path), env["PYTHONPATH"]])
    proc = subprocess.run([sys.executable, "train.py", *args], cwd=cwd, capture_output=True, text=True, timeout=900,
                          env=env)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return proc.stdout, proc.stderr


def _losses(stdout):
    return [float(x) for x in re.findall(r"loss_train: ([\d.]+)", stdout)]


@needs("pygcn")
def test_pygcn_trains_on_a_sparse_adjacency_and_tests(tmp_path):
    folder = _ported_with_cora(tmp_path, "pygcn", "data")
    stdout, stderr = _train(folder / "pygcn", "--epochs", "4", path=folder)   # it imports pygcn.utils
    assert "torch.sparse.SparseTensor(indices, values, shape, *, device=) is deprecated" in stderr
    assert stdout.count("Epoch: ") == 4 and "Optimization Finished!" in stdout, stdout
    assert re.search(r"Test set results: loss= [\d.]+ accuracy= [\d.]+", stdout), stdout
    assert len(set(_losses(stdout))) > 1, stdout   # the parameters move


@needs("pyGAT")
@pytest.mark.parametrize("sparse", [False, True])
def test_pygat_trains_keeps_the_best_epoch_and_tests(tmp_path, sparse):
    folder = _ported_with_cora(tmp_path, "pyGAT", "data")
    stdout, _ = _train(folder, "--epochs", "3", "--hidden", "4", "--nb_heads", "2", *(["--sparse"] if sparse else []))
    losses = _losses(stdout)
    assert len(losses) == 3 and "Optimization Finished!" in stdout, stdout
    # xavier_normal_(W.data) fills the zeros the parameters start from: log(3), uniform outputs
    # over the 3 classes, is what the zeros give
    assert all(abs(loss - np.log(3)) > 1e-4 for loss in losses), stdout
    assert re.search(r"Loading \dth epoch\nTest set results: loss= [\d.]+ accuracy= [\d.]+", stdout), stdout
    assert len([f for f in os.listdir(folder) if f.endswith(".pkl")]) == 1   # the best epoch's state_dict


def _sparse_layer(lib, folder, state):
    """SpGraphAttentionLayer(5 -> 3) of `folder`'s layers.py under `lib` with `state`, on a small
    graph: its output and the gradients of their weighted sum."""
    with importing_from(folder, "layers"):
        from layers import SpGraphAttentionLayer
        layer = SpGraphAttentionLayer(5, 3, dropout=0.0, alpha=0.2, concat=True)
    if state is None:
        draw = np.random.default_rng(1)
        state = {"W": draw.standard_normal((5, 3)).astype(np.float32), "a": draw.standard_normal((1, 6)).astype(np.float32)}
    rng = np.random.default_rng(0)
    layer.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
    x = lib.tensor(rng.standard_normal((6, 5)).astype(np.float32), requires_grad=True)
    adj = lib.tensor((rng.random((6, 6)) < 0.4).astype(np.float32) + np.eye(6, dtype=np.float32))
    out = layer(x, adj)
    (out * lib.tensor(np.arange(18, dtype=np.float32).reshape(6, 3))).sum().backward()
    return state, [t.detach().numpy() for t in (out, x.grad, layer.W.grad, layer.a.grad)]


@needs("pyGAT")
def test_sparse_gat_layer_matches_pytorchs(tmp_path):
    torch = pytest.importorskip("torch")
    import glassgrad.torch as gtorch
    folder = tmp_path / "ported"
    port_script.port_tree(checkout("pyGAT"), str(folder))
    state, want = _sparse_layer(torch, checkout("pyGAT"), None)
    _, got = _sparse_layer(gtorch, str(folder), state)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
