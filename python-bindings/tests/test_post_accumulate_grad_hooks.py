"""Tensor.register_post_accumulate_grad_hook as PyTorch's: the hook runs after the leaf's tensor
hooks, on the accumulated .grad, and must return None (PyTorch raises 'Tensor post accumulate
grad hooks should return None.')."""
import pytest

import glassgrad as gg


def test_runs_after_the_tensor_hooks_on_the_accumulated_grad():
    seen = []
    p = gg.ones(2, requires_grad=True)
    p.register_post_accumulate_grad_hook(lambda t: seen.append(("post", t.grad.tolist())))
    p.register_hook(lambda g: seen.append(("pre", g.tolist())))
    p.register_hook(lambda g: g * 10)
    (p * 3).sum().backward()
    assert seen == [("pre", [3.0, 3.0]), ("post", [30.0, 30.0])]
    assert p.grad.tolist() == [30.0, 30.0]


def test_a_hook_returning_a_value_raises():
    r = gg.ones(2, requires_grad=True)
    r.register_post_accumulate_grad_hook(lambda t: t.grad.mul_(0.5))
    with pytest.raises(RuntimeError, match=r"^Tensor post accumulate grad hooks should return None\."):
        (r * 4).sum().backward()
    assert r.grad.tolist() == [2.0, 2.0]  # the hook ran (as PyTorch's, before its check)
