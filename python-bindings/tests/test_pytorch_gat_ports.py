"""gordicaleksa/pytorch-GAT (graph attention networks: three implementations of the GAT layer,
the Cora and PPI training scripts, the playground), ported on the fly from
$GLASSGRAD_SCRIPT_SOURCES/pytorch-GAT (script_sources.py; without it these tests skip).

training_script_cora.py trains on the Cora files the repository carries (2708 nodes) with its
arguments only (--num_of_epochs and the logging, checkpoint and test flags); training_script_ppi.py
on a small PPI in the layout of the downloaded one (data/ppi/{train,valid,test}_{feats,labels,
graph_id}.npy and the node-link graph .json files: 3 training graphs of 24 nodes, 50 features and
121 labels, as PPI's). The repository's utilities import tensorboard (constants.py), GitPython (a
checkpoint records the commit; the run folder is made a git repository) and igraph
(visualizations.py): without them these tests skip. playground.py's default reads
models/binaries/gat_000000.pth, a checkpoint saved on a GPU, which PyTorch's torch.load refuses
on a CPU machine as glassgrad's does; with its model name changed to the Cora run's checkpoint
it draws the t-SNE embeddings (slow: minutes of scikit-learn). The adjacency-matrix data path of
implementations 1 and 2 calls np.float, gone from NumPy 1.24, under PyTorch too.

Under PyTorch 2.14.1 both training scripts run alike; from the same weights the three layer
implementations give PyTorch's outputs and gradients (test_layers_match_pytorchs, where torch is
installed)."""
import os
import subprocess
import sys

import numpy as np
import pytest

from script_sources import checkout, importing_from, needs, port_script
from test_ported_scripts import _env

REPO = "pytorch-GAT"


def _needs_tools():
    for name in ("tensorboard", "git", "igraph", "networkx", "scipy", "matplotlib"):
        pytest.importorskip(name)


def write_ppi(folder, nodes=24, seed=0):
    """The downloaded PPI's layout: per split, features (N, 50), labels (N, 121), the graph id of
    each node, and the graphs in NetworkX's node-link JSON (self edges included)."""
    import json

    import networkx as nx
    from networkx.readwrite import json_graph
    rng = np.random.default_rng(seed)
    os.makedirs(folder)
    for split, graphs in (("train", 3), ("valid", 1), ("test", 1)):
        g, ids = nx.Graph(), []
        for k in range(graphs):
            base = len(ids)
            g.add_nodes_from(range(base, base + nodes))
            for i in range(nodes):
                g.add_edge(base + i, base + i)
                for j in rng.choice(nodes, 3, replace=False):
                    g.add_edge(base + i, base + int(j))
            ids += [k + 1] * nodes
        np.save(os.path.join(folder, f"{split}_feats.npy"), rng.standard_normal((len(ids), 50)).astype(np.float32))
        np.save(os.path.join(folder, f"{split}_labels.npy"), (rng.random((len(ids), 121)) < 0.3).astype(np.float32))
        np.save(os.path.join(folder, f"{split}_graph_id.npy"), np.array(ids))
        with open(os.path.join(folder, f"{split}_graph.json"), "w") as f:
            json.dump(json_graph.node_link_data(g), f)


def _ported(tmp_path):
    folder = str(tmp_path / "run")
    port_script.port_tree(checkout(REPO), folder)
    git = ["git", "-c", "user.email=run@example.com", "-c", "user.name=run"]
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "run"]):
        subprocess.run(git + cmd, cwd=folder, check=True, capture_output=True)
    return folder


def _run(folder, *args, timeout=900):
    proc = subprocess.run([sys.executable, *args], cwd=folder, capture_output=True, text=True, timeout=timeout,
                          env=_env(MPLBACKEND="Agg"))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return proc.stdout


@needs(REPO)
def test_cora_trains_checkpoints_logs_and_tests(tmp_path):
    _needs_tools()
    folder = _ported(tmp_path)
    stdout = _run(folder, "training_script_cora.py", "--num_of_epochs", "6", "--console_log_freq", "1",
                  "--checkpoint_freq", "3", "--should_test", "--enable_tensorboard")
    accuracies = [float(line.rsplit("=", 1)[1]) for line in stdout.splitlines() if "val acc=" in line]
    assert len(accuracies) == 6 and all(0 <= a <= 1 for a in accuracies), stdout
    assert "Test accuracy = " in stdout
    binaries = os.listdir(os.path.join(folder, "models", "binaries"))
    assert "gat_CORA_000000.pth" in binaries
    assert os.listdir(os.path.join(folder, "runs")), "tensorboard event files"
    import glassgrad
    state = glassgrad.load(os.path.join(folder, "models", "binaries", "gat_CORA_000000.pth"))
    assert state["num_of_epochs"] == 6 and len(state["commit_hash"]) == 40
    assert list(state["state_dict"]["gat_net.0.linear_proj.weight"].shape) == [64, 1433]


