"""In-place ops and views on glassgrad's lazy graph (docs/inplace-and-views.md), checked by the
test suite: every assert here is what PyTorch gives."""
import numpy as np

import glassgrad as gg

# --8<-- [start:aliases]
x = gg.tensor(np.arange(6.0))
row = x.view(2, 3)[0]        # a view of x's storage (no copy)
alias = x
x[1:4] *= 10                 # a write through a view lands in x
alias += 1                   # augmented assignment mutates x itself
x.detach()[5] = -1           # detach() shares the storage too
print(row.numpy(), x.numpy(), x._version)
# --8<-- [end:aliases]
assert row.numpy().tolist() == [1.0, 11.0, 21.0]
assert x.numpy().tolist() == [1.0, 11.0, 21.0, 31.0, 5.0, -1.0]
assert x._version == 4  # x[1:4] *= 10 is two writes, as in PyTorch: the view's *=, then x[1:4] = ...

# --8<-- [start:saved]
w = gg.tensor(np.array([0.5, -1.0, 2.0]), requires_grad=True)
s = (w * 2).sigmoid()
s.mul_(2)                    # sigmoid's gradient needs the value s had
try:
    s.sum().backward()
except RuntimeError as e:
    print(str(e).splitlines()[0])
# --8<-- [end:saved]

# --8<-- [start:optimizer]
gg.manual_seed(0)
model = gg.Linear(4, 2)
data, labels = gg.tensor(np.ones((8, 4), np.float32)), gg.tensor(np.zeros(8, np.int64))
weight_buffer = model.weight._raw().storage_ptr
for step in range(3):
    loss = gg.cross_entropy(model(data), labels)
    loss.backward()
    with gg.no_grad():
        for p in model.parameters():
            p.add_(p.grad, alpha=-0.5)   # as pytorch/examples' hand-written SGD
            p.grad = None
    print(step, round(loss.item(), 4))
# the update ran as one fused kernel writing each parameter's own buffer
assert model.weight._raw().storage_ptr == weight_buffer
# --8<-- [end:optimizer]
