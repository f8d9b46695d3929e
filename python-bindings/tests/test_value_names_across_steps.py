"""A value's name through a training loop's steps (docs/performance.md, "The plain loop's host
work (issue 34)"): each step's updates make new versions of the parameters and the momentum
buffers, which carry the name of the version they overwrite, and each step's gradients are named
after their parameter. The versions share one name object; renaming one value renames that value
alone, and the gradients made after it follow the new name."""
import re

import numpy as np
import pytest

import glassgrad as gg


def _loop():
    gg.manual_seed(0)
    model = gg.Sequential(gg.Linear(4, 3), gg.ReLU(), gg.Linear(3, 2))
    opt = gg.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = gg.tensor(np.ones((2, 4), np.float32))
    y = gg.tensor(np.array([0, 1]))

    def step():
        loss = gg.cross_entropy(model(x), y)
        loss.backward()
        grads = [p.grad._h.name for p in model.parameters()]
        opt.step()
        opt.zero_grad()
        return grads

    return model, opt, step


def test_names_stay_through_the_steps():
    model, opt, step = _loop()
    params = ["0.weight", "0.bias", "2.weight", "2.bias"]
    for _ in range(4):
        assert step() == [f"{n}.grad" for n in params]
        assert [p._h.name for p in model.parameters()] == params
        assert [opt.state[p]["momentum_buffer"]._h.name for p in model.parameters()] == \
               [f"{n}.momentum_buffer" for n in params]


def test_renaming_one_value_renames_it_alone():
    model, opt, step = _loop()
    step()
    w = model[0].weight
    w._h.name = "first"
    assert step()[0] == "first.grad"
    assert w._h.name == "first"
    assert model[2].weight._h.name == "2.weight"
    assert opt.state[w]["momentum_buffer"]._h.name == "0.weight.momentum_buffer"
    w._h.name = ""
    grads = step()
    assert grads[0] == "" and grads[1] == "0.bias.grad"
    assert w._h.name == ""


def test_an_overwritten_version_is_named_in_the_error():
    # Every step overwrites the versions the step before made: each old one still names its tensor.
    model, opt, step = _loop()
    w = model[2].weight
    for k in range(4):
        old = w._h.pin()
        old_buffer = opt.state[w]["momentum_buffer"]._h.pin() if k else None
        step()
        with pytest.raises(gg.GlassgradError, match=re.escape("cannot use '2.weight' [2, 3]: it was overwritten")):
            old.data()
        if old_buffer is not None:
            with pytest.raises(gg.GlassgradError, match=re.escape("cannot use '2.weight.momentum_buffer' [2, 3]")):
                old_buffer.data()
