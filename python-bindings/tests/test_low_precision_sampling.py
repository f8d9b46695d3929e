"""Random draws from bfloat16 and float16 probabilities, as a GPT sampling loop under
torch.autocast(dtype=torch.bfloat16) makes them (karpathy/build-nanogpt's train_gpt2.py: the
softmax of bfloat16 logits, topk, then torch.multinomial): PyTorch draws from such rows; the
draw reads them as float32. Also F.embedding_bag of a bfloat16 table in mode 'mean' (its bag
sizes were made in NumPy, which has no bfloat16)."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F


@pytest.mark.parametrize("dtype", [gg.bfloat16, gg.float16])
def test_multinomial_draws_from_low_precision_rows(dtype):
    probs = gg.tensor([[0.0, 0.0, 1.0, 0.0], [0.0, 0.5, 0.0, 0.5]]).to(dtype)
    drawn = gg.multinomial(probs, 1, generator=gg.Generator().manual_seed(42))
    assert drawn.dtype == gg.int64 and list(drawn.shape) == [2, 1]
    assert drawn[0, 0].item() == 2 and drawn[1, 0].item() in (1, 3)
    every = gg.multinomial(probs[1], 2)  # without replacement: both nonzero indices
    assert sorted(every.tolist()) == [1, 3]


def test_autocast_sampling_step_of_a_language_model():
    gg.manual_seed(0)
    layer = gg.nn.Linear(8, 16)
    with gg.autocast(device_type="cpu", dtype=gg.bfloat16):
        logits = layer(gg.randn(4, 8))
        probs = F.softmax(logits, dim=-1)
        top_probs, top_indices = gg.topk(probs, 5, dim=-1)
        ix = gg.multinomial(top_probs, 1)
        col = gg.gather(top_indices, -1, ix)
    assert probs.dtype == gg.bfloat16 and list(col.shape) == [4, 1] and col.dtype == gg.int64
    for row, chosen in zip(top_indices.tolist(), col[:, 0].tolist()):
        assert chosen in row


@pytest.mark.parametrize("dtype", [gg.bfloat16, gg.float16])
def test_bernoulli_of_low_precision_probabilities(dtype):
    probs = gg.tensor([0.0, 1.0, 1.0, 0.0]).to(dtype)
    drawn = gg.bernoulli(probs)
    assert drawn.dtype == dtype
    np.testing.assert_array_equal(drawn.float().numpy(), [0.0, 1.0, 1.0, 0.0])
    with pytest.raises(Exception, match="bernoulli"):
        gg.bernoulli(gg.tensor([1.5]).to(dtype))


def test_embedding_bag_mean_of_a_bfloat16_table():
    # PyTorch 2.14: [[1.1641, -1.0], [0.25, 3.0]] in bfloat16 ((0.5 + 1.5 + 1.5) / 3 rounded)
    weight = gg.tensor([[0.5, 1.0], [1.5, -2.0], [0.25, 3.0], [1.0, 1.0]]).to(gg.bfloat16)
    out = F.embedding_bag(gg.tensor([0, 1, 1, 2]), weight, gg.tensor([0, 3]))
    assert out.dtype == gg.bfloat16 and list(out.shape) == [2, 2]
    np.testing.assert_allclose(out.float().numpy(), [[1.1641, -1.0], [0.25, 3.0]], atol=8e-3)
