"""Course notebooks run as scripts: their code cells, in order, with IPython's magics (`%...`,
`!...`, `name?`) left out and the imports changed by tools/port_script.py, from checkouts at
$GLASSGRAD_SCRIPT_SOURCES/nyu-dlsp20 and .../udacity-deep-learning-v2-pytorch (script_sources.py;
without them these tests skip). Atcold/NYU-DLSP20's classification, regression, sequence and
Bayesian notebooks (its res/ helpers ported beside them, a stand-in for its logo picture) and
udacity's time-series RNN, which feeds torch.Tensor(float64 array) to a float32 RNN."""
import os
import subprocess
import sys

import pytest

from notebook_cells import code_cells
from script_sources import checkout, needs, port_script
from test_ported_scripts import _env

NYU = "nyu-dlsp20"
UDACITY = "udacity-deep-learning-v2-pytorch"


def notebook_script(path):
    """The notebook's code cells as one script, magics commented out, imports ported."""
    text, _ = port_script.port_text("\n\n".join(code_cells(path)) + "\n")
    return text


def _run(folder, script, timeout=600):
    (folder / "nb.py").write_text(script, encoding="utf-8")
    proc = subprocess.run([sys.executable, "nb.py"], cwd=folder, env=_env(MPLBACKEND="Agg"), capture_output=True,
                          text=True, timeout=timeout)
    assert proc.returncode == 0, f"{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


@needs(NYU)
@pytest.mark.parametrize("name, shows", [
    ("04-spiral_classification.ipynb", "[EPOCH]: 999"),
    ("05-regression.ipynb", "[MODEL]: 10, [EPOCH]: 999"),
    pytest.param("08-seq_classification.ipynb", "The accuracy of the model is measured to be",
                 marks=pytest.mark.slow),  # about 2 minutes on a 2-core CPU
    ("13-bayesian_nn.ipynb", ""),  # prints nothing: its cells plot
])
def test_nyu_dlsp20_notebooks_run_their_cells(tmp_path, name, shows):
    pytest.importorskip("matplotlib")
    pytest.importorskip("IPython")
    image = pytest.importorskip("PIL.Image")
    root = checkout(NYU) or ""
    (tmp_path / "res").mkdir()
    for helper in ("plot_lib.py", "sequential_tasks.py"):
        port_script.port_file(os.path.join(root, "res", helper), str(tmp_path / "res" / helper))
    image.new("RGBA", (600, 600), (200, 100, 50, 255)).save(tmp_path / "res" / "ziegler.png")
    out = _run(tmp_path, notebook_script(os.path.join(root, name)))
    assert shows in out, out[-2000:]


@needs(UDACITY)
def test_udacity_time_series_rnn_trains_on_torch_tensor_of_float64_arrays(tmp_path):
    pytest.importorskip("matplotlib")
    path = os.path.join(checkout(UDACITY) or "", "recurrent-neural-networks", "time-series", "Simple_RNN.ipynb")
    out = _run(tmp_path, notebook_script(path))
    assert "Input size:  glassgrad.Size([1, 20, 1])" in out
    losses = [float(line.split()[1]) for line in out.splitlines() if line.startswith("Loss:")]
    assert len(losses) == 5 and losses[-1] < losses[0], out
