"""Reinforcement-learning agents written from scratch, ported on the fly with their imports changed
only from $GLASSGRAD_SCRIPT_SOURCES (script_sources.py; without a checkout its tests skip):
sfujim/TD3 (TD3, DDPG and the paper's DDPG, `main.py`), pranz24/pytorch-soft-actor-critic (SAC
with a Gaussian or deterministic policy and entropy tuning, `main.py`) and
higgsfield/RL-Adventure-2 (nine notebooks: actor-critic, GAE, PPO, ACER, DDPG, TD3, SAC, GAIL,
hindsight experience replay).

No gym is installed: gym_stand_in.py, copied beside the scripts as gym.py, gives CartPole-v0
and Pendulum-v0/v1 with the API of the gym they were written for (GYM_STAND_IN_API=0.21:
env.seed, reset() -> obs, 4-tuple steps, TimeLimit's _max_episode_steps, Box spaces with
sample() and seed(), and ActionWrapper as gyms before 0.10 called a subclass's _action). The
MuJoCo tasks the scripts default to become Pendulum-v1 by their --env argument; step counts are
cut on the command line or in the notebook lines CUTS names. The GAIL notebook reads the expert
trajectories that the PPO notebook saves after 50000 steps: the test writes a small file of them.

Every run also ran under PyTorch 2.14.1 on the same stand-in (a driver outside the repository),
printing the same lines; the rewards differ with the unseeded draws of the stand-in's episodes
and the frameworks' random streams."""
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from notebook_cells import assert_raised, code_cells, ported_notebook, run_cells
from script_sources import needs, port_script, slow_params, source
from test_ported_scripts import _env

HERE = os.path.dirname(os.path.abspath(__file__))
TD3 = "sfujim-TD3"
SAC = "pytorch-soft-actor-critic"
RLA2 = "RL-Adventure-2"
LEGACY_GYM = {"GYM_STAND_IN_API": "0.21"}


def _ported(tmp_path, repo, files, sub="run"):
    """The files of repo ported into tmp_path/sub beside the gym stand-in; the folder."""
    folder = tmp_path / sub
    folder.mkdir()
    shutil.copy(os.path.join(HERE, "gym_stand_in.py"), folder / "gym.py")
    for f in files:
        changed = port_script.port_file(source(repo, f), str(folder / f))
        assert all(old.startswith(("import torch", "from torch")) for _, old, _ in changed), changed
    return folder


