"""karpathy/ng-video-lecture's bigram.py and karpathy/makemore's makemore.py, ported on the fly
from $GLASSGRAD_SCRIPT_SOURCES/ng-video-lecture and .../makemore (script_sources.py; without them
every test skips): bigram.py as published on a small input.txt written here (its 3000 steps are
written into the script), makemore.py through its arguments on a short names.txt: each model
type for 501 steps (its first evaluation and checkpoint come at step 500), then --resume and
--sample-only from that checkpoint. gpt.py is not run: its sizes (6 layers of 384, 5000 steps of
64 x 256 tokens) are written into the script, which takes no arguments."""
import os
import subprocess
import sys

import pytest

from script_sources import needs, port_script, source
from test_ported_scripts import _env

TEXT = ("First Citizen:\nBefore we proceed any further, hear me speak.\n\nAll:\nSpeak, speak.\n\n"
        "First Citizen:\nYou are all resolved rather to die than to famish?\n\n") * 40
NAMES = ("emma olivia ava isabella sophia charlotte mia amelia harper evelyn abigail emily elizabeth mila ella "
         "avery sofia camila aria scarlett victoria madison luna grace chloe penelope layla riley zoey nora lily "
         "eleanor hannah lillian addison aubrey ellie stella natalie zoe leah hazel violet aurora savannah audrey "
         "brooklyn bella claire skylar lucy paisley everly anna caroline nova genesis emilia kennedy").split()
MAKEMORE = ["--n-layer", "1", "--n-head", "2", "--n-embd", "16", "--n-embd2", "16", "-b", "16"]


def _port(tmp_path, repo, name):
    port_script.port_file(source(repo, name), str(tmp_path / name))
    return str(tmp_path)


def _run(args, cwd, timeout=900):
    return subprocess.run([sys.executable] + args, cwd=cwd, env=_env(), capture_output=True, text=True,
                          timeout=timeout)


def _ok(proc):
    assert proc.returncode == 0, f"{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"


@needs("ng-video-lecture")
@pytest.mark.slow
def test_bigram_trains_its_3000_steps_and_generates(tmp_path):
    run = _port(tmp_path, "ng-video-lecture", "bigram.py")
    (tmp_path / "input.txt").write_text(TEXT, encoding="utf-8")
    proc = _run(["bigram.py"], run)
    _ok(proc)
    steps = [line for line in proc.stdout.splitlines() if line.startswith("step ")]
    assert [s.split(":")[0] for s in steps] == [f"step {i}" for i in range(0, 3000, 300)]
    first, last = (float(s.split("val loss ")[1]) for s in (steps[0], steps[-1]))
    assert last < first
    generated = proc.stdout.split(steps[-1], 1)[1]
    assert len(generated.strip()) > 0 and set(generated) <= set(TEXT) | {"\n"}


def _makemore(tmp_path):
    run = _port(tmp_path, "makemore", "makemore.py")
    (tmp_path / "names.txt").write_text("\n".join(NAMES) + "\n", encoding="utf-8")
    return run


@needs("makemore")
@pytest.mark.parametrize("kind", ["transformer", pytest.param("bigram", marks=pytest.mark.slow),
                                  pytest.param("mlp", marks=pytest.mark.slow), pytest.param("rnn", marks=pytest.mark.slow),
                                  pytest.param("gru", marks=pytest.mark.slow), pytest.param("bow", marks=pytest.mark.slow)])
def test_makemore_trains_evaluates_saves_resumes_and_samples(tmp_path, kind):
    run = _makemore(tmp_path)
    proc = _run(["makemore.py", "-i", "names.txt", "-o", "out", "--type", kind, "--max-steps", "501", "-n", "2"]
                + MAKEMORE, run)
    _ok(proc)
    assert "step 500 train loss:" in proc.stdout and "saving model to out/model.pt" in proc.stdout
    out = os.path.join(run, "out")
    assert os.path.isfile(os.path.join(out, "model.pt"))
    assert any(f.startswith("events.out.tfevents.") for f in os.listdir(out))  # its SummaryWriter's scalars
    proc = _run(["makemore.py", "-i", "names.txt", "-o", "out", "--type", kind, "--resume", "--max-steps", "3",
                 "-n", "0"] + MAKEMORE, run)
    _ok(proc)
    assert "resuming from existing model in the workdir" in proc.stdout and "step 0 | loss" in proc.stdout
    proc = _run(["makemore.py", "-i", "names.txt", "-o", "out", "--type", kind, "--sample-only", "--top-k", "3"]
                + MAKEMORE, run)
    _ok(proc)
    assert "samples that are in train:" in proc.stdout and "samples that are new:" in proc.stdout
