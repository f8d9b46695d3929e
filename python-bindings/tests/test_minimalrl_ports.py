"""seungeunrho/minimalRL (one file per algorithm: REINFORCE, actor-critic, DQN, PPO, PPO-LSTM,
PPO-continuous, DDPG, SAC, ACER, V-trace, and A2C/A3C over torch.multiprocessing), ported on the
fly with their imports changed only from $GLASSGRAD_SCRIPT_SOURCES/minimalRL (script_sources.py;
without it these tests skip).

No gym is installed: gym_stand_in.py, copied beside each script as gym.py, gives CartPole-v1
and Pendulum-v1 with gym 0.26's dynamics and API (the README asks for gym 0.26.2 or later);
a2c.py and a3c.py call the API of earlier gyms (env.seed, 4-tuple steps), which the stand-in
keeps for them (GYM_STAND_IN_API=0.21). The one change beyond the imports is the episode count
(`range(10000)`, a2c's max_train_steps, a3c's max_train_ep and max_test_ep), cut so that each
script prints its progress line and, where it has a replay buffer, trains from it.

Every script also ran under PyTorch 2.14.1 on the same stand-in (a driver outside the
repository) to its end, printing the same lines (the scores differ with the unseeded draws)."""
import os
import shutil
import subprocess
import sys

import pytest

from script_sources import needs, port_script, slow_params, source
from test_ported_scripts import _env

REPO = "minimalRL"
HERE = os.path.dirname(os.path.abspath(__file__))

# script -> (line changed: its new value, lines its printout has)
EPISODES = {
    "REINFORCE.py": ("41", ["# of episode :20, avg score :", "# of episode :40, avg score :"]),
    "actor_critic.py": ("41", ["# of episode :20, avg score :", "# of episode :40, avg score :"]),
    # its buffer trains past 2000 transitions, about 200 episodes of a random policy
    "dqn.py": ("261", ["n_episode :200, score :", "n_episode :260, score :"]),
    "ppo.py": ("41", ["# of episode :40, avg score :"]),
    "ppo-lstm.py": ("21", ["# of episode :20, avg score :"]),
    "ppo-continuous.py": ("21", ["# of episode :20, avg score :", "optmization step: 400"]),
    "ddpg.py": ("21", ["# of episode :20, avg score :"]),
    "sac.py": ("21", ["# of episode :20, avg score :", " alpha:"]),
    "acer.py": ("21", ["# of episode :20, avg score :", "buffer size :"]),
    "vtrace.py": ("21", ["# of episode :20, avg score :"]),
}
# constants of the multiprocessing scripts -> their new values
CONSTANTS = {"max_train_steps": "1000", "max_train_ep": "20", "max_test_ep": "41"}
SHOWN = {"a2c.py": ["Step # :500, avg score :", "Step # :1000, avg score :"],
         "a3c.py": ["# of episode :40, avg score :"] + [f"Training process {r} reached maximum episode." for r in (1, 2, 3)]}
SLOW = {"dqn.py", "sac.py", "ppo-continuous.py"}


def _changes(path, episodes):
    """The script's episode-count lines with their new values (the only lines changed beyond the imports)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    changes = {line: line.replace("range(10000)", f"range({episodes})") for line in lines if "range(10000)" in line}
    changes.update({line: f"{line.split('=')[0]}= {CONSTANTS[line.split()[0]]}" for line in lines
                    if line.split()[:1] and line.split()[0] in CONSTANTS})
    assert changes, f"{path}: no episode count to cut"
    return changes


def _run(tmp_path, script, episodes, **env):
    folder = tmp_path / "run"
    folder.mkdir()
    shutil.copy(os.path.join(HERE, "gym_stand_in.py"), folder / "gym.py")
    path = source(REPO, script)
    changed = port_script.port_file(path, str(folder / script), _changes(path, episodes))
    assert len([c for c in changed if "glassgrad" in (c[2] or "")]) >= 4  # the torch imports
    proc = subprocess.run([sys.executable, script], cwd=folder, capture_output=True, text=True, timeout=900,
                          env=_env(**env))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


@needs(REPO)
@pytest.mark.parametrize("script", slow_params(EPISODES, SLOW))
def test_each_algorithm_trains_on_the_stand_in_environment(tmp_path, script):
    episodes, shown = EPISODES[script]
    out = _run(tmp_path, script, episodes)
    for line in shown:
        assert line in out, out[-2000:]


@needs(REPO)
@pytest.mark.parametrize("script", sorted(SHOWN))
def test_the_multiprocessing_algorithms_train_a_model_their_processes_share(tmp_path, script):
    """a2c.py steps three environments in worker processes over pipes; a3c.py trains a model
    put in shared memory (share_memory()) from three processes, a fourth testing it."""
    out = _run(tmp_path, script, None, GYM_STAND_IN_API="0.21")
    for line in SHOWN[script]:
        assert line in out, out[-2000:]
