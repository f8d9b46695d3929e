"""The tutorials in examples-and-tutorials/notebooks/ are stored without outputs and each one runs
top to bottom in a Jupyter kernel (nbclient), with small settings injected after its cell tagged
"parameters" (papermill's convention), and shows what it promises."""
import glob
import os
import shutil
import tempfile

import pytest

import glassgrad as gg

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
KernelManager = pytest.importorskip("jupyter_client.manager").KernelManager

pytestmark = pytest.mark.slow  # end-to-end runs: `pytest -m 'not slow'` leaves them out

NOTEBOOK_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "examples-and-tutorials",
                                            "notebooks"))
NOTEBOOKS = sorted(os.path.basename(p) for p in glob.glob(os.path.join(NOTEBOOK_DIR, "*.ipynb")))

# Per notebook: code run right after its "parameters" cell in CI (small settings), and text its
# outputs must contain. Every notebook must be listed, so a new one gets its CI settings on purpose.
CI = {
    "01_tensor_in_memory.ipynb": ("", ["every view read through offset + sum(index * stride) matches NumPy",
                                       "(a view: no memory of its own)"]),
    "02_conv2d_by_hand.ipynb": ("", ["autodiff gradients == the NumPy derivation", "Conv2DBackwardWeight("]),
    "03_autodiff_graph.ipynb": ("", ["every gradient matches the hand derivation", "ReLUBackward(",
                                     "SGDUpdate"]),
    "04_batchnorm_convergence.ipynb": ("n_train = 512\nn_test = 200",
                                       ["with    BN: final loss", "(theory: 0.1)"]),
    "05_memory_planning.ipynb": ("batch_sizes = (8, 32)", ["planned arena:", "OutOfMemoryError:",
                                                           "checkpointing:", "recompute steps"]),
    "06_mnist_end_to_end.ipynb": ("n_train = 1024\nn_test = 1000\nepochs = 1",
                                  ["epoch 1: mean loss", "identical predictions: True"]),
    "07_winograd.ipynb": ("", ["F(2x2): derived matrices equal the header's up to scaling: True",
                               "F(4x4): derived matrices equal the header's up to scaling: True",
                               "NumPy twin == direct convolution in all three directions: True",
                               "glassgrad cpu (CPU kernels): relative error forward"]),
    "08_lstm_language_model.ipynb": ("vocab_size = 500\nhidden = 32\nepochs = 2\nfiles = ['fortunes']",
                                     ["embedding gradient == one_hot^T @ grad_out: True",
                                      "NumPy LSTM == nn.LSTM: True",
                                      "BPTT by hand == autodiff for x, h0, c0, W_ih, W_hh, b_ih, b_hh: True",
                                      "'LSTMSequenceBackward'", "validation perplexity"]),
}
# Data a notebook reads from a Debian package: without it, the run is skipped.
NEEDS = {"08_lstm_language_model.ipynb": "/usr/share/games/fortunes"}
PLOTS = {"04_batchnorm_convergence.ipynb", "05_memory_planning.ipynb", "06_mnist_end_to_end.ipynb"}


def _read(name):
    return nbformat.read(os.path.join(NOTEBOOK_DIR, name), as_version=4)


def test_every_notebook_has_ci_settings_and_the_list_has_no_stale_entries():
    assert NOTEBOOKS, f"no notebooks in {NOTEBOOK_DIR}"
    assert sorted(CI) == NOTEBOOKS


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_is_stored_valid_and_without_outputs(name):
    nb = _read(name)
    nbformat.validate(nb)
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3"
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, \
                f"{name}: cell {i} has stored outputs; clear them (Jupyter: Edit > Clear All Outputs)"
    overrides, _ = CI[name]
    if overrides:
        assert any("parameters" in c.metadata.get("tags", []) for c in nb.cells), \
            f"{name}: CI injects small settings after a cell tagged 'parameters', and there is none"


def _outputs_text(nb):
    text, images = [], 0
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.output_type == "stream":
                text.append(out.text)
            elif out.output_type in ("execute_result", "display_data"):
                text.append(out.data.get("text/plain", ""))
                images += "image/png" in out.data or "image/svg+xml" in out.data
    return "".join(text), images


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs_top_to_bottom(name, tmp_path, monkeypatch):
    if name in NEEDS and not os.path.isdir(NEEDS[name]):
        pytest.skip(f"{NEEDS[name]} is missing (bash tools/setup.sh installs Debian's package)")
    nb = _read(name)
    overrides, expected = CI[name]
    if overrides:
        at = next(i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", []))
        injected = nbformat.v4.new_code_cell(overrides)
        injected.metadata["tags"] = ["injected-parameters"]
        nb.cells.insert(at + 1, injected)
    # The kernel is a child process: give it this test's glassgrad and the CPU. It runs in a
    # temporary directory, where the notebooks write their files.
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(gg.__file__)))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH", "")) if p))
    monkeypatch.setenv("GLASSGRAD_DEVICE", "cpu")
    # The kernel's channels are Unix sockets (IPC), not TCP ports: kernels started at once by
    # parallel test processes could draw the same free port ("Address already in use", a kernel
    # that dies before replying).
    sockets = tempfile.mkdtemp(prefix="glassgrad-kernel-")
    try:
        km = KernelManager(kernel_name="python3", transport="ipc", ip=os.path.join(sockets, "kernel"))
        client = nbclient.NotebookClient(nb, km=km, timeout=300, resources={"metadata": {"path": str(tmp_path)}})
        client.execute()
    finally:
        shutil.rmtree(sockets, ignore_errors=True)
    text, images = _outputs_text(nb)
    for snippet in expected:
        assert snippet in text, f"{name}: expected {snippet!r} in the outputs"
    if name in PLOTS:
        assert images > 0, f"{name}: no figure was displayed"
    # Whatever a notebook writes goes to its outputs/ folder, which .gitignore covers.
    written = sorted(set(os.listdir(tmp_path)) - {"outputs"})
    assert not written, f"{name} wrote {written} beside itself; write them under outputs/"
