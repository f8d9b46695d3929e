"""The allocation log from Python: every allocation and free with bytes, a meaningful buffer
name and the device."""
import re

import numpy as np

import glassgrad
from glassgrad import debug


def _line_of(text):
    with open(__file__) as f:
        return next(i for i, line in enumerate(f, 1) if text in line and "_line_of" not in line)


def _model():
    glassgrad.manual_seed(0)
    return glassgrad.Sequential(glassgrad.Conv2D(1, 2, 3), glassgrad.ReLU(), glassgrad.Flatten(),
                                glassgrad.Linear(2 * 4 * 4, 3))


def test_every_allocation_of_a_training_step_is_named(rng):
    model = _model()
    opt = glassgrad.SGD(model.parameters(), lr=0.1, momentum=0.9)
    glassgrad._C.empty_cache("cpu")  # release the arena earlier tests grew, so this step allocates one
    with debug.allocation_log() as log:
        x = glassgrad.tensor(rng.standard_normal((2, 1, 6, 6)).astype(np.float32))  # the data line
        y = glassgrad.tensor(np.array([0, 2]))
        loss = glassgrad.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        loss.item()
    names = [e["name"] for e in log.allocations()]
    assert all(names), log
    assert all(e["device"] == "cpu" for e in log.events)
    assert f"tensor@test_debug_allocation_log.py:{_line_of('# the data line')}" in names  # x, named after its line
    assert "arena" in names
    assert "CrossEntropy.loss" in names  # a plan output, named after its op
    assert {"0.weight.grad", "0.bias.grad", "3.weight.grad", "3.bias.grad"} <= set(names)
    assert {"0.weight.momentum_buffer", "lr"} <= set(names)
    totals = log.by_name()
    assert totals["3.weight.grad"] == 3 * 32 * 4
    assert list(totals.values()) == sorted(totals.values(), reverse=True)


def test_the_log_prints_one_line_per_event_and_its_peak(rng):
    with debug.allocation_log() as log:
        a = glassgrad.tensor(np.ones(1000, np.float32), name="ones")
        del a
    text = str(log)
    peak = glassgrad._C.format_bytes(log.peak())
    assert text.splitlines()[0] == f"allocation log on cpu: 2 events, peak in use {peak}"
    assert re.search(r"alloc \+ +3\.91 KiB  ones +cpu  in use", text)
    assert re.search(r"free  - +3\.91 KiB  ones +cpu  in use", text)


def test_allocation_log_is_the_same_switch_as_glassgrad_allocation_log():
    assert issubclass(debug.allocation_log, glassgrad.allocation_log)
    with glassgrad.allocation_log() as log:
        glassgrad.zeros(4)
    assert [(e["event"], e["bytes"]) for e in log.events] == [("alloc", 16), ("free", 16)]
    assert log.events[0]["name"].startswith("tensor@test_debug_allocation_log.py:")
