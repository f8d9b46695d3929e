"""docs/recurrent.md: a bidirectional LSTM over sequences of different lengths, packed, and the
plan its training step compiles to. tests/test_docs.py runs this file."""
import numpy as np

import glassgrad as gg

gg.set_default_device("cpu")
gg.manual_seed(0)
# --8<-- [start:packed]
from glassgrad import nn
from glassgrad.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

lstm = nn.LSTM(input_size=8, hidden_size=16, num_layers=2, bidirectional=True, batch_first=True)
x = gg.tensor(np.random.rand(3, 5, 8).astype(np.float32))  # 3 sequences, padded to 5 steps
lengths = [2, 5, 3]                                          # in any order: enforce_sorted=False
packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
out, (h_n, c_n) = lstm(packed)                               # h_n: [2 layers * 2 directions, 3, 16]
y, lens = pad_packed_sequence(out, batch_first=True)         # [3, 5, 32], zeros past each length
loss = (y * y).mean() + (h_n * h_n).mean()
loss.backward()
print("output", tuple(y.shape), "lengths", lens.tolist(), "h_n", tuple(h_n.shape))
print("d loss / d weight_hh_l1_reverse:", tuple(lstm.weight_hh_l1_reverse.grad.shape))
# --8<-- [end:packed]
