"""docs/embedding.md: what an embedding lookup computes and its gradient, in NumPy, checked against
glassgrad's F.embedding and F.embedding_bag. tests/test_docs.py runs this file."""
import numpy as np

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F

rng = np.random.default_rng(0)
# --8<-- [start:lookup]
table = rng.standard_normal((6, 3))          # num_embeddings = 6 rows of embedding_dim = 3
ids = np.array([[4, 0, 4], [1, 5, 0]])       # any shape of int64 indices
out = table[ids]                             # [2, 3, 3]: row ids[i, j] at [i, j]

# The gradient reaching the table: each output row's gradient is added into the row it came
# from, so an index used twice collects two contributions (np.add.at adds repeats; plain
# fancy-index assignment would keep only one of them).
grad_out = rng.standard_normal(out.shape)
grad_table = np.zeros_like(table)
np.add.at(grad_table, ids.reshape(-1), grad_out.reshape(-1, 3))
# --8<-- [end:lookup]

# --8<-- [start:check]
w = nn.Parameter(table.copy())
y = F.embedding(gg.tensor(ids), w)
(y * gg.tensor(grad_out)).sum().backward()
assert np.array_equal(y.detach().numpy(), out)
assert np.allclose(w.grad.numpy(), grad_table)
# --8<-- [end:check]

# --8<-- [start:options]
# padding_idx: its row is looked up as any other, but gets no gradient;
# scale_grad_by_freq: each row's gradient divided by how often its index occurs in the input.
counts = np.bincount(ids.reshape(-1), minlength=6)
want = np.where(counts[:, None] > 0, grad_table / np.maximum(counts, 1)[:, None], 0.0)
want[0] = 0.0                                                    # padding_idx=0
w = nn.Parameter(table.copy())
y = F.embedding(gg.tensor(ids), w, padding_idx=0, scale_grad_by_freq=True)
(y * gg.tensor(grad_out)).sum().backward()
assert np.allclose(w.grad.numpy(), want)
# --8<-- [end:options]

# --8<-- [start:bag]
# EmbeddingBag: a 1-d input cut into bags at offsets, each bag's rows reduced (mode="mean" here).
flat = np.array([2, 2, 5, 1, 0, 3])
offsets = np.array([0, 3, 3])                # bags [2, 2, 5], [] (zeros) and [1, 0, 3]
bag = nn.EmbeddingBag.from_pretrained(gg.tensor(table), mode="mean")
means = bag(gg.tensor(flat), gg.tensor(offsets)).numpy()
assert np.allclose(means, [table[[2, 2, 5]].mean(0), np.zeros(3), table[[1, 0, 3]].mean(0)])
# --8<-- [end:bag]
print("embedding: lookup, gradient, padding_idx, scale_grad_by_freq and bags agree with NumPy")
