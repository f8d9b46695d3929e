"""register_post_accumulate_grad_hook runs per leaf, as PyTorch's: right after that leaf's .grad is
accumulated, before the next leaf's hooks, in the order PyTorch's engine completes the leaves
(the leaf read last in the forward pass first; a Linear layer's bias before its weight, a
convolution's weight before its bias), so an optimizer step run from the hook sees the other
parameters' gradients not yet stored (docs/gradient-hooks.md)."""
import numpy as np
import pytest

import glassgrad as gg


def _chain_record(lib):
    seen = []
    w1, w2, w3 = (lib.ones(2, requires_grad=True) for _ in range(3))
    for name, w in (("w1", w1), ("w2", w2), ("w3", w3)):
        w.register_post_accumulate_grad_hook(
            lambda p, name=name: seen.append(("post", name, [x.grad is not None for x in (w1, w2, w3)])))
        w.register_hook(lambda g, name=name: seen.append(("pre", name)))
    (((lib.ones(2) * w1) * w2) * w3).sum().backward()
    return seen


def _layer_order(lib, model, x):
    seen = []
    for name, p in model.named_parameters():
        p.register_post_accumulate_grad_hook(lambda p, name=name: seen.append(name))
    model(x).sum().backward()
    return seen


def _mlp_order(lib):
    lib.manual_seed(0)
    nn = lib.nn
    return _layer_order(lib, nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 3)), lib.randn(2, 4))


def _conv_order(lib):
    lib.manual_seed(0)
    nn = lib.nn
    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.Flatten(), nn.Linear(32, 2))
    return _layer_order(lib, model, lib.randn(2, 1, 6, 6))


def _reuse_order(lib):
    seen = []
    w, v = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
    for name, p in (("w", w), ("v", v)):
        p.register_post_accumulate_grad_hook(lambda p, name=name: seen.append(name))
    ((w * 2) * v * w).sum().backward()  # w is read first and last: complete after v
    (w * 2 + v * 3).sum().backward()
    (v * 3 + w * 2).sum().backward()
    return seen


_RECORDS = {
    "chain": (_chain_record, [("pre", "w3"), ("post", "w3", [False, False, True]),
                              ("pre", "w2"), ("post", "w2", [False, True, True]),
                              ("pre", "w1"), ("post", "w1", [True, True, True])]),
    "mlp": (_mlp_order, ["2.bias", "2.weight", "0.bias", "0.weight"]),
    "conv": (_conv_order, ["4.bias", "4.weight", "1.weight", "1.bias", "0.weight", "0.bias"]),
    "reuse": (_reuse_order, ["v", "w", "v", "w", "w", "v"]),
}


@pytest.mark.parametrize("name", sorted(_RECORDS))
def test_hooks_run_per_leaf_in_pytorchs_order(name):
    record, expected = _RECORDS[name]
    assert record(gg) == expected


@pytest.mark.parametrize("name", sorted(_RECORDS))
def test_order_as_torch(name):
    torch = pytest.importorskip("torch")
    record, _ = _RECORDS[name]
    assert record(gg) == record(torch)


def test_a_repeated_step_keeps_the_order():
    # the second step reuses the first one's backward: the order is kept with it
    seen = []
    a, b = gg.ones(3, requires_grad=True), gg.ones(3, requires_grad=True)
    a.register_post_accumulate_grad_hook(lambda p: seen.append("a"))
    b.register_post_accumulate_grad_hook(lambda p: seen.append("b"))
    for _ in range(2):
        ((a * 2).sum() * (b * 3).sum()).backward()
    assert seen == ["b", "a", "b", "a"]


def _train(in_backward: bool, steps: int = 3):
    gg.manual_seed(0)
    nn = gg.nn
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    x, target = gg.randn(5, 3), gg.randn(5, 2)
    params = list(model.parameters())
    if in_backward:  # PyTorch's "optimizer step in backward" pattern: one optimizer a parameter
        optimizers = {p: gg.optim.SGD([p], lr=0.1, momentum=0.9) for p in params}
        grads_seen = []

        def step(p):
            grads_seen.append(sum(q.grad is not None for q in params))
            optimizers[p].step()
            optimizers[p].zero_grad()
        for p in params:
            p.register_post_accumulate_grad_hook(step)
        for _ in range(steps):
            ((model(x) - target) ** 2).mean().backward()
        assert grads_seen == [1] * (len(params) * steps)  # each hook sees its own gradient only
        assert all(p.grad is None for p in params)
    else:
        opt = gg.optim.SGD(params, lr=0.1, momentum=0.9)
        for _ in range(steps):
            opt.zero_grad()
            ((model(x) - target) ** 2).mean().backward()
            opt.step()
    return [p.detach().numpy().copy() for p in params]


def test_optimizer_step_in_backward_trains_as_the_plain_loop():
    for got, want in zip(_train(True), _train(False)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_accumulation_over_two_backwards_and_remove():
    seen = []
    p = gg.tensor([1.0, 2.0], requires_grad=True)
    handle = p.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    y = (p * 3).sum()
    y.backward(retain_graph=True)
    y.backward(retain_graph=True)
    handle.remove()
    y.backward()
    assert seen == [[3.0, 3.0], [6.0, 6.0]]
    assert p.grad.tolist() == [9.0, 9.0]


def test_backward_inputs_runs_the_hooks_of_those_inputs():
    seen = []
    a, b = gg.ones(2, requires_grad=True), gg.ones(2, requires_grad=True)
    a.register_post_accumulate_grad_hook(lambda t: seen.append(("a", t.grad.tolist())))
    b.register_post_accumulate_grad_hook(lambda t: seen.append(("b", None)))
    (a * b * 2).sum().backward(inputs=[a])
    assert seen == [("a", [2.0, 2.0])]


def test_a_computed_tensor_refuses_the_hook():
    with pytest.raises(RuntimeError, match="^post accumulate grad hooks cannot be registered on non-leaf tensors"):
        (gg.ones(2, requires_grad=True) * 2).register_post_accumulate_grad_hook(lambda t: None)
