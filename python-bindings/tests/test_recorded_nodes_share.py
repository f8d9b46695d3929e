"""Recorded nodes share what repeats from step to step (docs/architecture.md, "What recording
itself costs"): nodes with the same attributes share one copy of them, a shape rule's results are
kept for the next node with the same op, inputs, attributes and metadata, and nodes and values are
made from per-thread free lists. None of it may show: a node renamed after it was recorded (fill_'s
Expand becoming FillBackward3) renames no other node, attributes that differ only in the sign of
a zero stay apart, a rule that refused its inputs refuses them again, and values made on one
thread and freed on another (short-lived threads, a data loader's workers) keep their data and
gradients."""
import threading

import numpy as np
import pytest

import glassgrad as gg


def test_a_write_naming_its_node_leaves_the_nodes_with_the_same_attributes_alone():
    t = gg.tensor(2.0, requires_grad=True)
    before = t.expand(3)        # an Expand with the attributes fill_'s own Expand has
    x = gg.zeros(3)
    x.fill_(t)                  # names its Expand FillBackward3 (PyTorch's node for fill_)
    after = t.expand(3)
    assert before.grad_fn.name() == "ExpandBackward0"
    assert x.grad_fn.name() == "FillBackward3"
    assert after.grad_fn.name() == "ExpandBackward0"
    (before.sum() + x.sum() * 10 + after.sum() * 100).backward()
    assert t.grad.item() == 3 + 30 + 300


def test_attributes_differing_in_the_sign_of_zero_stay_apart():
    x = gg.tensor(np.array([1.0, -2.0], np.float32))
    plus, minus = x * 0.0, x * -0.0
    assert list(np.signbit(plus.numpy())) == [False, True]    # IEEE: 1 * 0 = 0, -2 * 0 = -0
    assert list(np.signbit(minus.numpy())) == [True, False]


def test_a_refused_node_is_refused_every_time_it_is_recorded():
    a, b = gg.ones(2, 3), gg.ones(4, 5)
    lin = gg.nn.Linear(3, 2)
    x = gg.ones(1, 3)
    for _ in range(3):
        assert tuple((a @ gg.ones(3, 5)).shape) == (2, 5)    # the rule's result, kept
        with pytest.raises(gg.ShapeError, match="MatMul: inner sizes differ: a is \\[2, 3\\] and b is \\[4, 5\\]"):
            a @ b
        assert tuple(lin(x).shape) == (1, 2)
        with pytest.raises(gg.DTypeError, match="Linear: the input is float64 but the layer's parameters are float32"):
            lin(x.double())


def test_more_distinct_attributes_than_the_shared_table_holds():
    x = gg.tensor(np.arange(3, dtype=np.float32), requires_grad=True)
    total = x * 0.0
    for k in range(5000):       # 5000 distinct scalars: the table of shared attributes starts again
        total = total + x * float(k)
    total.sum().backward()
    expected = float(sum(range(5000)))
    np.testing.assert_allclose(total.detach().numpy(), np.arange(3) * expected, rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, expected), rtol=1e-6)


def test_graphs_recorded_on_short_lived_threads_and_freed_on_another():
    w = gg.Parameter(np.array([1.0, 2.0, 3.0], np.float32))
    made = []

    def record(k):
        # A graph (nodes and values) made on this thread, outliving it.
        made.append((k, (w * float(k + 1)).tanh().sum()))

    for k in range(40):
        t = threading.Thread(target=record, args=(k,))
        t.start()
        t.join()
    loss = sum(loss for _, loss in made)
    loss.backward()             # the graphs are differentiated and freed on this thread
    made.clear()
    del loss
    wn = np.array([1.0, 2.0, 3.0])
    scale = np.arange(1, 41, dtype=np.float64)[:, None]
    expected = (scale * (1 - np.tanh(scale * wn) ** 2)).sum(axis=0)
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-5)

    # And the other way round: made here, freed on a thread that then exits.
    graphs = [(w * float(k)).sum() for k in range(100)]

    def drop():
        graphs.clear()

    t = threading.Thread(target=drop)
    t.start()
    t.join()
    assert (w * 2.0).sum().item() == 12.0
