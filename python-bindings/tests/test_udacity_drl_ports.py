"""udacity/deep-reinforcement-learning (the course's PyTorch code: dqn/solution's model.py and
dqn_agent.py with its replay buffer and soft update, ddpg-pendulum's and ddpg-bipedal's model.py
and ddpg_agent.py, the REINFORCE and DDPG notebooks, and the checkpoints the repository ships),
ported on the fly with their imports changed only from
$GLASSGRAD_SCRIPT_SOURCES/udacity-deep-reinforcement-learning (script_sources.py; without it these
tests skip).

No gym is installed: gym_stand_in.py gives CartPole-v1 and Pendulum-v1. The course code calls the
API of gym before 0.26 (env.seed, reset() -> state, step() -> 4-tuple), which the stand-in keeps
with GYM_STAND_IN_API=0.21. The notebooks run cell by cell with the minimal changes: the
environment names (CartPole-v0 and Pendulum-v0, earlier versions of the same tasks) made v1, and
the episode counts cut. Not run: the DQN notebook's LunarLander-v2 and ddpg-bipedal's
BipedalWalker (Box2D environments; the agents of both run here on CartPole and Pendulum instead),
the cross-entropy notebook's MountainCarContinuous (not in the stand-in), and the hill-climbing
notebook (NumPy only, no torch).

The agents are compared with PyTorch's run of the original files in the same process: the
ported agent starts from the PyTorch agent's weights, both draw their exploration from Python's
`random`, which the agents seed themselves, and the environment is seeded alike, so the episode
scores and the trained weights agree. The repository's checkpoints are torch.save files of
PyTorch before 1.6 (pytorch_legacy_checkpoint.py), which load as torch.load loads them."""
import importlib
import os
import random
import shutil
import sys

import numpy as np
import pytest

from notebook_cells import assert_raised, ported_notebook, run_cells
from script_sources import checkout, importing_from, needs, port_script

REPO = "udacity-deep-reinforcement-learning"
HERE = os.path.dirname(os.path.abspath(__file__))
CHECKPOINTS = ["dqn/solution/checkpoint.pth", "ddpg-pendulum/checkpoint_actor.pth",
               "ddpg-pendulum/checkpoint_critic.pth", "cross-entropy/checkpoint.pth"]


def _gym(monkeypatch):
    """The stand-in gym with the API before gym 0.26."""
    monkeypatch.setenv("GYM_STAND_IN_API", "0.21")
    sys.modules.pop("gym_stand_in", None)
    return importlib.import_module("gym_stand_in")


def _agents(tmp_path, folder, *modules):
    """(PyTorch's module objects, glassgrad's) of the folder's `modules`, the ported ones from a copy."""
    ported = tmp_path / "ported"
    port_script.port_tree(os.path.join(checkout(REPO), folder), str(ported))
    loaded = []
    for where in (os.path.join(checkout(REPO), folder), ported):
        with importing_from(where, *modules):
            loaded.append([importlib.import_module(m) for m in modules])
    return loaded


def _copy_weights(theirs, ours):
    import glassgrad as gg
    ours.load_state_dict({k: gg.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})


def _weights(*models):
    return [{k: v.detach().cpu().numpy() for k, v in m.state_dict().items()} for m in models]


def _episodes(gym, agent, name, seed, episodes, max_t, act):
    """The notebooks' training loops (dqn(), ddpg()): the episode scores."""
    env = gym.make(name)
    env.seed(seed)
    scores = []
    for episode in range(episodes):
        state = env.reset()
        if hasattr(agent, "reset"):
            agent.reset()
        score = 0.0
        for _ in range(max_t):
            action = act(agent, state, episode)
            next_state, reward, done, _ = env.step(action)
            agent.step(state, action, reward, next_state, done)
            state, score = next_state, score + reward
            if done:
                break
        scores.append(score)
    return scores


@needs(REPO)
@pytest.mark.parametrize("checkpoint", CHECKPOINTS)
def test_the_shipped_checkpoints_load_as_torch_load_gives_them(checkpoint):
    torch = pytest.importorskip("torch")
    import glassgrad as gg
    path = os.path.join(checkout(REPO), checkpoint)
    want, got = torch.load(path), gg.load(path)
    assert list(got) == list(want)
    for key, value in want.items():
        assert str(got[key].dtype).split(".")[-1] == str(value.dtype).split(".")[-1]
        np.testing.assert_array_equal(got[key].numpy(), value.numpy())


