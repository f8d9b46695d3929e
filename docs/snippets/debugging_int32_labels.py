# "Accuracy stuck at 10%": labels that are not int64 are refused, never truncated.
import numpy as np

import glassgrad

y = np.array([3, 1, 4, 1, 5], dtype=np.int32)  # e.g. what a file or another library gave you
logits = glassgrad.zeros(5, 10)

try:
    glassgrad.cross_entropy(logits, y)
except glassgrad.DTypeError as e:
    print(e)

print()
labels = glassgrad.tensor(y)  # an int32 tensor, as torch.tensor(y) makes
try:
    glassgrad.nn.functional.nll_loss(logits.log_softmax(1), labels)
except glassgrad.DTypeError as e:
    print(e)

print()
y = y.astype(np.int64)  # the fix
print("loss:", round(glassgrad.cross_entropy(logits, y).item(), 6))  # log(10) for uniform logits
print("dtype:", glassgrad.tensor(y).dtype)
print("argmax:", glassgrad.tensor([0, 1, 2, 3]).argmax().item())  # the seed's sanity check
