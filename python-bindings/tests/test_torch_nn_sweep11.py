"""nn modules side by side with PyTorch, eleventh sweep: what a layer refuses is PyTorch's
exception class with PyTorch's sentence first (then glassgrad's cause and fix), and what it
computes, keeps and prints is PyTorch's. Skipped without torch."""
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")


def _first_lines(make, call):
    """(exception class names, first line) of make(lib) then call(lib, layer) in both libraries."""
    out = []
    for L in (torch, gg):
        layer = make(L)
        with pytest.raises(Exception) as info:
            call(L, layer)
        out.append((info.type, str(info.value).splitlines()[0]))
    (torch_type, torch_line), (gg_type, gg_line) = out
    assert issubclass(gg_type, torch_type), (torch_type, gg_type)
    return torch_line, gg_line


@pytest.mark.parametrize("cell, batch, hidden, which", [
    (cell, batch, hidden, which) for cell in ("RNNCell", "GRUCell", "LSTMCell") for batch, hidden in ((2, 6), (3, 5))
    for which in ((0, 1) if cell == "LSTMCell" else (0,))])
def test_a_cell_refuses_a_state_of_another_size_with_pytorchs_sentence(cell, batch, hidden, which):

    def call(L, layer):
        states = [L.zeros(3, 6), L.zeros(3, 6)]
        states[which] = L.zeros(batch, hidden)
        return layer(L.zeros(3, 4), tuple(states) if cell == "LSTMCell" else states[0])
    want, got = _first_lines(lambda L: getattr(L.nn, cell)(4, 6), call)
    assert got == want


@pytest.mark.parametrize("shapes", [((2, 3), (3, 4), (5, 3, 4), None), ((2, 3), (2, 5), (5, 3, 4), None),
                                    ((2, 2, 3), (2, 3), (5, 3, 4), None), ((2, 3), (2, 4), (5, 3, 5), None),
                                    ((2, 3), (2, 4), (5, 4, 4), None), ((2, 3), (2, 4), (5, 3, 4), (4,)),
                                    ((2, 2, 3), (2, 3, 4), (5, 3, 4), None)])
def test_bilinear_refuses_with_pytorchs_sentence_in_its_order(shapes):
    a, b, w, bias = shapes

    def call(L, _):
        return L.nn.functional.bilinear(L.zeros(a), L.zeros(b), L.zeros(w), None if bias is None else L.zeros(bias))
    want, got = _first_lines(lambda L: None, call)
    assert got == want


@pytest.mark.parametrize("target", [[0, 2, -1, 1], [0, 2, 5, 1]])
def test_multi_margin_loss_refuses_a_target_out_of_range_as_pytorch(target):
    def call(L, _):
        return L.nn.functional.multi_margin_loss(L.zeros(4, 5), L.tensor(target))
    want, got = _first_lines(lambda L: None, call)
    assert got == want == "target out of range"


def test_triplet_margin_loss_refuses_inputs_of_other_ranks_with_pytorchs_sentence():
    def call(L, _):
        return L.nn.functional.triplet_margin_loss(L.zeros(4, 5), L.zeros(5), L.zeros(5))
    want, got = _first_lines(lambda L: None, call)
    assert got == want


def _ctc(L, reduction, zero_infinity=False, unbatched=False):
    """ctc_loss of a batch whose first sample cannot be aligned (3 labels with a repeat in 2 frames):
    the loss, the gradient of log_probs and the loss's node."""
    import numpy as np
    lp = L.tensor(np.log(np.random.default_rng(1).dirichlet(np.ones(5), size=(6, 2))), requires_grad=True)
    if unbatched:
        loss = L.nn.functional.ctc_loss(lp[:, 1], L.tensor([3, 1]), L.tensor(5), L.tensor(2), reduction=reduction)
    else:
        loss = L.nn.functional.ctc_loss(lp, L.tensor([[1, 2, 2], [3, 1, 2]]), L.tensor([2, 5]), L.tensor([3, 2]),
                                        reduction=reduction, zero_infinity=zero_infinity)
    loss.sum().backward()
    return loss.detach().numpy(), lp.grad.numpy(), type(loss.grad_fn).__name__


@pytest.mark.parametrize("reduction, zero_infinity, unbatched", [
    ("mean", False, False), ("sum", False, False), ("none", False, False), ("none", True, False),
    ("mean", True, False), ("none", False, True)])
def test_ctc_loss_of_an_impossible_alignment_has_pytorchs_gradient_and_node(reduction, zero_infinity, unbatched):
    # without zero_infinity PyTorch's gradient is nan at that sample's frames before its input
    # length (0 after them, and the other samples' finite)
    import numpy as np
    want = _ctc(torch, reduction, zero_infinity, unbatched)
    got = _ctc(gg, reduction, zero_infinity, unbatched)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-10)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-8, atol=1e-12)   # nan where PyTorch's is nan
    assert got[2] == want[2]


_UNINITIALIZED_USES = {
    "torch.add": lambda L, w: L.add(w, 1),
    "F.relu": lambda L, w: L.nn.functional.relu(w),
    "F.linear": lambda L, w: L.nn.functional.linear(L.ones(2, 3), w),
    "torch.exp": lambda L, w: L.exp(w),
    "torch.max": lambda L, w: L.max(w),
}


@pytest.mark.parametrize("use", sorted(_UNINITIALIZED_USES))
@pytest.mark.parametrize("layer", ["LazyLinear weight", "LazyBatchNorm1d running_mean converted"])
def test_a_function_of_an_uninitialized_lazy_tensor_raises_pytorchs_value_error(use, layer):
    for L in (torch, gg):
        if layer.startswith("LazyLinear"):
            t = L.nn.LazyLinear(3).weight
        else:
            t = L.nn.LazyBatchNorm1d().double().running_mean  # a conversion stays uninitialized
        with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter in"):
            _UNINITIALIZED_USES[use](L, t)


def test_a_lazy_layer_s_tensors_work_in_functions_once_initialized():
    m = gg.nn.LazyLinear(3)
    m.double()
    y = m(gg.ones(2, 4, dtype=gg.float64))
    assert tuple(gg.add(m.weight, 1).shape) == (3, 4) and tuple(gg.nn.functional.relu(y).shape) == (2, 3)
    b = gg.nn.LazyLinear(3).bias
    b.materialize((3,))
    assert gg.exp(b).tolist() == [1.0, 1.0, 1.0]
