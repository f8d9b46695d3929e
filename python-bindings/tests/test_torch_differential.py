"""glassgrad against PyTorch's CPU semantics, row by row of argument_table.py: every layer and
function argument value gives torch's output, input gradients, parameter gradients and running
statistics (train and eval mode, float64, the same weights); every optimizer argument gives
torch's parameters after each of three steps; every learning-rate scheduler row gives torch's
rates (and cycled momentum or beta1) over 30 steps on SGD and on AdamW. Skipped when torch is not importable (CI never
installs it); tools/torch_differential.sh runs it in an environment that has torch."""
import numpy as np
import pytest

from argument_runner import (gg_state, make_inputs, run_gg, run_gg_optimizer, run_gg_scheduler, run_torch,
                             run_torch_optimizer, run_torch_scheduler)
from argument_table import FUNCTIONALS, LAYERS, OPTIMIZERS, SCHEDULERS

torch = pytest.importorskip("torch")

RTOL, ATOL = 1e-9, 1e-10


def _compared(rows):
    return [pytest.param(r, marks=pytest.mark.skip(reason=r.torch)) if isinstance(r.torch, str) else r for r in rows]


def _assert_same(got, want, what):
    assert sorted(got) == sorted(want), f"{what}: glassgrad gives {sorted(got)}, torch {sorted(want)}"
    for k in want:
        g, w = np.asarray(got[k]), np.asarray(want[k])
        assert g.shape == w.shape, f"{what} {k}: shape {g.shape} vs torch {w.shape}"
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=RTOL, atol=ATOL,
                                   err_msg=f"{what}: {k}")


@pytest.mark.parametrize("row", _compared(LAYERS), ids=[r.id for r in LAYERS])
def test_layer_matches_torch(row):
    arrays = make_inputs(row)
    state = gg_state(row)
    for mode in row.modes:
        got = run_gg(row, [a.copy() for a in arrays], mode, state)
        want = run_torch(row, [a.copy() for a in arrays], torch, mode, state)
        for k in set(want) - set(got):
            assert k.endswith("num_batches_tracked"), f"{row.id}: glassgrad has no '{k}'"
            del want[k]
        _assert_same(got, want, f"{row.id} {mode}")


@pytest.mark.parametrize("row", _compared(FUNCTIONALS), ids=[r.id for r in FUNCTIONALS])
def test_function_matches_torch(row):
    arrays = make_inputs(row)
    _assert_same(run_gg(row, [None if a is None else a.copy() for a in arrays]),
                 run_torch(row, [None if a is None else a.copy() for a in arrays], torch), row.id)


@pytest.mark.parametrize("row", _compared(OPTIMIZERS), ids=[r.id for r in OPTIMIZERS])
def test_optimizer_matches_torch_for_three_steps(row):
    got, want = run_gg_optimizer(row), run_torch_optimizer(row, torch)
    for step, (g, w) in enumerate(zip(got, want)):
        _assert_same(g, w, f"{row.id} step {step + 1}")


@pytest.mark.filterwarnings("ignore:Detected call of")  # torch's SequentialLR, starting a ChainedScheduler
@pytest.mark.parametrize("opt_name", ["SGD", "AdamW"])
@pytest.mark.parametrize("row", _compared(SCHEDULERS), ids=[r.id for r in SCHEDULERS])
def test_scheduler_matches_torch_for_thirty_steps(row, opt_name):
    (got, mine), (want, theirs) = run_gg_scheduler(row, opt_name), run_torch_scheduler(row, torch, opt_name)
    for step, (g, w) in enumerate(zip(got, want)):
        for k in w:  # recursive forms in both: the same operations, so equal to rounding
            np.testing.assert_allclose(g[k], w[k], rtol=1e-13, atol=1e-300, err_msg=f"{row.id} step {step}: {k}")
    # state_dict holds PyTorch's entries (nothing of glassgrad's own but the initial-step flag)
    assert set(mine.state_dict()) <= set(theirs.state_dict()) | {"_is_initial"}
