# Where a plain loop's host time goes: the step's phases, per step, on the calling thread.
import numpy as np

import glassgrad

glassgrad.manual_seed(0)
model = glassgrad.models.SimpleCNN(10)
opt = glassgrad.SGD(model.parameters(), lr=0.01)
rng = np.random.default_rng(0)
batches = [(rng.random((32, 1, 28, 28), dtype=np.float32), rng.integers(0, 10, 32)) for _ in range(6)]


def step(x, y):
    loss = glassgrad.cross_entropy(model(glassgrad.tensor(x)), glassgrad.tensor(y))
    loss.backward()
    opt.step()
    opt.zero_grad()
    return loss.item()


step(*batches[0])  # the first step compiles its plan: leave it out of the figures
with glassgrad.debug.host_time_breakdown() as bd:
    for x, y in batches[1:]:
        step(x, y)
print(bd)
print(f"model graph: {bd.per_step_ms()['graph']:.3f} ms of {bd.per_step_ms()['wall']:.3f} ms per step")
