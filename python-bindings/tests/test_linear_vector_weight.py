"""F.linear with a 1-d weight [in_features] is a matrix-vector product, as PyTorch's: the output
drops the feature axis (y [*] for input [*, in_features]), gradients flow to input and weight; a
bias is taken only where PyTorch takes it (0-d, with an input that is not a matrix)."""
import numpy as np
import pytest

import glassgrad as gg

F = gg.nn.functional
RNG = np.random.default_rng(3)


@pytest.mark.parametrize("shape", [(4,), (3, 4), (2, 3, 4)])
def test_values_and_gradients(shape):
    xv, wv = RNG.standard_normal(shape).astype(np.float32), RNG.standard_normal(4).astype(np.float32)
    x, w = gg.tensor(xv, requires_grad=True), gg.tensor(wv, requires_grad=True)
    y = F.linear(x, w)
    assert tuple(y.shape) == shape[:-1]
    np.testing.assert_allclose(y.detach().numpy(), xv @ wv, rtol=1e-5, atol=1e-6)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.broadcast_to(wv, shape), rtol=1e-6)
    np.testing.assert_allclose(w.grad.numpy(), xv.reshape(-1, 4).sum(0), rtol=1e-5, atol=1e-6)


def test_a_scalar_bias_is_added():
    x, w = gg.ones(2, 3, 4), gg.arange(4.0)
    assert F.linear(x, w, gg.tensor(0.5)).tolist() == [[6.5] * 3] * 2
    assert F.linear(gg.ones(4), w, gg.tensor(0.5)).item() == 6.5


@pytest.mark.parametrize("shape, bias", [((3, 4), ()), ((3, 4), (3,)), ((4,), (1,)), ((2, 3, 4), (3,))])
def test_other_biases_are_refused_as_pytorch(shape, bias):
    with pytest.raises(RuntimeError, match="^mat2 must be a matrix, got 1-D tensor"):
        F.linear(gg.ones(*shape), gg.ones(4), gg.ones(bias))


def test_integers_and_mismatched_sizes():
    assert F.linear(gg.arange(12).reshape(3, 4), gg.arange(4)).tolist() == [14, 38, 62]
    with pytest.raises(RuntimeError):
        F.linear(gg.ones(3, 4), gg.ones(5))


def test_bias_rules_as_torch():
    torch = pytest.importorskip("torch")
    for shape in [(4,), (3, 4), (2, 3, 4)]:
        for bias in [(), (1,)]:
            seen = []
            for lib in (torch, gg):
                try:
                    seen.append(tuple(lib.nn.functional.linear(lib.ones(*shape), lib.ones(4), lib.ones(bias)).shape))
                except RuntimeError as e:
                    seen.append(str(e).splitlines()[0])
            assert seen[0] == seen[1], (shape, bias, seen)


def test_as_torch():
    torch = pytest.importorskip("torch")
    xv, wv = RNG.standard_normal((3, 4)).astype(np.float32), RNG.standard_normal(4).astype(np.float32)
    got = F.linear(gg.tensor(xv), gg.tensor(wv)).numpy()
    want = torch.nn.functional.linear(torch.tensor(xv), torch.tensor(wv)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
