"""One graph from the tracer to the planner (docs/architecture.md): a realize numbers the trace
as the engine's graph of it would be and keys the plan cache with the nodes' record-time hashes,
so a step whose plan is cached builds no engine graph; a miss builds one and compiles it. These
tests hold the key to what the graph holds (structure, sharing, attributes, leaf kinds, shapes)
and the cached plans' results to freshly compiled ones."""
import numpy as np
import pytest

import glassgrad as gg


def _loop(seed=0):
    gg.manual_seed(seed)
    model = gg.nn.Sequential(gg.nn.Conv2d(1, 3, 3), gg.nn.BatchNorm2d(3), gg.nn.ReLU(), gg.nn.Flatten(),
                             gg.nn.Linear(3 * 4 * 4, 4))
    opt = gg.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    rng = np.random.default_rng(seed)
    batches = [(rng.random((6, 1, 6, 6), dtype=np.float32), rng.integers(0, 4, 6)) for _ in range(5)]

    def step(i, clear=False):
        if clear:
            gg.clear_plan_cache()
        x, y = batches[i % len(batches)]
        loss = gg.nn.functional.cross_entropy(model(gg.tensor(x)), gg.tensor(y))
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss.item()

    return model, step


def test_a_repeated_step_builds_no_engine_graph():
    _, step = _loop()
    step(0)
    step(1)
    before = gg.cache_stats()
    for i in range(2, 6):
        step(i)
    after = gg.cache_stats()
    assert after["graphs_built"] == before["graphs_built"]
    assert after["compiles"] == before["compiles"]
    assert after["hits"] == before["hits"] + 4


def test_each_compile_builds_one_graph():
    gg.clear_plan_cache()
    gg.reset_cache_stats()
    _, step = _loop(1)
    step(0)
    s = gg.cache_stats()
    assert s["compiles"] >= 1 and s["graphs_built"] == s["compiles"]


def test_cached_plans_train_as_freshly_compiled_ones():
    model_a, step_a = _loop(2)
    model_b, step_b = _loop(2)
    losses_a = [step_a(i) for i in range(6)]
    losses_b = [step_b(i, clear=True) for i in range(6)]  # every step compiles its plan anew
    assert losses_a == losses_b
    for (na, pa), (nb, pb) in zip(model_a.state_dict().items(), model_b.state_dict().items()):
        assert na == nb
        np.testing.assert_array_equal(np.array(pa), np.array(pb), err_msg=na)


def test_sharing_is_part_of_the_key():
    # x + x and x + y read the same shapes: only the wiring tells them apart.
    x = gg.tensor(np.arange(4, dtype=np.float32))
    y = gg.tensor(np.full(4, 10, np.float32))
    np.testing.assert_array_equal((x + x).numpy(), [0, 2, 4, 6])
    np.testing.assert_array_equal((x + y).numpy(), [10, 11, 12, 13])
    np.testing.assert_array_equal((y + x).numpy(), [10, 11, 12, 13])
    np.testing.assert_array_equal(((x * 2) + x).numpy(), [0, 3, 6, 9])
    np.testing.assert_array_equal(((x * 2) + y).numpy(), [10, 12, 14, 16])


def test_attributes_and_ops_are_part_of_the_key():
    a = np.arange(9, dtype=np.float32).reshape(3, 3)
    x = gg.tensor(a)
    np.testing.assert_array_equal(x.sum(0).numpy(), a.sum(0))  # same output shape, another axis
    np.testing.assert_array_equal(x.sum(1).numpy(), a.sum(1))
    np.testing.assert_array_equal((x * 3).numpy(), a * 3)
    np.testing.assert_array_equal((x + 3).numpy(), a + 3)


def test_leaf_kinds_and_shapes_are_part_of_the_key():
    w = gg.nn.Parameter(gg.tensor(np.ones((2, 2), np.float32)))
    x = gg.tensor(np.full((2, 2), 2, np.float32))
    with gg.no_grad():
        np.testing.assert_array_equal((w * 2).numpy(), np.full((2, 2), 2))
        np.testing.assert_array_equal((x * 2).numpy(), np.full((2, 2), 4))
    for n in (2, 3, 2):
        np.testing.assert_array_equal((gg.tensor(np.ones(n, np.float32)) * 2).numpy(), np.full(n, 2))


def test_a_node_whose_other_output_nobody_holds_exports_and_caches():
    # max(dim) has two outputs; dropping the indices leaves a node with a dead output.
    a = np.array([[1, 5, 2], [7, 0, 3]], np.float32)
    for _ in range(3):
        values = gg.max(gg.tensor(a), dim=1)[0]
        np.testing.assert_array_equal(values.numpy(), [5, 7])
    gg.clear_plan_cache()
    before = gg.cache_stats()["graphs_built"]
    values = gg.max(gg.tensor(a), dim=1)[0]
    np.testing.assert_array_equal(values.numpy(), [5, 7])
    assert gg.cache_stats()["graphs_built"] == before + 1


def test_the_printed_pending_graph_is_the_engine_graph():
    x = gg.tensor(np.ones((2, 3), np.float32))
    y = gg.relu(x * 2)
    text = y._h.pending_graph()
    assert "Mul" in text and "ReLU" in text and "[2, 3] float32" in text
    np.testing.assert_array_equal(y.numpy(), np.full((2, 3), 2))


