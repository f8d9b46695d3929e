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


def test_a_child_registered_as_none_keeps_its_name():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(1, 1)
            self.register_module("head", None)

    net = Net()
    assert repr(net) == "Net(\n  (fc): Linear(in_features=1, out_features=1, bias=True)\n  (head): None\n)"
    assert [k for k, _ in net.named_children()] == ["fc"] and net.head is None
    # a key under a None child is not unexpected (PyTorch's rule: "head" is in _modules)
    sd = {"fc.weight": torch.ones(1, 1), "fc.bias": torch.ones(1), "head.weight": torch.ones(1)}
    assert repr(net.load_state_dict(sd)) == "<All keys matched successfully>"
    net.fc = None  # None over a child keeps the name too
    assert "(fc): None" in repr(net) and list(net.state_dict()) == []
    net.head = nn.ReLU()
    assert [k for k, _ in net.named_children()] == ["head"]


def test_a_buffer_registered_as_none_becomes_the_tensor_assigned_later():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("mask", None)
            self.register_buffer("cache", None, persistent=False)

    net = Net()
    assert list(net._buffers) == ["mask", "cache"] and net.mask is None and list(net.state_dict()) == []
    net.mask = torch.ones(2)
    net.cache = torch.ones(1)
    assert [k for k, _ in net.named_buffers()] == ["mask", "cache"] and list(net.state_dict()) == ["mask"]
    net.double()
    assert net.mask.dtype == torch.float64
    net.mask = None
    assert list(net._buffers) == ["mask", "cache"] and list(net.state_dict()) == []
