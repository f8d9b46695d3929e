"""karpathy/pytorch-made (made.py: MADE with MaskedLinear layers and its own autoregressive-property
check; run.py: training on binarized MNIST), ported on the fly with their imports changed only
from $GLASSGRAD_SCRIPT_SOURCES/pytorch-made (script_sources.py; without it these tests skip).

run.py reads a binarized_mnist.npz (train_data, valid_data: rows of 784 zeros and ones), written
small here: 300 training rows (three batches of its 100) and 200 validation rows. As published it
moves the data to the GPU unconditionally (`.cuda()`), where it stops under a CPU-only PyTorch
2.x too. The comparison run changes four lines, the same under both: the two `.cuda()` data lines
lose it, `model.cuda()` becomes saving (PyTorch) or loading (glassgrad) the initial weights, and
its 100 epochs become 2. Its masks come from NumPy seeds, so the losses it prints are PyTorch's."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from notebook_cells import port_imports_only
from script_sources import needs, port_script, source
from test_ported_scripts import _env

REPO = "pytorch-made"
ARGS = ["-d", "binarized_mnist.npz", "-q", "64,64", "-n", "2", "-r", "1", "-s", "2"]
CHANGES = {
    "    xtr = torch.from_numpy(xtr).cuda()": "    xtr = torch.from_numpy(xtr)",
    "    xte = torch.from_numpy(xte).cuda()": "    xte = torch.from_numpy(xte)",
    "    for epoch in range(100):": "    for epoch in range(2):",
}
SAVE = ("    model.cuda()", '    torch.save(model.state_dict(), "init.pt")')
LOAD = ("    model.cuda()", '    model.load_state_dict(torch.load("init.pt"))')


def _write_data(folder):
    rng = np.random.RandomState(0)
    np.savez(os.path.join(folder, "binarized_mnist.npz"),
             train_data=(rng.rand(300, 784) < 0.3).astype(np.float32),
             valid_data=(rng.rand(200, 784) < 0.3).astype(np.float32))


def _ported(tmp_path, changes=None):
    folder = tmp_path / "ours"
    port_imports_only(REPO, folder)
    if changes:
        port_script.port_file(source(REPO, "run.py"), str(folder / "run.py"), changes)
    _write_data(folder)
    return folder


def _run(folder, script, *args, ported=True):
    env = _env() if ported else dict(os.environ, CUDA_VISIBLE_DEVICES="")
    return subprocess.run([sys.executable, script, *args], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=900)


@needs(REPO)
def test_made_checks_its_autoregressive_property(tmp_path):
    # made.py's __main__: seven configurations (hidden layers, natural ordering, nout = 2 or 3 nin),
    # 100 outputs in all;
    # each output's Jacobian row through backward() names only the inputs earlier in its order
    port_script.port_file(source(REPO, "made.py"), str(tmp_path / "made.py"))
    proc = _run(tmp_path, "made.py")
    assert proc.returncode == 0, proc.stderr[-3000:]
    checks = re.findall(r"output +\d+ depends on inputs: .* : (\w+)", proc.stdout)
    assert len(checks) == 100 and set(checks) == {"OK"}, proc.stdout[-3000:]
    assert "ERROR" not in proc.stdout


@needs(REPO)
def test_run_stops_at_cuda_as_under_a_cpu_pytorch(tmp_path):
    folder = _ported(tmp_path)
    proc = _run(folder, "run.py", *ARGS)
    assert proc.returncode == 1 and "xtr = torch.from_numpy(xtr).cuda()" in proc.stderr, proc.stderr[-3000:]
    assert "DeviceError: CUDA device cuda:0 cannot be used" in proc.stderr, proc.stderr[-3000:]


def _losses(proc):
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return [float(v) for v in re.findall(r"epoch average loss: ([\d.]+)", proc.stdout)]


@needs(REPO)
def test_run_trains_with_resampled_masks(tmp_path):
    # two orderings resampled every step, two mask samples averaged in each evaluation, the
    # deprecated scheduler.step(epoch) and binary_cross_entropy_with_logits(size_average=False)
    folder = _ported(tmp_path, dict(CHANGES, **dict([SAVE])))
    proc = _run(folder, "run.py", *ARGS)
    losses = _losses(proc)
    assert len(losses) == 5 and losses[3] < losses[1], proc.stdout
    assert "number of model parameters: 105360" in proc.stdout
    assert "size_average and reduce args will be deprecated" in proc.stderr


@needs(REPO)
def test_run_losses_match_pytorchs_from_the_same_weights(tmp_path):
    pytest.importorskip("torch")
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    with open(source(REPO, "run.py"), encoding="utf-8") as f:
        text = f.read()
    for old, new in dict(CHANGES, **dict([SAVE])).items():
        assert "\n" + old + "\n" in text, old
        text = text.replace("\n" + old + "\n", "\n" + new + "\n")
    (theirs / "run.py").write_text(text)
    (theirs / "made.py").write_bytes(open(source(REPO, "made.py"), "rb").read())
    _write_data(theirs)
    want = _losses(_run(theirs, "run.py", *ARGS, ported=False))
    ours = _ported(tmp_path, dict(CHANGES, **dict([LOAD])))
    (ours / "init.pt").write_bytes((theirs / "init.pt").read_bytes())
    got = _losses(_run(ours, "run.py", *ARGS))
    assert len(got) == len(want) == 5
    np.testing.assert_allclose(got, want, rtol=1e-6)