@needs(REPO)
def test_dqn_agent_trains_on_cartpole_as_under_pytorch(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    gym = _gym(monkeypatch)
    (their_agent, _), (our_agent, _) = _agents(tmp_path, "dqn/solution", "dqn_agent", "model")
    theirs_, ours_ = their_agent.Agent(state_size=4, action_size=2, seed=0), our_agent.Agent(4, 2, 0)
    _copy_weights(theirs_.qnetwork_local, ours_.qnetwork_local)
    _copy_weights(theirs_.qnetwork_target, ours_.qnetwork_target)
    runs = []
    for agent in (theirs_, ours_):
        random.seed(0)  # as Agent(...) seeds it, for the second agent's run too
        # the notebook's epsilon: 1.0, times 0.995 an episode
        scores = _episodes(gym, agent, "CartPole-v1", 0, 12, 1000, lambda a, s, e: a.act(s, 0.995 ** e))
        runs.append((agent, scores, _weights(agent.qnetwork_local, agent.qnetwork_target)))
    (_, their_scores, theirs), (_, our_scores, ours) = runs
    assert our_scores == their_scores and sum(their_scores) > 64  # past a batch of 64: learn() ran
    for mine, want in zip(ours, theirs):
        for key in want:
            np.testing.assert_allclose(mine[key], want[key], rtol=1e-5, atol=1e-6, err_msg=key)


@needs(REPO)
@pytest.mark.parametrize("folder", ["ddpg-pendulum", "ddpg-bipedal"])
def test_ddpg_agent_trains_on_pendulum_as_under_pytorch(tmp_path, monkeypatch, folder):
    pytest.importorskip("torch")
    gym = _gym(monkeypatch)
    (their_agent, _), (our_agent, _) = _agents(tmp_path, folder, "ddpg_agent", "model")
    theirs_, ours_ = their_agent.Agent(state_size=3, action_size=1, random_seed=2), our_agent.Agent(3, 1, 2)
    for name in ("actor_local", "actor_target", "critic_local", "critic_target"):
        _copy_weights(getattr(theirs_, name), getattr(ours_, name))
    runs = []
    for agent in (theirs_, ours_):
        random.seed(2)  # as Agent(...) seeds it (OUNoise draws from it), for the second agent's run too
        # Pendulum's torque is in [-2, 2]; the notebook passes the actor's [-1, 1] action as it is
        scores = _episodes(gym, agent, "Pendulum-v1", 2, 1, 200, lambda a, s, e: a.act(s))
        runs.append((agent, scores, _weights(agent.actor_local, agent.critic_local, agent.actor_target,
                                             agent.critic_target)))
    (_, their_scores, theirs), (_, our_scores, ours) = runs
    np.testing.assert_allclose(our_scores, their_scores, rtol=1e-4)
    for mine, want in zip(ours, theirs):
        for key in want:
            np.testing.assert_allclose(mine[key], want[key], rtol=1e-4, atol=1e-6, err_msg=key)


def _notebook(tmp_path, notebook):
    folder, path = ported_notebook(tmp_path, REPO, notebook)
    shutil.copy(os.path.join(HERE, "gym_stand_in.py"), folder / "gym.py")
    return folder, path


@needs(REPO)
def test_reinforce_notebook_runs_to_its_end(tmp_path):
    pytest.importorskip("matplotlib")
    folder, path = _notebook(tmp_path, "reinforce/REINFORCE.ipynb")
    changes = {"env = gym.make('CartPole-v0')": "env = gym.make('CartPole-v1')",
               "scores = reinforce()": "scores = reinforce(n_episodes=40, print_every=20)"}
    raised, out, err = run_cells(str(folder), path, changes=changes, env={"GYM_STAND_IN_API": "0.21"})
    assert_raised(raised, {}, out, err)
    assert "Episode 20\tAverage Score:" in out and "Episode 40\tAverage Score:" in out, out[-2000:]


@needs(REPO)
def test_ddpg_notebook_trains_saves_and_reloads_its_checkpoints(tmp_path):
    pytest.importorskip("matplotlib")
    folder, path = _notebook(tmp_path, "ddpg-pendulum/DDPG.ipynb")
    for name in ("checkpoint_actor.pth", "checkpoint_critic.pth"):
        os.remove(folder / name)  # the notebook writes its own
    changes = {"env = gym.make('Pendulum-v0')": "env = gym.make('Pendulum-v1')",
               "scores = ddpg()": "scores = ddpg(n_episodes=2, print_every=1)"}
    raised, out, err = run_cells(str(folder), path, changes=changes, env={"GYM_STAND_IN_API": "0.21"})
    assert_raised(raised, {}, out, err)
    assert "Episode 2\tAverage Score:" in out, out[-2000:]
    assert (folder / "checkpoint_actor.pth").exists() and (folder / "checkpoint_critic.pth").exists()
