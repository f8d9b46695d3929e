"""Switches PyTorch hands to its C++ ops (LSTM/GRU/RNN's bidirectional, Embedding's sparse and
scale_grad_by_freq, EmbeddingBag's include_last_offset, KLDivLoss's log_target,
TripletMarginLoss's swap, PairwiseDistance's keepdim, CTCLoss's zero_infinity): the layer keeps
the value as given, as PyTorch's does (its repr shows it), and its call raises PyTorch's TypeError
for one that is no bool (docs/porting.md). Switches PyTorch reads in Python
(F.triplet_margin_with_distance_loss's swap) take any value by its truth."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad import nn
import glassgrad.nn.functional as F

SEQ = gg.zeros(2, 5, 3)
ROWS, ZEROS = gg.ones(2, 3), gg.zeros(2, 3)

BUILT_THEN_REFUSED = [
    (lambda v: nn.LSTM(3, 4, bidirectional=v), (SEQ,), "lstm\\(\\) received an invalid combination of arguments"),
    (lambda v: nn.GRU(3, 4, bidirectional=v), (SEQ,), "gru\\(\\) received an invalid combination of arguments"),
    (lambda v: nn.RNN(3, 4, bidirectional=v), (SEQ,), "rnn\\(\\) received an invalid combination of arguments"),
    (lambda v: nn.KLDivLoss(log_target=v, reduction="batchmean"), (ZEROS, ZEROS), "kl_div\\(\\): argument 'log_target' must be bool"),
    (lambda v: nn.TripletMarginLoss(swap=v), (ROWS, ZEROS, ZEROS),
     "triplet_margin_loss\\(\\): argument 'swap' \\(position 7\\) must be bool"),
    (lambda v: nn.PairwiseDistance(keepdim=v), (ROWS, ZEROS), "pairwise_distance\\(\\): argument 'keepdim'"),
    (lambda v: nn.Embedding(4, 3, scale_grad_by_freq=v), (gg.tensor([1, 2]),),
     "embedding\\(\\): argument 'scale_grad_by_freq' \\(position 4\\) must be bool"),
    (lambda v: nn.Embedding(4, 3, sparse=v), (gg.tensor([1, 2]),),
     "embedding\\(\\): argument 'sparse' \\(position 5\\) must be bool"),
    (lambda v: nn.EmbeddingBag(4, 3, include_last_offset=v), (gg.tensor([1, 2]), gg.tensor([0, 1])),
     "embedding_bag\\(\\): argument 'include_last_offset' \\(position 8\\) must be bool"),
    (lambda v: nn.EmbeddingBag(4, 3, sparse=v), (gg.tensor([1, 2]), gg.tensor([0, 1])),
     "embedding_bag\\(\\): argument 'sparse' \\(position 6\\) must be bool"),
    (lambda v: nn.CTCLoss(zero_infinity=v), (gg.zeros(5, 1, 3).log_softmax(2), gg.tensor([[1]]), gg.tensor([5]),
                                             gg.tensor([1])), "zero_infinity"),
]


@pytest.mark.parametrize("value", [1, 0, None, np.bool_(True)])
@pytest.mark.parametrize("make,args,text", BUILT_THEN_REFUSED)
def test_the_layer_builds_and_its_call_refuses(make, args, text, value):
    layer = make(value)
    with pytest.raises(TypeError, match=text):
        layer(*args)


@pytest.mark.parametrize("make,args,text", BUILT_THEN_REFUSED)
def test_bools_run(make, args, text):
    make(False)(*args)


@pytest.mark.parametrize("make,shown", [
    (lambda: nn.LSTM(3, 4, bidirectional=1), "LSTM(3, 4, bidirectional=1)"),
    (lambda: nn.GRU(3, 4, bidirectional=None), "GRU(3, 4, bidirectional=None)"),
    (lambda: nn.Embedding(4, 3, scale_grad_by_freq=1), "Embedding(4, 3, scale_grad_by_freq=1)"),
    (lambda: nn.Embedding(4, 3, sparse=None), "Embedding(4, 3, sparse=True)"),  # PyTorch's `is not False`
])
def test_the_repr_shows_the_value_as_given(make, shown):
    assert repr(make()) == shown


def test_a_truthy_bidirectional_builds_both_directions():
    names = [n for n, _ in nn.LSTM(3, 4, bidirectional=1).named_parameters()]
    assert "weight_ih_l0_reverse" in names


@pytest.mark.parametrize("call,text", [
    (lambda: F.embedding(gg.tensor([1]), gg.zeros(3, 2), sparse=1), "'sparse' \\(position 5\\) must be bool, not int"),
    (lambda: F.embedding(gg.tensor([1]), gg.zeros(3, 2), scale_grad_by_freq=None), "not NoneType"),
    (lambda: F.embedding_bag(gg.tensor([1]), gg.zeros(3, 2), gg.tensor([0]), sparse=1), "'sparse' \\(position 6\\)"),
    (lambda: F.embedding_bag(gg.tensor([1]), gg.zeros(3, 2), gg.tensor([0]), include_last_offset=None),
     "'include_last_offset' \\(position 8\\)"),
    (lambda: F.triplet_margin_loss(ROWS, ZEROS, ZEROS, swap=1), "'swap' \\(position 7\\) must be bool, not int"),
    (lambda: F.pairwise_distance(ROWS, ZEROS, keepdim=1), "pairwise_distance\\(\\): argument 'keepdim'"),
    (lambda: F.kl_div(ZEROS, ZEROS, "batchmean", log_target=None), "kl_div\\(\\): argument 'log_target' must be bool, not NoneType"),
])
def test_the_functions_refuse_what_pytorch_s_parser_refuses(call, text):
    with pytest.raises(TypeError, match=text):
        call()


def test_a_2d_bag_input_reads_no_include_last_offset():
    out = F.embedding_bag(gg.tensor([[1, 2]]), gg.ones(3, 2), include_last_offset=None)
    assert out.tolist() == [[1.0, 1.0]]


def test_triplet_with_distance_reads_swap_by_its_truth():
    a, p, n = gg.ones(2, 3), gg.zeros(2, 3), gg.zeros(2, 3)
    assert F.triplet_margin_with_distance_loss(a, p, n, swap=1).item() == pytest.approx(2.7320508, rel=1e-5)
    assert nn.TripletMarginWithDistanceLoss(swap=None)(a, p, n).item() == pytest.approx(1.0, rel=1e-5)


def test_torch_agrees():
    torch = pytest.importorskip("torch")
    lstm = torch.nn.LSTM(3, 4, bidirectional=1)
    assert repr(lstm) == "LSTM(3, 4, bidirectional=1)"
    with pytest.raises(TypeError, match="lstm\\(\\) received an invalid combination of arguments"):
        lstm(torch.zeros(2, 5, 3))
    emb = torch.nn.Embedding(4, 3, sparse=1)
    with pytest.raises(TypeError, match="'sparse' \\(position 5\\) must be bool"):
        emb(torch.tensor([1]))
    with pytest.raises(TypeError, match="kl_div\\(\\): argument 'log_target' must be bool"):
        torch.nn.KLDivLoss(log_target=1, reduction="batchmean")(torch.zeros(2, 3), torch.zeros(2, 3))
    a = torch.ones(2, 3)
    assert torch.nn.functional.triplet_margin_with_distance_loss(a, a * 0, a * 0, swap=1).item() == pytest.approx(
        2.7320508, rel=1e-5)
    assert repr(torch.nn.Embedding(4, 3, sparse=None)) == "Embedding(4, 3, sparse=True)"
