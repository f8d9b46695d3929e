"""nn.utils.clip_grad_value_ against PyTorch: gradients limited in place (an alias of .grad sees
the clipped values), parameters without gradients skipped, a single tensor accepted, None
returned, and the clipped gradient used by the next optimizer step. Skipped when torch is not
importable."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")


def _pair(seed):
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((3, 4)).astype(np.float32)
    x = (50 * rng.standard_normal((5, 4))).astype(np.float32)
    ours = gg.nn.Linear(4, 3), gg.nn.Linear(4, 3)
    theirs = torch.nn.Linear(4, 3), torch.nn.Linear(4, 3)
    for m in ours + theirs:
        m.load_state_dict({"weight": gg.tensor(w) if isinstance(m, gg.nn.Module) else torch.tensor(w),
                           "bias": gg.zeros(3) if isinstance(m, gg.nn.Module) else torch.zeros(3)})
    # only the first layer of each pair gets gradients
    (ours[0](gg.tensor(x)) ** 2).sum().backward()
    (theirs[0](torch.tensor(x)) ** 2).sum().backward()
    return ours, theirs


@pytest.mark.parametrize("clip_value", [100, 1.5, 1e9, 0.0])
def test_clip_grad_value_matches_torch_in_place(clip_value):
    ours, theirs = _pair(0)
    alias = ours[0].weight.grad
    params = list(ours[0].parameters()) + list(ours[1].parameters())
    assert gg.nn.utils.clip_grad_value_(params, clip_value) is None
    assert torch.nn.utils.clip_grad_value_(list(theirs[0].parameters()) + list(theirs[1].parameters()),
                                           clip_value) is None
    for a, b in zip(ours[0].parameters(), theirs[0].parameters()):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-5)
        assert np.abs(a.grad.numpy()).max() <= clip_value
    np.testing.assert_array_equal(alias.numpy(), ours[0].weight.grad.numpy())
    assert ours[1].weight.grad is None and theirs[1].weight.grad is None


def test_clip_grad_value_takes_a_tensor_and_a_generator_and_feeds_the_step():
    ours, theirs = _pair(1)
    gg.nn.utils.clip_grad_value_(ours[0].weight, 2.0, foreach=True)
    torch.nn.utils.clip_grad_value_(theirs[0].weight, 2.0, foreach=True)
    np.testing.assert_allclose(ours[0].weight.grad.numpy(), theirs[0].weight.grad.numpy(), rtol=1e-5)
    gg.nn.utils.clip_grad_value_(ours[0].parameters(), 0.5)
    torch.nn.utils.clip_grad_value_(theirs[0].parameters(), 0.5)
    gg.optim.SGD(ours[0].parameters(), lr=0.1).step()
    torch.optim.SGD(theirs[0].parameters(), lr=0.1).step()
    for a, b in zip(ours[0].parameters(), theirs[0].parameters()):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_clip_grad_value_refuses_nan():
    ours, _ = _pair(2)
    with pytest.raises(gg.InvalidArgumentError, match="clip_value is NaN"):
        gg.nn.utils.clip_grad_value_(ours[0].parameters(), float("nan"))
