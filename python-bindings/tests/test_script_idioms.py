"""Idioms of real scripts that glassgrad must treat as PyTorch does, each checked against torch
where it is installed: a module attribute replaced keeps its place among the children, the
parameters and the state_dict; torch.where of two numbers."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn


def _torch():
    return pytest.importorskip("torch")


def test_replacing_a_layer_or_parameter_keeps_its_position():
    torch = _torch()
    ours, theirs = nn.Module(), torch.nn.Module()
    for m, lib in ((ours, nn), (theirs, torch.nn)):
        m.a = lib.Linear(2, 2)
        m.b = lib.ReLU()
        m.c = lib.Linear(2, 2)
        m.a = lib.Linear(2, 3)
    assert [n for n, _ in ours.named_children()] == [n for n, _ in theirs.named_children()] == ["a", "b", "c"]
    layer = nn.Linear(2, 2)
    layer.weight = nn.Parameter(gg.zeros(2, 2))
    assert [n for n, _ in layer.named_parameters()] == ["weight", "bias"]
    bn = nn.BatchNorm2d(2)
    bn.running_mean = gg.ones(2)
    assert list(bn.state_dict()) == list(torch.nn.BatchNorm2d(2).state_dict())
    np.testing.assert_array_equal(bn.state_dict()["running_mean"], np.ones(2))


@pytest.mark.parametrize("a,b", [(1, 0), (1.0, 0), (True, False), (1, 0.5)])
def test_where_of_two_numbers_has_torchs_dtype_and_the_conditions_device(a, b):
    torch = _torch()
    mask = np.array([True, False, True])
    got = gg.where(gg.tensor(mask), a, b)
    want = torch.where(torch.tensor(mask), a, b)
    assert str(got.dtype) == str(want.dtype).replace("torch.", "")
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert got.device == gg.tensor(mask).device
