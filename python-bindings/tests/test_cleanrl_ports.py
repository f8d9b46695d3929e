"""vwxyzjn/cleanrl's single-file PyTorch agents (dqn.py, c51.py, ppo.py on CartPole-v1;
sac_continuous_action.py, td3_continuous_action.py, ddpg_continuous_action.py and
ppo_continuous_action.py on Pendulum-v1), ported on the fly with their imports changed only from
$GLASSGRAD_SCRIPT_SOURCES/cleanrl (script_sources.py; without it, or without gymnasium, tyro and
tensorboard, these tests skip), with the repository's cleanrl_utils (its replay buffer) ported beside them.

No line of a script is changed: each runs a few hundred environment steps through its own command
line (tyro's flags: --total-timesteps, --learning-starts, ...; --env-id Pendulum-v1 for the
continuous agents, whose default MuJoCo tasks need mujoco), logging its losses and episode returns
with SummaryWriter to runs/, which the tests read back with TensorBoard's event reader. The
repository pins gymnasium 0.29.1, whose vector environments report finished episodes in
infos["final_info"] as the scripts expect (gymnasium 1.x reports them otherwise, and the
continuous agents then stop at the first truncated episode, under PyTorch as here).

With the random numbers they draw from the framework (initial weights, orthogonal init, exploration
noise, policy samples) drawn from one NumPy generator under both (same_draws_runner.py), PyTorch
2.14.1's run of each script logs the same numbers: every loss and return of the CartPole agents and
of PPO on Pendulum to float32 rounding, and for SAC, TD3 and DDPG the losses after their first 100
updates to 1e-4; later, rounding differences grow through the actions the actor picks (the
returns then still agree to 1e-2)."""
import glob
import math
import os
import shutil
import subprocess
import sys

import pytest

from script_sources import needs, port_script, slow_params, source
from test_ported_scripts import _env

REPO = "cleanrl"
HERE = os.path.dirname(os.path.abspath(__file__))
CARTPOLE = ["--no-cuda", "--total-timesteps", "500", "--learning-starts", "200", "--target-network-frequency", "100"]
PENDULUM = ["--no-cuda", "--env-id", "Pendulum-v1", "--total-timesteps", "401", "--learning-starts", "100",
            "--batch-size", "32"]
# script -> (its command line, whether its numbers drift from PyTorch's after the first logged step)
RUNS = {
    "dqn.py": (CARTPOLE + ["--train-frequency", "10"], False),
    "c51.py": (CARTPOLE + ["--batch-size", "32"], False),
    "ppo.py": (["--no-cuda", "--total-timesteps", "1024", "--num-steps", "128"], False),
    "ppo_continuous_action.py": (["--no-cuda", "--env-id", "Pendulum-v1", "--total-timesteps", "400", "--num-steps",
                                  "200", "--num-minibatches", "4", "--update-epochs", "4"], False),
    "sac_continuous_action.py": (PENDULUM, True),
    "td3_continuous_action.py": (PENDULUM, True),
    "ddpg_continuous_action.py": (PENDULUM, True),
}
SLOW = {"sac_continuous_action.py", "td3_continuous_action.py"}


def _needs_packages():
    gym = pytest.importorskip("gymnasium")
    pytest.importorskip("tyro")
    pytest.importorskip("tensorboard")
    if not hasattr(gym.vector, "SyncVectorEnv") or gym.__version__.split(".")[0] != "0":
        pytest.skip(f"cleanrl's scripts read gymnasium 0.29's infos['final_info'] (the repository pins 0.29.1); "
                    f"gymnasium {gym.__version__} is installed")


def _scalars(folder):
    """{tag: [(step, value), ...]} of the one run the script logged under folder/runs."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    [events] = glob.glob(os.path.join(folder, "runs", "*", "events.out.tfevents.*"))
    reader = EventAccumulator(events)
    reader.Reload()
    return {tag: [(e.step, e.value) for e in reader.Scalars(tag)] for tag in reader.Tags()["scalars"]}


def _run(folder, script, module=None):
    """Runs the script in folder (under same_draws_runner.py with `module`, torch or
    glassgrad.torch, when given) and returns its logged scalars."""
    command = [sys.executable, script] if module is None else [
        sys.executable, os.path.join(HERE, "same_draws_runner.py"), module, script]
    proc = subprocess.run(command + RUNS[script][0], cwd=folder, capture_output=True, text=True, timeout=900,
                          env=_env(OMP_NUM_THREADS="1", PYTHONWARNINGS="ignore::UserWarning"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return _scalars(str(folder))


def _setup(tmp_path, script, ported=True):
    folder = tmp_path / ("ported" if ported else "original")
    folder.mkdir()
    utils = source(REPO, "cleanrl_utils")
    if ported:
        port_script.port_tree(utils, str(folder / "cleanrl_utils"))
        changed = port_script.port_file(source(REPO, f"cleanrl/{script}"), str(folder / script))
        assert len([c for c in changed if "glassgrad" in (c[2] or "")]) >= 4  # torch, nn, F, optim, ...
    else:
        shutil.copytree(utils, folder / "cleanrl_utils")
        shutil.copy(source(REPO, f"cleanrl/{script}"), folder / script)
    return folder


@needs(REPO)
@pytest.mark.parametrize("script", slow_params(RUNS, SLOW))
def test_each_agent_trains_with_glassgrads_own_draws(tmp_path, script):
    _needs_packages()
    logged = _run(_setup(tmp_path, script), script)
    losses = [tag for tag in logged if tag.startswith("losses/")]
    assert losses and logged["charts/episodic_return"], sorted(logged)
    for tag in losses:
        assert all(math.isfinite(v) for _, v in logged[tag]), (tag, logged[tag])


@needs(REPO)
@pytest.mark.parametrize("script", slow_params(RUNS, SLOW | {"ddpg_continuous_action.py"}))
def test_the_same_draws_log_pytorchs_losses_and_returns(tmp_path, script):
    _needs_packages()
    pytest.importorskip("torch")
    ours = _run(_setup(tmp_path, script), script, "glassgrad.torch")
    theirs = _run(_setup(tmp_path, script, ported=False), script, "torch")
    drifts = RUNS[script][1]
    assert sorted(ours) == sorted(theirs)
    for tag in sorted(theirs):
        if tag == "charts/SPS":  # steps a second
            continue
        assert [s for s, _ in ours[tag]] == [s for s, _ in theirs[tag]], tag
        for k, ((step, mine), (_, ref)) in enumerate(zip(ours[tag], theirs[tag])):
            tight = not drifts or k == 0
            rtol = 1e-4 if tight else 1e-2
            if tight or tag.startswith("charts/"):
                assert mine == pytest.approx(ref, rel=rtol, abs=1e-5), (tag, step, mine, ref)
