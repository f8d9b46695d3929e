"""nn.Sequential as PyTorch's list of layers: a slice is a Sequential keeping the layers' names
(the neural style tutorial trims its model with model[:(i + 1)]), item assignment, del with
renumbering, append, insert, extend, pop, +, +=, * and *=, and their errors. The names, printed
form and state_dict keys are compared with torch's. Skipped when torch is not importable."""
from collections import OrderedDict

import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")


def _pair(build):
    return build(gg.nn), build(torch.nn)


def _named(nn):
    return nn.Sequential(OrderedDict([("norm", nn.Identity()), ("conv_1", nn.Conv2d(3, 4, 3)), ("relu_1", nn.ReLU()),
                                      ("style_loss_1", nn.Identity()), ("pool_1", nn.MaxPool2d(2))]))


def _plain(nn):
    return nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))


def _same(ours, theirs):
    assert type(ours).__name__ == type(theirs).__name__ == "Sequential"
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())


EDITS = {
    "slice keeps names": lambda nn, s: s[:4],
    "negative slice": lambda nn, s: s[-2:],
    "step slice": lambda nn, s: s[::2],
    "setitem": lambda nn, s: (s.__setitem__(2, nn.Tanh()), s)[1],
    "delitem renumbers": lambda nn, s: (s.__delitem__(1), s)[1],
    "del slice": lambda nn, s: (s.__delitem__(slice(0, 2)), s)[1],
    "append": lambda nn, s: s.append(nn.Linear(1, 1)),
    "extend": lambda nn, s: s.extend([nn.ReLU(), nn.Linear(1, 2)]),
    "pop": lambda nn, s: (s.pop(0), s)[1],
    "add": lambda nn, s: s + nn.Sequential(nn.Tanh()),
    "iadd": lambda nn, s: s.__iadd__(nn.Sequential(nn.Tanh())),
    "mul": lambda nn, s: s * 2,
    "rmul": lambda nn, s: 2 * s,
    "imul": lambda nn, s: s.__imul__(2),
}


# torch's own *= reads the layers by the names "0", "1", ..., so it fails on named layers
CASES = [(b, e) for b in (_named, _plain) for e in EDITS if not (b is _named and e == "imul")]


@pytest.mark.parametrize("build,edit", CASES)
def test_sequential_edits_match_torch(build, edit):
    ours, theirs = _pair(build)
    _same(EDITS[edit](gg.nn, ours), EDITS[edit](torch.nn, theirs))


def test_insert_and_indexing_match_torch():
    for index in (0, 1, 3, -1):
        ours, theirs = _pair(_plain)
        _same(ours.insert(index, gg.nn.Tanh()), theirs.insert(index, torch.nn.Tanh()))
    ours, theirs = _pair(_plain)
    assert repr(ours[-1]) == repr(theirs[-1]) and repr(ours[0]) == repr(theirs[0])
    for s in (ours, theirs):
        with pytest.raises(IndexError, match="index 3 is out of range"):
            s[3]
        with pytest.raises(IndexError, match="Index out of range: 5"):
            s.insert(5, type(s[1])())
        with pytest.raises(ValueError, match="add operator supports only objects of Sequential class"):
            s + [s[1]]
        with pytest.raises(ValueError, match="Non-positive multiplication factor 0"):
            s * 0


def test_a_trimmed_model_runs_and_shares_its_layers():
    model = _named(gg.nn)
    trimmed = model[:3]
    assert trimmed.conv_1 is model.conv_1
    assert trimmed(gg.ones(1, 3, 5, 5)).shape == (1, 4, 3, 3)
