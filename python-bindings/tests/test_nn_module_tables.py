"""The tables PyTorch's Module.__init__ makes (_forward_hooks, _forward_pre_hooks,
_backward_hooks, _state_dict_hooks, _load_state_dict_pre_hooks, ...,
_non_persistent_buffers_set) are there for scripts that read or edit them, as in PyTorch; and
Module.to parses its arguments as PyTorch's."""
import copy

import pytest

import glassgrad.torch as torch
from glassgrad.torch import nn

TABLES = ("_forward_hooks", "_forward_hooks_with_kwargs", "_forward_hooks_always_called", "_forward_pre_hooks",
          "_forward_pre_hooks_with_kwargs", "_backward_hooks", "_backward_pre_hooks", "_state_dict_hooks",
          "_state_dict_pre_hooks", "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks")


def test_the_tables_are_there_and_empty():
    m = nn.Linear(2, 2)
    for name in TABLES:
        assert len(getattr(m, name)) == 0, name
    assert m._non_persistent_buffers_set == set()


def test_clearing_the_forward_hooks_table_removes_the_hooks():
    seen = []
    m = nn.Linear(2, 2)
    m.register_forward_hook(lambda *a: seen.append(1))
    m(torch.ones(1, 2))
    m._forward_hooks.clear()
    m(torch.ones(1, 2))
    assert seen == [1]


def test_non_persistent_buffers_set_is_the_state_dict_rule():
    m = nn.Linear(2, 2)
    m.register_buffer("y", torch.ones(1), persistent=False)
    assert m._non_persistent_buffers_set == {"y"}
    m._non_persistent_buffers_set.add("z")
    m.register_buffer("z", torch.ones(1))  # registering persistent takes it off again
    assert list(m.state_dict()) == ["weight", "bias", "z"]
    m._non_persistent_buffers_set.add("z")
    assert list(copy.deepcopy(m).state_dict()) == ["weight", "bias"]


def test_module_to_takes_pytorchs_positional_forms_only():
    m = nn.Linear(2, 2)
    assert m.to("cpu", torch.float64, True) is m and m.weight.dtype == torch.float64
    assert m.to(torch.float32, False).weight.dtype == torch.float32
    assert m.to(torch.ones(1, dtype=torch.float64)).weight.dtype == torch.float64
    for bad in (("cpu", "cpu"), (torch.float32, torch.float64), (torch.float32, "cpu")):
        with pytest.raises(TypeError):
            m.to(*bad)
    with pytest.raises(TypeError):
        m.to(torch.float32, blocking=True)
