"""An optimizer prints as PyTorch's does (Optimizer.__repr__: a blank line before every parameter
group after the first, each key but params, sorted), and its param_groups keep the hyperparameters
the script passed: SGD's default momentum, dampening and weight_decay are the int 0, as in PyTorch's
signature, so `print(optimizer)` shows `momentum: 0`, not `0.0`."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import glassgrad as gg

SGD_TWO_GROUPS = """SGD (
Parameter Group 0
    dampening: 0
    differentiable: False
    foreach: None
    fused: None
    lr: 0.1
    maximize: False
    momentum: 0
    nesterov: False
    weight_decay: 0

Parameter Group 1
    dampening: 0
    differentiable: False
    foreach: None
    fused: None
    lr: 0.5
    maximize: False
    momentum: 0.9
    nesterov: False
    weight_decay: 0.0001
)"""


def _params(mod):
    return mod.nn.Parameter(mod.ones(3, 2)), mod.nn.Parameter(mod.zeros(2))


def test_sgd_with_two_groups_prints_as_pytorch_does():
    a, b = _params(gg)
    opt = gg.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5, "momentum": 0.9, "weight_decay": 1e-4}], lr=0.1)
    assert repr(opt) == SGD_TWO_GROUPS


def test_hyperparameters_keep_the_type_the_script_passed():
    a, _ = _params(gg)
    group = gg.optim.SGD([a], lr=0.1).param_groups[0]
    assert [type(group[k]) for k in ("momentum", "dampening", "weight_decay")] == [int, int, int]
    group = gg.optim.Adam([a], weight_decay=0.0).param_groups[0]
    assert type(group["weight_decay"]) is float and type(gg.optim.Adam([a]).param_groups[0]["weight_decay"]) is int
    assert gg.optim.Rprop([a]).param_groups[0]["step_sizes"] == (1e-6, 50)
    assert type(gg.optim.Rprop([a]).param_groups[0]["step_sizes"][1]) is int
    # A NumPy scalar is checked and stored as a float (its repr would name NumPy's type).
    assert type(gg.optim.SGD([a], lr=np.float32(0.25)).param_groups[0]["lr"]) is float


def test_int_hyperparameters_train_as_their_floats_do():
    losses = []
    for kw in ({"momentum": 1, "weight_decay": 0}, {"momentum": 1.0, "weight_decay": 0.0}):
        w = gg.nn.Parameter(gg.tensor([1.0, -2.0]))
        opt = gg.optim.SGD([w], lr=0.1, **kw)
        for _ in range(3):
            opt.zero_grad()
            loss = (w * w).sum()
            loss.backward()
            opt.step()
        losses.append(w.detach().numpy())
    np.testing.assert_array_equal(losses[0], losses[1])


NAMES = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop",
         "Adafactor"]


@pytest.mark.parametrize("name", NAMES)
def test_repr_matches_pytorch(name):
    torch = pytest.importorskip("torch")
    if not hasattr(torch.optim, name):
        pytest.skip(f"this PyTorch has no optim.{name}")
    texts = []
    for mod in (torch, gg):
        a, b = _params(mod)
        kwargs = {"lr": 0.1} if name == "SGD" else {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            texts.append(repr(getattr(mod.optim, name)([{"params": [a]}, {"params": [b], "lr": 0.5}], **kwargs)))
    assert texts[1] == texts[0]


@pytest.mark.parametrize("name,kwargs", [("SGD", {"momentum": 0.9}), ("SGD", {}), ("Adam", {})])
def test_int_defaults_record_the_same_update_nodes_as_floats(name, kwargs):
    """The update nodes' attributes are floats whatever type the group holds: SGD's first step
    records dampening 0.0 and later ones the group's (the int 0 by default), so an int attribute
    made the second step a second plan."""
    compiles = []
    for extra in ({}, {"weight_decay": 0.0} if name == "Adam" else {"dampening": 0.0, "weight_decay": 0.0}):
        gg.clear_plan_cache()
        gg.reset_cache_stats()
        gg.manual_seed(0)
        model = gg.nn.Linear(4, 2)
        opt = getattr(gg.optim, name)(model.parameters(), lr=0.1, **kwargs, **extra)
        x = gg.tensor(np.arange(12, dtype=np.float32).reshape(3, 4) / 10)
        for _ in range(4):
            loss = model(x).square().mean()
            loss.backward()
            opt.step()
            opt.zero_grad()
            loss.item()
        compiles.append(gg.cache_stats()["compiles"])
    assert compiles[0] == compiles[1]
