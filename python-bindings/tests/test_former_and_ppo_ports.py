"""pbloem/former (experiments/generate.py: a character-level transformer trained on enwik8's bytes,
sampled and scored in bits per byte, with each of its attention layers) and
nikhilbarhate99/PPO-PyTorch (PPO.py: the actor-critic agent, discrete and continuous, with the
checkpoints the repository ships), ported on the fly with their imports changed only from
$GLASSGRAD_SCRIPT_SOURCES/pbloem-former and $GLASSGRAD_SCRIPT_SOURCES/PPO-PyTorch
(script_sources.py; without them these tests skip).

generate.py reads enwik8.gz, which the tests write small (32000 bytes of words); its split sizes
(90e6, 5e6, 5e6 bytes) become 20000, 5000, 5000 and NumPy's removed binary `np.fromstring`
`np.frombuffer` (NumPy refuses the former, so PyTorch's run needs the same change). Needs tqdm and
tensorboard. PPO's train.py needs gym's environments: a driver with a small stand-in environment
runs the agent the way train.py does (select_action, rewards, update, decay_action_std, save, load)."""
import gzip
import random
import re
import sys

import pytest

from script_sources import needs, port_script, source
from test_ported_scripts import _run

FORMER = "pbloem-former"
PPO_REPO = "PPO-PyTorch"
ENWIK8 = {"        X = np.fromstring(file.read(n_train + n_valid + n_test), dtype=np.uint8)":
          "        X = np.frombuffer(file.read(n_train + n_valid + n_test), dtype=np.uint8)",
          "    data_train, data_val, data_test = enwik8(arg.data)":
          "    data_train, data_val, data_test = enwik8(arg.data, 20000, 5000, 5000)"}


def _small_enwik8(path):
    rng = random.Random(0)
    words = "the quick brown fox jumps over a lazy dog <page> [[link]] {{template}} 1234".split()
    with gzip.open(path, "wb") as f:
        f.write(" ".join(rng.choice(words) for _ in range(8000)).encode()[:32000])


# 'alt' is left out: its projections are torch.empty, unset memory, which PyTorch's run turns into
# NaN probabilities (Categorical refuses them); glassgrad's empty gives zeros (docs/porting.md).
@needs(FORMER)
@pytest.mark.parametrize("attention", ["default", "wide", "gpt2", "narrow", "relative"])
def test_former_generate_trains_samples_and_scores_bits_per_byte(tmp_path, attention):
    pytest.importorskip("tqdm")
    pytest.importorskip("tensorboard")
    folder = tmp_path / "run"
    port_script.port_tree(source(FORMER, "former"), str(folder / "former"))
    port_script.port_file(source(FORMER, "experiments/generate.py"), str(folder / "generate.py"), ENWIK8)
    _small_enwik8(str(tmp_path / "enwik8.gz"))
    proc = _run([sys.executable, "generate.py", "-N", "3", "-b", "4", "-D", str(tmp_path / "enwik8.gz"),
                 "-E", "32", "-H", "4", "-C", "16", "-d", "1", "-r", "1", "--test-every", "2",
                 "--test-subset", "50", "--test-batchsize", "8", "--sample-length", "5",
                 "-T", str(tmp_path / "runs"), "--attention-type", attention], str(folder))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    # the sample printed (seed in brackets, then the sampled bytes) and the score after batch 2
    scores = re.findall(r"epoch2: (\S+) bits per byte", proc.stdout)
    assert len(scores) == 1 and float(scores[0]) > 0, proc.stdout[-2000:]
    assert "[" in proc.stdout and "]" in proc.stdout


PPO_DRIVER = '''import numpy as np
from PPO import PPO, torch

class Env:  # train.py's loop on a stand-in for gym's environments
    def __init__(self, state_dim, action_dim, continuous):
        self.state_dim, self.continuous, self.rng = state_dim, continuous, np.random.RandomState(0)
    def reset(self):
        self.t = 0
        return self.rng.randn(self.state_dim).astype(np.float32)
    def step(self, action):
        self.t += 1
        reward = float(-np.sum(np.square(action))) if self.continuous else float(action == 0)
        return self.rng.randn(self.state_dim).astype(np.float32), reward, self.t >= 7, {}

for continuous, state_dim, action_dim, ckpt in [
        (False, 4, 2, "PPO_preTrained/CartPole-v1/PPO_CartPole-v1_0_0.pth"), (True, 3, 1, None),
        (True, 24, 4, "PPO_preTrained/BipedalWalker-v2/PPO_BipedalWalker-v2_0_0.pth")]:
    torch.manual_seed(0)
    agent = PPO(state_dim, action_dim, 0.0003, 0.001, 0.99, 4, 0.2, continuous, 0.6)
    if ckpt:
        agent.load(ckpt)
        with torch.no_grad():
            if continuous:
                print("actor", [round(v, 4) for v in agent.policy.actor(torch.linspace(-1, 1, 24)).tolist()])
            else:
                s = torch.tensor([0.01, -0.02, 0.03, 0.04])
                print("actor", [round(v, 4) for v in agent.policy.actor(s).tolist()],
                      "critic", [round(v, 4) for v in agent.policy.critic(s).tolist()])
    env = Env(state_dim, action_dim, continuous)
    for episode in range(3):
        state, done = env.reset(), False
        while not done:
            action = agent.select_action(state)
            state, reward, done, _ = env.step(action)
            agent.buffer.rewards.append(reward)
            agent.buffer.is_terminals.append(done)
        agent.update()
        if continuous:
            agent.decay_action_std(0.05, 0.1)
    print("action", type(action).__name__, np.asarray(action).dtype, np.shape(action))
    agent.save("checkpoint.pth")
    agent.load("checkpoint.pth")
    agent.set_action_std(0.3)
'''


@needs(PPO_REPO)
def test_ppo_agent_loads_the_shipped_checkpoints_trains_and_saves(tmp_path):
    folder = tmp_path / "run"
    port_script.port_file(source(PPO_REPO, "PPO.py"), str(folder / "PPO.py"))
    for env in ("CartPole-v1", "BipedalWalker-v2"):
        name = f"PPO_preTrained/{env}/PPO_{env}_0_0.pth"
        port_script.port_tree(source(PPO_REPO, f"PPO_preTrained/{env}"), str(folder / "PPO_preTrained" / env))
        assert (folder / name).exists()
    (folder / "driver.py").write_text(PPO_DRIVER)
    proc = _run([sys.executable, "driver.py"], str(folder))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    out = proc.stdout
    assert "Device set to : cpu" in out
    # PyTorch's outputs of the shipped weights (CPU)
    assert "actor [0.43, 0.57] critic [-0.072]" in out
    assert "actor [0.9996, 1.0, -0.7347, 0.2069]" in out
    assert out.count("action int int64 ()") == 1
    assert "action ndarray float32 (1,)" in out and "action ndarray float32 (4,)" in out
    assert "WARNING : Calling PPO::set_action_std() on discrete action space policy" in out
    assert out.count("setting actor output action_std to :  0.45") == 2
