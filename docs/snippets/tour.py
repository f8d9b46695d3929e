"""The pipeline, stage by stage (docs/tour.md). tests/test_docs.py runs this file."""
import numpy as np
import glassgrad as gg

gg.manual_seed(0)

# --8<-- [start:trace]
model = gg.models.SimpleCNN()
x = gg.tensor(np.random.rand(8, 1, 28, 28).astype(np.float32))
y = gg.tensor(np.random.randint(0, 10, 8))
logits = model(x)
print(logits.shape, logits.dtype)    # known at once: shape rules ran while recording
loss = gg.cross_entropy(logits, y)
print(loss._h.pending_graph())       # the recorded forward graph, nothing computed yet
# --8<-- [end:trace]
assert logits.shape == (8, 10)

# --8<-- [start:error]
try:
    gg.Conv2D(3, 16, 3)(x)           # x has 1 channel
except gg.ShapeError as e:
    print(e)
# --8<-- [end:error]

# --8<-- [start:backward]
loss.backward()
graph = model.conv1.weight.grad._h.pending_graph()
print([line.split(" = ")[1].split("(")[0] for line in graph.splitlines() if "(backward)" in line])
# --8<-- [end:backward]
assert "Conv2DBackwardWeight" in graph

# --8<-- [start:compile]
optimizer = gg.SGD(model.parameters(), lr=0.01, momentum=0.9)
optimizer.step()                     # forward + backward + updates, one plan
optimizer.zero_grad()
plan = gg._C.last_plan()
print(plan.str(buffers=False, max_steps=6))
print("arena bytes:", plan.arena_bytes, "predicted peak:", plan.predicted_peak_bytes())
# --8<-- [end:compile]

# --8<-- [start:cache]
gg.reset_cache_stats()
for _ in range(3):
    loss = gg.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
# At most one compile (the first step created the momentum buffers, so the second step's graph
# differs from the first), then cache hits only.
print(gg.cache_stats())
# --8<-- [end:cache]
assert gg.cache_stats()["compiles"] <= 1 and gg.cache_stats()["hits"] >= 2

# --8<-- [start:jit]
@gg.compile
def train_step(x, y):
    loss = gg.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return loss


for _ in range(4):
    loss = train_step(x, y)          # traced on the first two calls, then replayed without Python
print(f"loss {loss.item():.4f}, replayed {train_step.replays} times")
# --8<-- [end:jit]
assert train_step.replays == 2

# --8<-- [start:kernel]
w = np.random.rand(4, 1, 3, 3).astype(np.float32)
(out,) = gg.kernels.run_numpy("Conv2D", x.numpy(), w, stride=[1, 1], padding=[0, 0, 0, 0])
print(out.shape)                     # one kernel, called directly on NumPy arrays
print(gg.kernels.schema("Conv2D")["formula"])
# --8<-- [end:kernel]
