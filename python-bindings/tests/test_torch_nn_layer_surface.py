"""Every torch.nn layer glassgrad has, built with the same arguments in both libraries
(tests/nn_layer_table.py), compared as a script sees the module: print(model) text, state_dict
keys, shapes and dtypes, parameter and buffer names, which buffers persist, the module tree, and
the same after .double(). glassgrad names its dtypes glassgrad.float32 (docs/porting.md,
printing), so that word is the one difference allowed in the printed text."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import glassgrad.torch as gt
from nn_layer_table import CASES, containers

torch = pytest.importorskip("torch")


def _text(m) -> str:
    return repr(m).replace("glassgrad.", "torch.")


def _dtype(v) -> str:
    return str(v.dtype).rpartition(".")[2]


def _surface(m) -> dict:
    sd = m.state_dict()
    return dict(
        repr=_text(m),
        state_dict=[(k, tuple(v.shape), _dtype(v)) for k, v in sd.items()],
        parameters=[(k, tuple(p.shape), _dtype(p), p.requires_grad) for k, p in m.named_parameters()],
        buffers=[(k, tuple(b.shape), _dtype(b)) for k, b in m.named_buffers()],
        modules=[(k, type(v).__name__) for k, v in m.named_modules()],
        children=[k for k, _ in m.named_children()],
        training=[v.training for v in m.modules()],
    )


def _build(make, nn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecation and nested-tensor notes of some layers
        torch.manual_seed(0)
        return make(nn)


LAZY = [(n, make) for n, make in CASES if n.startswith("Lazy")]
EAGER = [(n, make) for n, make in CASES if not n.startswith("Lazy")]


@pytest.mark.parametrize("name,make", EAGER, ids=[n for n, _ in EAGER])
def test_layer_surface_matches_torch(name, make):
    ours, theirs = _build(make, gt.nn), _build(make, torch.nn)
    assert _surface(ours) == _surface(theirs)
    ours.double()
    theirs.double()
    assert _surface(ours)["state_dict"] == _surface(theirs)["state_dict"]
    ours.eval()
    theirs.eval()
    assert _surface(ours)["training"] == _surface(theirs)["training"]


@pytest.mark.parametrize("name,make", LAZY, ids=[n for n, _ in LAZY])
def test_lazy_layer_prints_as_torch_before_its_first_call(name, make):
    ours, theirs = _build(make, gt.nn), _build(make, torch.nn)
    assert _text(ours) == _text(theirs)
    assert [k for k, _ in ours.named_parameters()] == [k for k, _ in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())


@pytest.mark.parametrize("i", range(len(containers(torch.nn))), ids=[n for n, _ in containers(torch.nn)])
def test_container_surface_matches_torch(i):
    _, ours = containers(gt.nn)[i]
    _, theirs = containers(torch.nn)[i]
    assert _surface(ours()) == _surface(theirs())


def test_one_entry_parameter_containers_print_on_one_line():
    # Module.__repr__'s rule: a one-line extra_repr without children stays on the name's line
    for nn, lib in ((gt.nn, gt), (torch.nn, torch)):
        lst = nn.ParameterList([nn.Parameter(lib.ones(2))])
        assert repr(lst).replace("glassgrad.", "torch.") == \
            "ParameterList(  (0): Parameter containing: [torch.float32 of size 2])"


def test_module_with_extra_repr_and_children_prints_as_torch():
    def build(nn):
        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)

            def extra_repr(self):
                return "scale=2,\nshift=1"

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.body = nn.Sequential(Block(), nn.ModuleList([Block(), Block()]))
                self.head = nn.ModuleDict({"out": nn.Linear(2, 1)})

            def extra_repr(self):
                return "depth=2"
        return Net()
    assert repr(build(gt.nn)) == repr(build(torch.nn))


def test_state_dict_values_equal_torch_after_loading_its_weights():
    # same names, shapes and dtypes: a torch state_dict loads strictly and round-trips unchanged
    for name, make in EAGER:
        ours, theirs = _build(make, gt.nn), _build(make, torch.nn)
        sd = {k: v.detach().numpy() for k, v in theirs.state_dict().items()}
        assert repr(ours.load_state_dict(sd)) == "<All keys matched successfully>", name
        for k, v in ours.state_dict().items():
            np.testing.assert_array_equal(np.asarray(v), sd[k], err_msg=f"{name}: {k}")
