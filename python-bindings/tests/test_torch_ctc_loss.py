"""F.ctc_loss / nn.CTCLoss against PyTorch on random lengths, labels (with repeats), blanks,
padded and concatenated targets, unbatched input, reductions and zero_infinity (values and the
gradient of log_probs, which is PyTorch's: exp(log_probs) - occupation); against a NumPy sum over
every alignment; finite differences through log_softmax (where PyTorch's gradient is the true
one). Skipped when torch is not importable (CI never installs it; tools/torch_differential.sh
runs it)."""
import itertools

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F
from torch_compare import compare

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _case(seed):
    rng = np.random.default_rng(seed)
    n, c, s = int(rng.integers(1, 4)), int(rng.integers(2, 6)), int(rng.integers(1, 5))
    blank = int(rng.integers(0, c))
    labels = rng.choice([k for k in range(c) if k != blank], (n, s))
    if seed % 3 == 0:
        labels[:, 1:] = labels[:, :1]   # repeated labels need a blank between them
    target_lengths = rng.integers(0, s + 1, n)
    input_lengths = 2 * target_lengths + 1 + rng.integers(0, 3, n)   # long enough for any labels
    steps = int(input_lengths.max())
    log_probs = np.log(rng.dirichlet(np.ones(c), size=(steps, n)))
    return log_probs, labels, input_lengths, target_lengths, blank


@pytest.mark.parametrize("seed", range(40))
def test_ctc_loss_matches_torch(seed):
    lp, labels, il, tl, blank = _case(seed)
    concatenated = np.concatenate([labels[b, :tl[b]] for b in range(len(tl))]).astype(np.int64)
    for reduction in ("mean", "sum", "none"):
        for zero_infinity in (False, True):
            kw = dict(blank=blank, reduction=reduction, zero_infinity=zero_infinity)
            compare(F.ctc_loss, TF.ctc_loss, [lp, labels, il, tl], (0,), kw)
            compare(F.ctc_loss, TF.ctc_loss, [lp, concatenated, il, tl], (0,), kw)
            compare(nn.CTCLoss(**kw), torch.nn.CTCLoss(**kw), [lp, labels, il, tl], (0,))
    compare(F.ctc_loss, TF.ctc_loss, [lp[:, 0], labels[0, :tl[0]], np.array(il[0]), np.array(tl[0])], (0,),
            dict(blank=blank))
    assert compare(F.ctc_loss, TF.ctc_loss, [lp, np.concatenate([concatenated, [1]]), il, tl], ()) is not None


def test_impossible_alignments_are_inf_or_zero_with_zero_infinity():
    lp = np.log(np.random.default_rng(1).dirichlet(np.ones(4), size=(2, 2)))
    args = [lp, np.array([[1, 1, 1], [2, 3, 0]]), np.array([2, 2]), np.array([3, 1])]   # sample 0 cannot fit
    compare(F.ctc_loss, TF.ctc_loss, args, (), dict(reduction="none"))
    compare(F.ctc_loss, TF.ctc_loss, args, (0,), dict(reduction="none", zero_infinity=True))
    compare(F.ctc_loss, TF.ctc_loss, args, (0,), dict(reduction="mean", zero_infinity=True))


def test_ctc_loss_is_minus_the_log_of_the_sum_over_alignments_and_its_gradient_is_right():
    rng = np.random.default_rng(2)
    steps, c, blank, target = 4, 3, 0, [1, 1]
    logits = rng.standard_normal((steps, 1, c))
    p = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    total = 0.0
    for path in itertools.product(range(c), repeat=steps):
        collapsed = [k for i, k in enumerate(path) if (i == 0 or k != path[i - 1]) and k != blank]
        if collapsed == target:
            total += np.prod([p[t, 0, k] for t, k in enumerate(path)])
    got = F.ctc_loss(gg.tensor(np.log(p)), gg.tensor(np.array([target])), gg.tensor(np.array([steps])),
                     gg.tensor(np.array([2])), reduction="sum")
    np.testing.assert_allclose(got.numpy(), -np.log(total), rtol=1e-12)
    args = (gg.tensor(np.array([target])), gg.tensor(np.array([steps])), gg.tensor(np.array([2])))
    assert gg.debug.gradcheck(lambda x: F.ctc_loss(F.log_softmax(x, 2), *args), [logits])