@pytest.mark.parametrize("fusion", [True, False])
def test_the_fusion_switch_keys_its_own_plan(fusion):
    x = gg.tensor(np.linspace(-1, 1, 6, dtype=np.float32))
    prev = gg._C.fusion_enabled()
    try:
        gg.set_fusion(fusion)
        np.testing.assert_allclose(gg.relu(x * 2 + 1).numpy(), np.maximum(np.linspace(-1, 1, 6) * 2 + 1, 0),
                                   rtol=1e-6)
    finally:
        gg.set_fusion(prev)


# ---- backward(): the gradient nodes of a trace seen before are reused ----


def test_a_repeated_step_reuses_its_gradient_nodes():
    _, step = _loop(5)
    step(0)
    before = gg.cache_stats()
    for i in range(1, 5):
        step(i)
    after = gg.cache_stats()
    assert after["gradients_reused"] == before["gradients_reused"] + 4
    assert after["gradients_built"] == before["gradients_built"]


def test_gradient_nodes_are_not_shared_between_layers_of_the_same_shape():
    # Two models of one structure whose layers are named apart: each backward carries its own
    # layers' names (for messages and the plans' steps), so neither reuses the other's nodes.
    class A(gg.nn.Module):
        def __init__(self):
            super().__init__()
            self.first = gg.nn.Linear(3, 2)

        def forward(self, x):
            return self.first(x)

    class B(gg.nn.Module):
        def __init__(self):
            super().__init__()
            self.second = gg.nn.Linear(3, 2)

        def forward(self, x):
            return self.second(x)

    gg.manual_seed(0)
    a, b = A(), B()
    x = gg.tensor(np.ones((4, 3), np.float32))
    for _ in range(2):
        a(x).sum().backward()
        text_a = a.first.weight.grad._h.pending_graph()
        gg.realize(a.first.weight.grad)
        b(x).sum().backward()
        text_b = b.second.weight.grad._h.pending_graph()
        gg.realize(b.second.weight.grad)
        assert "# first (backward)" in text_a and "second" not in text_a
        assert "# second (backward)" in text_b and "first" not in text_b
    np.testing.assert_allclose(b.second.weight.grad.numpy(), np.full((2, 3), 8.0))  # two backwards of 4 rows


def test_a_seed_of_another_shape_or_value_differentiates_its_own_way():
    w = gg.nn.Parameter(gg.tensor(np.arange(6, dtype=np.float32).reshape(2, 3)))
    for scale in (1.0, 2.0, 1.0):
        w.grad = None
        (w * 3).backward(gg.tensor(np.full((2, 3), scale, np.float32)))
        np.testing.assert_allclose(w.grad.numpy(), np.full((2, 3), 3 * scale))
    w.grad = None
    (w * 3).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), np.full((2, 3), 3.0))


def test_backward_twice_without_retain_graph_still_raises_when_reused():
    w = gg.nn.Parameter(gg.tensor(np.ones(3, np.float32)))
    for _ in range(2):  # the second round reuses the first round's gradient nodes
        y = (w * w).sum()
        y.backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            y.backward()
        w.grad = None


def test_clearing_the_plan_cache_forgets_the_gradient_nodes():
    _, step = _loop(6)
    step(0)
    step(1)
    gg.clear_plan_cache()
    before = gg.cache_stats()["gradients_built"]
    step(2)
    assert gg.cache_stats()["gradients_built"] == before + 1


@pytest.mark.parametrize("read_states_first", [False, True])
def test_a_computed_value_whose_producer_runs_again_keeps_its_numbering(read_states_first):
    # Reading each step's state computes it; backward then needs an output of the same node that
    # nobody held (its saved pre-activation), so the next realize runs that node again while the
    # nodes before it read the computed state as a leaf. Both ways give the same gradients.
    gg.manual_seed(0)
    cell = gg.nn.RNNCell(3, 5).double()
    rng = np.random.default_rng(6)
    xs, h0 = rng.standard_normal((4, 2, 3)), rng.standard_normal((2, 5))
    weights = [rng.standard_normal((2, 5)) for _ in range(4)]

    def grads(read):
        x = gg.tensor(xs, requires_grad=True)
        state, loss = gg.tensor(h0, requires_grad=True), None
        for t in range(4):
            state = cell(x[t], state)
            if read:
                state.detach().numpy()
            term = (state * gg.tensor(weights[t])).sum()
            loss = term if loss is None else loss + term
        loss.backward()
        return x.grad.numpy()

    np.testing.assert_allclose(grads(read_states_first), grads(False), rtol=1e-12)


def test_a_hooked_intermediate_differentiates_afresh_and_the_template_serves_the_rest():
    w = gg.nn.Parameter(gg.tensor(np.arange(3, dtype=np.float32)))
    x = gg.tensor(np.ones(3, np.float32))

    def step(hook=None):
        w.grad = None
        h = w * x
        if hook is not None:
            h.register_hook(hook)
        (h * 2).sum().backward()
        return w.grad.numpy()

    for _ in range(2):
        np.testing.assert_array_equal(step(), [2, 2, 2])
    before = gg.cache_stats()
    np.testing.assert_array_equal(step(lambda g: g * 10), [20, 20, 20])  # the hook changed h's gradient
    after = gg.cache_stats()
    assert after["gradients_built"] == before["gradients_built"] + 1
    np.testing.assert_array_equal(step(), [2, 2, 2])  # no hook: the template again
    assert gg.cache_stats()["gradients_reused"] == after["gradients_reused"] + 1
