# The allocation log: every allocation and free, with bytes, the buffer's name and device.
import numpy as np

import glassgrad

glassgrad.manual_seed(0)
model = glassgrad.Sequential(glassgrad.Flatten(), glassgrad.Linear(28 * 28, 10))
optimizer = glassgrad.SGD(model.parameters(), lr=0.1, momentum=0.9)

with glassgrad.debug.allocation_log() as log:
    x = glassgrad.tensor(np.zeros((64, 1, 28, 28), np.float32))
    y = glassgrad.tensor(np.zeros(64, np.int64))
    loss = glassgrad.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
print(log)
