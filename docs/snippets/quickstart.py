"""The first program of the docs (docs/index.md, docs/getting-started.md): a small CNN, one
training step, and what glassgrad did. tests/test_docs.py runs this file."""
# --8<-- [start:program]
import numpy as np
import glassgrad as gg


class SmallCNN(gg.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = gg.Conv2D(1, 16, 3)
        self.bn1 = gg.BatchNorm2D(16)
        self.fc = gg.Linear(16 * 13 * 13, 10)

    def forward(self, x):
        x = gg.max_pool2d(gg.relu(self.bn1(self.conv1(x))), 2)
        return self.fc(gg.flatten(x))


model = SmallCNN()
optimizer = gg.SGD(model.parameters(), lr=0.01)
x = gg.tensor(np.random.rand(32, 1, 28, 28).astype(np.float32))
y = gg.tensor(np.random.randint(0, 10, 32))

for step in range(3):
    loss = gg.cross_entropy(model(x), y)  # records nodes; shapes are checked now, nothing runs yet
    loss.backward()                        # appends the backward graph (Conv2DBackwardWeight, ...)
    optimizer.step()                       # compiles once, plans memory, runs the whole step
    optimizer.zero_grad()
    print(f"step {step}: loss {loss.item():.4f}")
print(gg.cache_stats())                    # one compile, then plan-cache hits
# --8<-- [end:program]
assert gg.cache_stats()["hits"] >= 2
