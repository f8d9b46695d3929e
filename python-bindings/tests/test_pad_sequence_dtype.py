"""nn.utils.rnn.pad_sequence keeps the first sequence's dtype, as PyTorch's (it fills a tensor of
that dtype with padding_value and copies each sequence in): token ids padded with an integer index
stay int64 for nn.Embedding (bentrevett/pytorch-sentiment-analysis's collate_fn:
pad_sequence(batch_ids, padding_value=pad_index, batch_first=True)). Expected values are PyTorch
2.14.1's."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad.nn.utils.rnn import pad_sequence

IDS = [[2, 3, 4], [5]]


def test_integer_ids_padded_with_an_integer_index_stay_int64_batch_first():
    out = pad_sequence([gg.tensor(i) for i in IDS], padding_value=1, batch_first=True)
    assert out.dtype == gg.int64
    assert out.tolist() == [[2, 3, 4], [5, 1, 1]]


def test_a_fractional_padding_value_is_truncated_into_an_integer_batch():
    out = pad_sequence([gg.tensor(i) for i in IDS], padding_value=-1.7)
    assert out.dtype == gg.int64
    assert out.tolist() == [[2, 5], [3, -1], [4, -1]]


def test_left_padding_keeps_the_dtype():
    out = pad_sequence([gg.tensor(i) for i in IDS], padding_value=7, batch_first=True, padding_side="left")
    assert out.dtype == gg.int64
    assert out.tolist() == [[2, 3, 4], [7, 7, 5]]


def test_sequences_take_the_first_sequence_dtype():
    out = pad_sequence([gg.tensor([1, 2]), gg.tensor([3.5])])
    assert out.dtype == gg.int64
    assert out.tolist() == [[1, 3], [2, 0]]
    out = pad_sequence([gg.tensor([True, False]), gg.tensor([True])])
    assert out.dtype == gg.bool
    assert out.tolist() == [[True, True], [False, False]]


def test_padded_ids_feed_an_embedding():
    batch = pad_sequence([gg.tensor(i) for i in IDS], padding_value=1, batch_first=True)
    emb = gg.nn.Embedding(8, 3, padding_idx=1)
    assert emb(batch).shape == (2, 3, 3)


def test_float_sequences_keep_their_gradient():
    x = gg.tensor([1.0, 2.0], requires_grad=True)
    out = pad_sequence([x, gg.tensor([3.0])], padding_value=9.0)
    assert out.dtype == gg.float32
    assert out.tolist() == [[1.0, 3.0], [2.0, 9.0]]
    out.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_matches_pytorch():
    torch = pytest.importorskip("torch")
    from torch.nn.utils.rnn import pad_sequence as torch_pad
    for seqs, kw in [(IDS, {"padding_value": 1, "batch_first": True}), (IDS, {"padding_value": -1.7}),
                     ([[1, 2], [3, 4, 5, 6]], {"padding_value": 2.5, "padding_side": "left"})]:
        ours = pad_sequence([gg.tensor(s) for s in seqs], **kw)
        theirs = torch_pad([torch.tensor(s) for s in seqs], **kw)
        assert str(theirs.dtype).split(".")[1] == str(ours.dtype).split(".")[1]
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