@needs(REPO)
def test_ppi_trains_on_graph_batches_and_reports_micro_f1(tmp_path):
    _needs_tools()
    folder = _ported(tmp_path)
    write_ppi(os.path.join(folder, "data", "ppi"))
    stdout = _run(folder, "training_script_ppi.py", "--num_of_epochs", "3", "--console_log_freq", "1",
                  "--checkpoint_freq", "2", "--should_test", "--force_cpu", "--batch_size", "2")
    assert stdout.count("train micro-F1=") == 6 and stdout.count("val micro-F1=") == 3, stdout
    assert "Loading train graph 3 to CPU. It has 24 nodes" in stdout and "Test micro-F1 = " in stdout
    assert "gat_PPI_000000.pth" in os.listdir(os.path.join(folder, "models", "binaries"))


@pytest.mark.slow
@needs(REPO)
def test_playground_draws_the_embeddings_of_the_cora_checkpoint(tmp_path):
    _needs_tools()
    pytest.importorskip("sklearn")
    folder = _ported(tmp_path)
    _run(folder, "training_script_cora.py", "--num_of_epochs", "2", "--console_log_freq", "1")
    changes = {"            model_name=r'gat_000000.pth',  # set to PPI or CORA model, keep it in sync with the "
               "'dataset_name'": "            model_name=r'gat_CORA_000000.pth',"}
    port_script.port_file(os.path.join(checkout(REPO), "playground.py"), os.path.join(folder, "playground.py"), changes)
    stdout = _run(folder, "playground.py")
    assert "layer_type: IMP3" in stdout and "num_features_per_layer: [1433, 8, 7]" in stdout


def _graph(n=40, features=12, seed=0):
    """Node features, an edge index with self edges (implementation 3) and the matching softmax
    mask (0 on an edge, -inf elsewhere: implementations 1 and 2)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, features)).astype(np.float32)
    edges = {(i, i) for i in range(n)} | {(int(i), int(j)) for i, j in rng.integers(0, n, (3 * n, 2))}
    edges |= {(j, i) for i, j in edges}
    edge_index = np.array(sorted(edges), dtype=np.int64).T
    mask = np.full((n, n), -np.inf, dtype=np.float32)
    mask[edge_index[1], edge_index[0]] = 0.0
    return x, edge_index, mask


def _layers_output(lib, folder, layer_name, state):
    """GAT(IMPk) from `folder`'s copy under library `lib`, loaded with `state` (NumPy arrays), in
    eval mode: its output on _graph() and the gradient of its sum."""
    with importing_from(folder, "models", "utils"):
        from models.definitions.GAT import GAT
        from utils.constants import LayerType
        layer = getattr(LayerType, layer_name)
        model = GAT(num_of_layers=2, num_heads_per_layer=[4, 2], num_features_per_layer=[12, 6, 5],
                    add_skip_connection=True, bias=True, dropout=0.6, layer_type=layer)
    if state is None:
        state = {k: v.detach().cpu().numpy() + 0.1 for k, v in model.state_dict().items()}
    model.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
    model.eval()
    x, edge_index, mask = _graph()
    features = lib.tensor(x, requires_grad=True)
    topology = lib.tensor(edge_index) if layer_name == "IMP3" else lib.tensor(mask)
    out = model((features, topology))[0]
    out.sum().backward()
    return state, out.detach().numpy(), features.grad.numpy()


@needs(REPO)
@pytest.mark.parametrize("layer_name", ["IMP1", "IMP2", "IMP3"])
def test_layers_match_pytorchs(tmp_path, monkeypatch, layer_name):
    torch = pytest.importorskip("torch")
    _needs_tools()
    monkeypatch.chdir(tmp_path)  # utils/constants.py opens a SummaryWriter (./runs) when imported
    import glassgrad.torch as gtorch
    folder = str(tmp_path / "ported")
    port_script.port_tree(os.path.join(checkout(REPO), "models"), os.path.join(folder, "models"))
    port_script.port_tree(os.path.join(checkout(REPO), "utils"), os.path.join(folder, "utils"))
    state, want, want_grad = _layers_output(torch, checkout(REPO), layer_name, None)
    _, got, got_grad = _layers_output(gtorch, folder, layer_name, state)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-4, atol=1e-5)
