"""A mixed-precision training step as PyTorch's AMP recipe writes it (docs/numerics.md, "Mixed
precision"), checked by the test suite."""
import numpy as np

import glassgrad as gg

gg.manual_seed(0)
model = gg.nn.Linear(4, 1)
opt = gg.optim.SGD(model.parameters(), lr=0.1)
x, y = gg.tensor(np.ones((8, 4), np.float32)), gg.tensor(np.zeros((8, 1), np.float32))
# --8<-- [start:amp]
scaler = gg.amp.GradScaler("cpu")
with gg.autocast("cpu", dtype=gg.bfloat16):
    out = model(x)                            # linear: bfloat16
    loss = gg.nn.functional.mse_loss(out, y)  # a loss: float32
scaler.scale(loss).backward()                 # the loss times 65536
scaler.step(opt)                              # gradients divided back first; skipped on inf/NaN
scaler.update()
print(out.dtype, loss.dtype, model.weight.grad.dtype, scaler.get_scale())
# --8<-- [end:amp]
assert (out.dtype, loss.dtype, model.weight.grad.dtype) == (gg.bfloat16, gg.float32, gg.float32)
assert scaler.get_scale() == 65536.0
