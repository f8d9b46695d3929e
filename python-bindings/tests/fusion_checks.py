"""Shared pieces of the fusion-pass tests (their fixture, fusion_state, is in conftest.py): a plan's
(op, fused) pairs, and char_gpt's small GPT (docs/gpt-step.md) whose plan the GPT step's fusions are
checked on."""
import os
import sys

import numpy as np

import glassgrad as gg
from glassgrad import _C

LAYERS, BLOCK, BATCH = 2, 16, 2


def plan_ops(plan):
    """(op, the fused group's name or '') of each step."""
    return [(s["op"], s["attrs"].get("fused", "")) for s in plan.steps]


def small_gpt(heads=2, dim=32, device=None):
    """char_gpt's GPT, 2 layers over a block of 16, dropout 0.2, seeded; and a batch (x, y) of 2."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples-and-tutorials"))
    import char_gpt as G
    gg.manual_seed(0)
    model = G.GPT(65, BLOCK, LAYERS, heads, dim, 0.2)
    x, y = (gg.tensor(np.random.default_rng(i).integers(0, 65, (BATCH, BLOCK))) for i in range(2))
    return model, x, y


def fused_gpt_backward_plan():
    """The plan of the small GPT's loss.backward() with fusion on."""
    _C.set_fusion(True)
    gg.clear_plan_cache()
    model, x, y = small_gpt()
    _, loss = model(x, y)
    loss.backward()
    loss.item()
    return _C.last_plan()
