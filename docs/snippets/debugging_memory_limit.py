# Over the memory limit: the plan knows every buffer before it runs, so the step is refused
# before anything is allocated, with the largest buffers and what to do about them.
import numpy as np

import glassgrad

glassgrad.manual_seed(0)
model = glassgrad.models.SimpleCNN()
optimizer = glassgrad.SGD(model.parameters(), lr=0.01)
glassgrad.set_memory_limit("8MiB")


def train_step(x, y):
    loss = glassgrad.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return loss


x = glassgrad.tensor(np.random.default_rng(0).random((256, 1, 28, 28), dtype=np.float32))
y = glassgrad.tensor(np.arange(256) % 10)
try:
    train_step(x, y)
except glassgrad.OutOfMemoryError as e:
    print(e)
    optimizer.zero_grad()

# A smaller batch fits.
loss = train_step(x[:32], y[:32])
print(f"batch 32: loss {loss.item():.4f}, peak {glassgrad.memory_stats()['peak'] / 2**20:.1f} MiB")