def _main(folder, *args, python_path=True):
    env = _env(**LEGACY_GYM) if python_path else dict(os.environ, **LEGACY_GYM)
    proc = subprocess.run([sys.executable, "main.py", *args], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, f"{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def _evaluations(out):
    return [float(x) for x in re.findall(r"Evaluation over 10 episodes: (-?[\d.]+)", out)]


TD3_FILES = ["main.py", "TD3.py", "DDPG.py", "OurDDPG.py", "utils.py"]
TD3_ARGS = ["--env", "Pendulum-v1", "--start_timesteps", "100", "--eval_freq", "200", "--max_timesteps", "400",
            "--batch_size", "32"]


@needs(TD3)
@pytest.mark.parametrize("policy", ["TD3", "DDPG", "OurDDPG"])
def test_td3_main_trains_evaluates_saves_and_resumes(tmp_path, policy):
    folder = _ported(tmp_path, TD3, TD3_FILES)
    out = _main(folder, "--policy", policy, *TD3_ARGS, "--save_model")
    assert f"Policy: {policy}, Env: Pendulum-v1, Seed: 0" in out
    assert "Total T: 400 Episode Num: 2 Episode T: 200 Reward:" in out
    assert len(_evaluations(out)) == 3  # untrained, then every 200 steps
    evaluations = np.load(folder / "results" / f"{policy}_Pendulum-v1_0.npy")
    assert evaluations.dtype == np.float64 and evaluations.tolist() == pytest.approx(_evaluations(out), abs=1e-3)
    saved = sorted(os.listdir(folder / "models"))
    assert saved == [f"{policy}_Pendulum-v1_0_{part}" for part in ("actor", "actor_optimizer", "critic",
                                                                    "critic_optimizer")]
    # --load_model default: the saved networks and optimizers; the untrained evaluation is theirs
    again = _main(folder, "--policy", policy, *TD3_ARGS[:2], "--max_timesteps", "0", "--load_model", "default")
    assert _evaluations(again) == [_evaluations(out)[-1]]


@needs(TD3)
def test_td3_loads_the_checkpoints_pytorch_saved_and_evaluates_as_pytorch(tmp_path):
    pytest.importorskip("torch")
    reference = tmp_path / "pytorch"
    reference.mkdir()
    for f in TD3_FILES:
        shutil.copy(source(TD3, f), reference / f)
    shutil.copy(os.path.join(HERE, "gym_stand_in.py"), reference / "gym.py")
    _main(reference, *TD3_ARGS, "--save_model", python_path=False)
    expected = _evaluations(_main(reference, *TD3_ARGS[:2], "--max_timesteps", "0", "--load_model", "default",
                                  python_path=False))
    folder = _ported(tmp_path, TD3, TD3_FILES)
    shutil.copytree(reference / "models", folder / "models")
    # the same weights on the same seeded evaluation episodes: the same rewards, to the printed digit
    assert _evaluations(_main(folder, *TD3_ARGS[:2], "--max_timesteps", "0", "--load_model", "default")) == expected


SAC_FILES = ["main.py", "sac.py", "model.py", "replay_memory.py", "utils.py"]
SAC_ARGS = ["--env-name", "Pendulum-v1", "--start_steps", "100", "--batch_size", "16", "--num_steps", "450",
            "--hidden_size", "32"]


@needs(SAC)
@pytest.mark.parametrize("variant", [[], ["--automatic_entropy_tuning", "True"], ["--policy", "Deterministic"]],
                         ids=["gaussian", "entropy-tuning", "deterministic"])
def test_soft_actor_critic_main_trains_and_logs_to_tensorboard(tmp_path, variant):
    pytest.importorskip("tensorboard")
    folder = _ported(tmp_path, SAC, SAC_FILES)
    out = _main(folder, *SAC_ARGS, *variant)
    # updates from step 17 on; the third episode passes 450 steps and ends the run before its line
    for n in (1, 2):
        assert f"Episode: {n}, total numsteps: {200 * n}, episode steps: 200, reward:" in out
    assert "Episode: 3," not in out
    runs = os.listdir(folder / "runs")
    assert len(runs) == 1 and "_SAC_Pendulum-v1_" in runs[0]
    assert any(name.startswith("events.out.tfevents") for name in os.listdir(folder / "runs" / runs[0]))


# notebook -> {line: its replacement}: frame counts, the 16 subprocess environments made 2, replay
# batches of 16
CUTS = {
    "1.actor-critic.ipynb": {"num_envs = 16": "num_envs = 2", "max_frames   = 20000": "max_frames   = 1000"},
    "2.gae.ipynb": {"num_envs = 16": "num_envs = 2", "max_frames   = 100000": "max_frames   = 1000"},
    "3.ppo.ipynb": {"num_envs = 16": "num_envs = 2", "max_frames = 15000": "max_frames = 1000"},
    "4.acer.ipynb": {"max_frames   = 10000": "max_frames   = 1000"},
    "5.ddpg.ipynb": {"max_frames  = 12000": "max_frames  = 1002", "batch_size  = 128": "batch_size  = 16"},
    "6.td3.ipynb": {"max_frames  = 10000": "max_frames  = 1000", "batch_size  = 128": "batch_size  = 16"},
    "7.soft actor-critic.ipynb": {"max_frames  = 40000": "max_frames  = 1000", "batch_size  = 128": "batch_size  = 16"},
    "8.gail.ipynb": {"num_envs = 16": "num_envs = 2", "max_frames = 100000": "max_frames = 1000"},
    # written for PyTorch 0.3: `loss.data[0]` of a 0-d loss raises IndexError since PyTorch 0.4, so
    # the cells that log it read loss.item()
    "9.her.ipynb": {"max_frames = 200000": "max_frames = 1000",
                    "    if loss is not None: losses.append(loss.data[0])":
                    "    if loss is not None: losses.append(loss.item())"},
}
# common/__init__.py's `import multiprocessing_env` is Python 2's implicit relative import: Python 3
# (under PyTorch too) stops there with ModuleNotFoundError. The notebooks that use SubprocVecEnv
# import it from its folder instead.
SUBPROC = {"from common.multiprocessing_env import SubprocVecEnv":
           "import sys; sys.path.insert(0, 'common'); from multiprocessing_env import SubprocVecEnv"}
SLOW_NOTEBOOKS = {"3.ppo.ipynb", "6.td3.ipynb", "7.soft actor-critic.ipynb", "8.gail.ipynb"}


def _notebook(tmp_path, notebook, changes):
    pytest.importorskip("matplotlib")
    pytest.importorskip("IPython")
    folder, path = ported_notebook(tmp_path, RLA2, notebook)
    shutil.copy(os.path.join(HERE, "gym_stand_in.py"), folder / "gym.py")
    # GAIL's expert: (state, action) rows that notebook 3 saves after 50000 steps, written here
    np.save(folder / "expert_traj.npy", np.random.default_rng(0).normal(size=(1000, 4)))
    present = {line for cell in code_cells(path) for line in cell.split("\n")}
    return run_cells(str(folder), path, changes={k: v for k, v in changes.items() if k in present}, env=LEGACY_GYM)


@needs(RLA2)
def test_actor_critic_notebook_unedited_stops_at_the_python_2_import_as_under_pytorch(tmp_path):
    raised, out, err = _notebook(tmp_path, "1.actor-critic.ipynb", CUTS["1.actor-critic.ipynb"])
    assert_raised(raised, {3: "No module named 'multiprocessing_env'", 7: "envs", 9: "envs", 10: "env"}, out, err)


@needs(RLA2)
@pytest.mark.parametrize("notebook", slow_params(CUTS, SLOW_NOTEBOOKS))
def test_notebook_trains_on_the_stand_in_environments_without_an_error(tmp_path, notebook):
    raised, out, err = _notebook(tmp_path, notebook, {**CUTS[notebook], **SUBPROC})
    assert_raised(raised, {}, out, err)
