"""Class-index targets that do not fit the scores: cross_entropy / nll_loss (and their modules)
raise as PyTorch does, its message first (glassgrad/_class_targets.py). practical-pytorch's
seq2seq and char-rnn notebooks give CrossEntropyLoss a (1, C) row and a 0-d target; PyTorch's
'Expected input batch_size (1) to match target batch_size (0).' is what a reader of either run
sees. The expected texts are PyTorch 2.x's (LossNLL.cpp's checks), copied from its runs."""
import pytest

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F

# (input shape, target shape) -> PyTorch's message (ValueError or RuntimeError; ShapeError is both)
CASES = {
    ((1, 5), ()): "Expected input batch_size (1) to match target batch_size (0).",
    ((3, 5), (2,)): "Expected input batch_size (3) to match target batch_size (2).",
    ((3, 5), (0,)): "Expected input batch_size (3) to match target batch_size (0).",
    ((3, 5, 4), (2, 4)): "Expected input batch_size (3) to match target batch_size (2).",
    ((5,), (2,)): "For 1D input, 1D target must have size 1, but got target size: 2",
    ((3, 5), (3, 2)): "0D or 1D target tensor expected, multi-target not supported",
    ((3, 5, 4), (3,)): "Expected target size [3, 4], got [3]",
    ((3, 5, 4), (3, 3)): "Expected target size [3, 4], got [3, 3]",
    ((2, 5, 3, 3, 2), (2, 3, 3)): "Expected target size [2, 3, 3, 2], got [2, 3, 3]",
    ((2, 5, 3, 3), (2, 3)): "only batches of spatial targets supported (3D tensors) but got targets of dimension: 2",
    ((2, 5, 3, 3), (2, 3, 4)): "size mismatch (got input: [2, 5, 3, 3] , target: [2, 3, 4]",
}
FITS = [((5,), ()), ((5,), (1,)), ((3, 5), (3,)), ((0, 5), (0,)), ((3, 5, 4), (3, 4)), ((2, 5, 3, 3), (2, 3, 3))]


@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("shapes", list(CASES), ids=str)
def test_a_target_that_does_not_fit_raises_pytorchs_message_first(loss, shapes):
    input_shape, target_shape = shapes
    with pytest.raises(gg.ShapeError) as e:
        getattr(F, loss)(gg.zeros(input_shape), gg.zeros(target_shape, dtype=gg.int64))
    assert isinstance(e.value, (ValueError, RuntimeError))
    first, *rest = str(e.value).split("\n")
    assert first == CASES[shapes]
    assert f"{loss}: input {list(input_shape)}, target {list(target_shape)}" in rest[0] and "fix: " in rest[-1]


def test_the_module_raises_it_for_a_row_and_a_0d_target():
    # practical-pytorch: criterion(decoder_output, target_variable[di]), a (1, C) row and a 0-d index
    with pytest.raises(ValueError, match=r"^Expected input batch_size \(1\) to match target batch_size \(0\)\."
                                         r"(?s:.*)fix: .*y\.view\(1\)"):
        nn.CrossEntropyLoss()(gg.zeros(1, 5), gg.tensor(2))


def test_a_column_of_targets_is_told_to_flatten():
    with pytest.raises(RuntimeError, match=r"(?s)^0D or 1D target tensor expected.*fix: y\.view\(-1\)"):
        F.cross_entropy(gg.zeros(4, 3), gg.zeros(4, 1, dtype=gg.int64))


@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("shapes", FITS, ids=str)
def test_targets_that_fit_give_a_loss(loss, shapes):
    input_shape, target_shape = shapes
    out = getattr(F, loss)(gg.zeros(input_shape), gg.zeros(target_shape, dtype=gg.int64), reduction="sum")
    assert out.shape == ()


@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("shapes", list(CASES) + FITS, ids=str)
def test_against_pytorch(loss, shapes):
    torch = pytest.importorskip("torch")
    input_shape, target_shape = shapes
    try:
        getattr(torch.nn.functional, loss)(torch.zeros(input_shape), torch.zeros(target_shape, dtype=torch.long))
        theirs = None
    except (ValueError, RuntimeError) as e:
        theirs = str(e).split("\n")[0]
    try:
        getattr(F, loss)(gg.zeros(input_shape), gg.zeros(target_shape, dtype=gg.int64))
        ours = None
    except (ValueError, RuntimeError) as e:
        ours = str(e).split("\n")[0]
    assert ours == theirs
