"""ikostrikov/pytorch-flows (main.py with flows.py: MAF's masked autoencoders, RealNVP's coupling
layers, Glow's LU-decomposed invertible 1x1 maps and batch-norm flows, trained by the data's
log-likelihood, sampled and plotted), ported on the fly with its imports changed only from
$GLASSGRAD_SCRIPT_SOURCES/ikostrikov-pytorch-flows (script_sources.py; without it these tests
skip). Needs scikit-learn (the two-moons data), tensorboardX and matplotlib.

The data is scikit-learn's two moons, 3000 points rather than 30000 (the one change beyond the
imports, in datasets/moons.py), so an epoch is 24 batches of the script's 100."""
import re
import sys

import pytest

from notebook_cells import port_imports_only
from script_sources import needs, port_script, source
from test_ported_scripts import _run

REPO = "ikostrikov-pytorch-flows"
MOONS = {"    x = ds.make_moons(n_samples=30000, shuffle=True, noise=0.05)[0]":
         "    x = ds.make_moons(n_samples=3000, shuffle=True, noise=0.05)[0]",
         "    return x[:24000], x[24000:27000], x[27000:]": "    return x[:2400], x[2400:2700], x[2700:]"}


@needs(REPO)
@pytest.mark.parametrize("flow", ["maf", "realnvp", "glow", "maf-split-glow"])
def test_flow_trains_on_two_moons_and_plots_its_samples(tmp_path, flow):
    pytest.importorskip("sklearn")
    pytest.importorskip("tensorboardX")
    folder = tmp_path / "run"
    port_imports_only(REPO, folder)
    port_script.port_file(source(REPO, "datasets/moons.py"), str(folder / "datasets" / "moons.py"), MOONS)
    proc = _run([sys.executable, "main.py", "--dataset", "MOONS", "--flow", flow, "--epochs", "2", "--no-cuda",
                 "--num-blocks", "3"], str(folder))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    best = re.findall(r"Best validation at epoch (\d): Average Log Likelihood in nats: (-?[\d.]+)", proc.stdout)
    assert len(best) == 2, proc.stdout[-2000:]
    # finite and trained: each flow reaches about -1.9 nats after an epoch of this size
    assert all(-2.5 < float(ll) < 0 for _, ll in best), best
    assert (folder / "plots" / "plot_000.png").exists()
