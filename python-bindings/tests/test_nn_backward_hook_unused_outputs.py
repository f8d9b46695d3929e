"""A module's backward pre-hook and full backward hook see None in grad_output for an output the
loss did not use, as PyTorch's; a pre-hook may put a gradient there, which then flows. An input
that needs no gradient stays so through the hooks (zeros in grad_input)."""
import glassgrad.torch as torch
from glassgrad.torch import nn


class Two(nn.Module):
    def forward(self, a):
        return a * 2, a * 3, 5


def _listed(grads):
    return [None if g is None else g.tolist() for g in grads]


def test_unused_outputs_have_none_in_grad_output():
    seen = []
    m = Two()
    m.register_full_backward_pre_hook(lambda mod, go: seen.append(("pre", _listed(go))))
    m.register_full_backward_hook(lambda mod, gi, go: seen.append(("full", _listed(gi), _listed(go))))
    a = torch.ones(2, requires_grad=True)
    x, y, _ = m(a)
    x.sum().backward()
    assert seen == [("pre", [[1.0, 1.0], None, None]), ("full", [[2.0, 2.0]], [[1.0, 1.0], None, None])]
    assert a.grad.tolist() == [2.0, 2.0]


def test_a_pre_hook_may_give_an_unused_output_a_gradient():
    m = Two()
    m.register_full_backward_pre_hook(lambda mod, go: (go[0], torch.full((2,), 7.0), go[2]))
    a = torch.ones(2, requires_grad=True)
    x, _, _ = m(a)
    x.sum().backward()
    assert a.grad.tolist() == [23.0, 23.0]  # 1 * 2 + 7 * 3


def test_an_input_needing_no_gradient_stays_so_through_the_hooks():
    class Pair(nn.Module):
        def forward(self, a, b):
            return a * 2, b * 3

    seen = []
    m = Pair()
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((_listed(gi), _listed(go))))
    a = torch.ones(2, requires_grad=True)
    x, y = m(a, torch.ones(2))
    assert not y.requires_grad
    (x.sum() + y.sum()).backward()
    assert seen == [([[2.0, 2.0], [0.0, 0.0]], [[1.0, 1.0], None])]
