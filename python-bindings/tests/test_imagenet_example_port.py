"""pytorch/examples' imagenet/main.py with its imports changed only (ported by tools/port_script.py
from $GLASSGRAD_SCRIPT_SOURCES/pytorch-examples, script_sources.py; without it these tests skip), run as
`--dummy -a resnet18 --epochs 1 -b 8`: ResNet-18 on FakeData, SGD with momentum and weight
decay, StepLR, top-1/top-5 accuracy through topk, loader workers with pin_memory, a checkpoint.

--dummy's FakeData sizes are written into the script (1,281,167 training and 50,000 validation
images: 160,146 steps of 8) and no argument changes them. So the port runs as it is until it has
printed its first steps, and the whole epoch (validation, checkpoint, --resume, --evaluate) runs
from a copy in which the test writes 16 and 8 for those two numbers, every other line the port's."""
import contextlib
import os
import re
import signal
import subprocess
import sys
import threading

import pytest

from test_ported_scripts import _check, _copy, _env, _run, needs_sources

pytestmark = needs_sources("imagenet")

SMALLER = {  # the copy's two lines (original: replacement)
    "        train_dataset = datasets.FakeData(1281167, (3, 224, 224), 1000, transforms.ToTensor())":
        "        train_dataset = datasets.FakeData(16, (3, 224, 224), 1000, transforms.ToTensor())",
    "        val_dataset = datasets.FakeData(50000, (3, 224, 224), 1000, transforms.ToTensor())":
        "        val_dataset = datasets.FakeData(8, (3, 224, 224), 1000, transforms.ToTensor())",
}
ARGS = ["--dummy", "-a", "resnet18", "--epochs", "1", "-b", "8"]
STEP = re.compile(r"^Epoch: \[0\]\[\s*(\d+)/(\d+)\]\tTime .*\tLoss (\S+) \(\S+\)\tAcc@1 .*\tAcc@5 ")


def _group(pgid):
    """The ids of the live processes in process group pgid."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid:
                out.append(int(entry))
    return out


def _kill_group(pgid):
    """SIGKILLs the group, then removes the shared-memory batches its loader workers had made and
    no one had mapped yet (docs/data-loading.md: a batch's block is removed once it is mapped, which
    a killed process never does), so no later test finds them in /dev/shm."""
    pids = _group(pgid) if os.path.isdir("/proc") else []
    os.killpg(pgid, signal.SIGKILL)
    if os.path.isdir("/dev/shm"):
        for name in os.listdir("/dev/shm"):
            parts = name.split("_")
            if name.startswith("gg_dl_") and len(parts) > 2 and parts[2].isdigit() and int(parts[2]) in pids:
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join("/dev/shm", name))


def _first_lines(cmd, cwd, pattern, n, timeout=600):
    """Runs cmd until it has printed n lines matching pattern, then kills it and its loader
    workers (one process group); returns (every line read, the matches)."""
    proc = subprocess.Popen(cmd, cwd=cwd, env=_env(PYTHONUNBUFFERED="1"), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    timer = threading.Timer(timeout, _kill_group, (proc.pid,))
    timer.start()
    lines, matches = [], []
    try:
        for line in proc.stdout:
            lines.append(line)
            m = pattern.match(line)
            if m:
                matches.append(m)
            if len(matches) == n:
                break
    finally:
        timer.cancel()
        _kill_group(proc.pid)
        proc.wait()
        proc.stdout.close()
    return lines, matches


def test_imagenet_port_as_it_is_trains_resnet18_on_fakedata_with_workers(tmp_path):
    run = _copy("imagenet", tmp_path / "run")
    # -p 1 prints every step (the default prints steps 1, 11, 21, ...); -j 2: two loader workers
    lines, steps = _first_lines([sys.executable, "main.py", *ARGS, "-p", "1", "-j", "2"], run, STEP, 2)
    out = "".join(lines)
    assert len(steps) == 2, out
    assert "=> creating model 'resnet18'\nusing CPU, this will be slow\n=> Dummy data is used!\n" in out
    assert [(int(m.group(1)), int(m.group(2))) for m in steps] == [(1, 160146), (2, 160146)]
    assert all(float(m.group(3)) > 0 for m in steps)  # cross entropy over 1,000 classes


@pytest.mark.slow
def test_imagenet_port_runs_an_epoch_checkpoints_resumes_and_evaluates(tmp_path):
    run = tmp_path / "run"
    with open(os.path.join(_copy("imagenet", run), "main.py"), encoding="utf-8") as f:
        lines = f.read().split("\n")
    assert all(old in lines for old in SMALLER)
    (run / "main.py").write_text("\n".join(SMALLER.get(line, line) for line in lines), encoding="utf-8")
    proc = _run([sys.executable, "main.py", *ARGS], run)
    _check(proc, "imagenet")
    assert re.search(r"^Epoch: \[0\]\[1/2\]\t", proc.stdout, re.M), proc.stdout
    assert re.search(r"^Test: \[1/1\]\t", proc.stdout, re.M) and re.search(r"^ \*   Acc@1 [\d.]+ Acc@5 [\d.]+$",
                                                                            proc.stdout, re.M), proc.stdout
    assert os.path.isfile(run / "checkpoint.pth.tar")
    torch = pytest.importorskip("torch")
    saved = torch.load(run / "checkpoint.pth.tar", weights_only=True, map_location="cpu")  # PyTorch reads the checkpoint
    assert saved["epoch"] == 1 and saved["arch"] == "resnet18" and saved["scheduler"]["last_epoch"] == 1
    assert saved["state_dict"]["fc.weight"].shape == (1000, 512)
    assert saved["optimizer"]["param_groups"][0]["momentum"] == 0.9 and len(saved["optimizer"]["state"]) == 62
    resumed = _run([sys.executable, "main.py", *ARGS[:-4], "--epochs", "2", "-b", "8", "-j", "0",
                    "--resume", "checkpoint.pth.tar"], run)
    _check(resumed, "imagenet --resume")
    assert "=> loaded checkpoint 'checkpoint.pth.tar' (epoch 1)" in resumed.stdout
    assert re.search(r"^Epoch: \[1\]\[1/2\]\t", resumed.stdout, re.M), resumed.stdout
    evaluated = _run([sys.executable, "main.py", *ARGS, "-j", "0", "-e", "--resume", "checkpoint.pth.tar"], run)
    _check(evaluated, "imagenet --evaluate")
    assert "Epoch:" not in evaluated.stdout and re.search(r"^ \*   Acc@1 ", evaluated.stdout, re.M)
