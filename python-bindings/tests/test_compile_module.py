"""torch.compile(model) as scripts call it (nanoGPT's `model = torch.compile(model)`): an
OptimizedModule holding the original as _orig_mod, training through it as through the original
(a result with a gradient graph is never replayed), eval calls under no_grad replayed, and a
compiled function whose result is differentiated outside the call (docs/performance.md)."""
import numpy as np

import glassgrad as gg
import glassgrad.nn as nn


def _model():
    gg.manual_seed(3)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.0), nn.Linear(8, 2))


def _train(model, steps=4):
    opt = gg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = gg.tensor(np.random.default_rng(0).standard_normal((16, 4)), dtype=gg.float32)
    y = gg.tensor(np.arange(16) % 2)
    losses = []
    for _ in range(steps):
        loss = gg.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def test_a_compiled_model_trains_exactly_as_the_original():
    eager, original = _model(), _model()
    compiled = gg.compile(original, mode="max-autotune", fullgraph=False)
    assert isinstance(compiled, nn.Module) and compiled._orig_mod is original
    np.testing.assert_allclose(_train(compiled), _train(eager), rtol=1e-6)
    for a, b in zip(original.parameters(), eager.parameters()):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6)


def test_a_compiled_model_is_the_original_behind_orig_mod():
    original = _model()
    compiled = gg.compile(original)
    assert list(compiled.state_dict()) == ["_orig_mod." + k for k in original.state_dict()]
    assert [id(p) for p in compiled.parameters()] == [id(p) for p in original.parameters()]
    original.block_size = 32
    assert compiled.block_size == 32               # other attributes are the original's (nanoGPT's model.crop_block_size)
    compiled.eval()
    assert not original.training and not original[2].training
    assert repr(compiled).startswith("OptimizedModule(\n  (_orig_mod): Sequential(")


def test_eval_calls_without_gradients_are_replayed_and_match():
    original = _model()
    compiled = gg.compile(original).eval()
    x = gg.randn(5, 4)
    with gg.no_grad():
        outs = [compiled(x) for _ in range(4)]
        want = original(x)
    for out in outs:
        np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-6)
    assert compiled._compiled.replays == 2


def test_a_compiled_forward_function_can_be_differentiated_outside_it():
    model = _model()
    forward = gg.compile(lambda x: model(x))
    x = gg.randn(6, 4)
    for _ in range(3):
        model.zero_grad()
        forward(x).sum().backward()
        assert model[0].weight.grad is not None
    assert forward.replays == 0
