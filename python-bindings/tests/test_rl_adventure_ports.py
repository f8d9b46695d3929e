"""higgsfield/RL-Adventure (DQN and its successors, one notebook each: DQN, double, dueling,
prioritized replay, noisy nets, categorical, rainbow, quantile regression and hierarchical DQN, on
CartPole-v0 and then Atari's Pong), ported on the fly from $GLASSGRAD_SCRIPT_SOURCES/RL-Adventure
(script_sources.py; without it these tests skip). The notebooks import matplotlib and IPython:
without them the tests skip.

No gym is installed: gym_stand_in.py, copied beside the notebooks as gym.py, gives CartPole-v0
with the API of the gym the notebooks were written for (GYM_STAND_IN_API=0.21: reset() -> obs,
4-tuple steps). Written for PyTorch 0.3, each CartPole loop appends `loss.data[0]`, which PyTorch
0.4 and later refuse on a 0-d loss: unedited, that cell stops there with PyTorch's IndexError.
With that line made `loss.item()` and the frame counts cut to 100 (training starts after 32),
the cells that raise are those PyTorch 2.14.1 raises: the Pong half stops at `import common` (its
Python 2 imports: ModuleNotFoundError 'layers') and what follows from it, the CNN's feature_size
meets CartPole's 4 numbers; notebooks 5 to 8 stop earlier, at `from common.replay_buffer import`
in their first cell, and 4's `zip(...)[i]` is Python 2's. The hierarchical DQN (9) runs to its
end."""
import os
import shutil

import pytest

from notebook_cells import assert_raised, code_cells, ported_notebook, run_cells
from script_sources import needs

REPO = "RL-Adventure"
HERE = os.path.dirname(os.path.abspath(__file__))
CUT = {"num_frames = 10000": "num_frames = 100", "num_frames = 15000": "num_frames = 100",
       "num_frames = 100000": "num_frames = 100", "        losses.append(loss.data[0])": "        losses.append(loss.item())"}
# notebook -> {cell: a fragment of its error}, as under PyTorch 2.14.1. The Pong half: `import
# common` fails, then what it would have defined; CnnDQN's feature_size runs its convolutions on
# CartPole's observation shape (4,)
RAISES = {
    "1.dqn.ipynb": {12: "No module named 'layers'", 13: "make_atari", 15: "[1, 4]", 18: "replay_initial"},
    "2.double dqn.ipynb": {14: "No module named 'layers'", 15: "make_atari", 17: "[1, 4]", 20: "replay_initial"},
    "3.dueling dqn.ipynb": {14: "No module named 'layers'", 15: "make_atari", 17: "[1, 4]", 18: "replay_initial"},
    "4.prioritized dqn.ipynb": {15: "'zip' object is not subscriptable", 16: "No module named 'layers'",
                                17: "make_atari", 19: "[1, 4]", 24: "replay_initial"},
    # 5 to 8 import common.replay_buffer in their first cell
    "5.noisy dqn.ipynb": {0: "No module named 'layers'", 6: "PrioritizedReplayBuffer", 10: "replay_buffer",
                          11: "No module named 'layers'", 12: "make_atari", 14: "[1, 4]", 16: "replay_buffer"},
    "6.categorical dqn.ipynb": {0: "No module named 'layers'", 7: "ReplayBuffer", 11: "replay_buffer",
                                12: "No module named 'layers'", 13: "make_atari", 15: "[1, 4]", 16: "replay_buffer"},
    "7.rainbow dqn.ipynb": {0: "No module named 'layers'", 5: "NoisyLinear", 6: "current_model", 10: "current_model",
                            11: "No module named 'layers'", 12: "make_atari", 14: "NoisyLinear", 15: "current_model"},
    "8.quantile regression dqn.ipynb": {0: "No module named 'layers'", 6: "ReplayBuffer", 12: "replay_buffer",
                                        13: "No module named 'layers'", 14: "make_atari", 16: "[1, 4]",
                                        18: "replay_buffer"},
    "9.hierarchical dqn.ipynb": {},
}


def _run(tmp_path, notebook, changes):
    pytest.importorskip("matplotlib")
    pytest.importorskip("IPython")
    folder, path = ported_notebook(tmp_path, REPO, notebook)
    shutil.copy(os.path.join(HERE, "gym_stand_in.py"), folder / "gym.py")
    present = {line for cell in code_cells(path) for line in cell.split("\n")}
    return run_cells(str(folder), path, changes={k: v for k, v in changes.items() if k in present},
                     env={"GYM_STAND_IN_API": "0.21"})


@needs(REPO)
def test_dqn_notebook_unedited_stops_at_data_index_of_a_0_dim_loss(tmp_path):
    raised, out, err = _run(tmp_path, "1.dqn.ipynb", {"num_frames = 10000": "num_frames = 100"})
    assert_raised(raised, {11: "invalid index of a 0-dim tensor. Use `tensor.item()`", **RAISES["1.dqn.ipynb"]},
                  out, err)


@needs(REPO)
@pytest.mark.parametrize("notebook", sorted(RAISES))
def test_notebook_trains_on_cartpole_and_raises_where_pytorch_raises(tmp_path, notebook):
    raised, out, err = _run(tmp_path, notebook, CUT)
    assert_raised(raised, RAISES[notebook], out, err)
