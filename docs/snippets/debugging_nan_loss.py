# "Loss stays at nan": find the op that produced the first NaN, look at the numbers, fix it.
import numpy as np

import glassgrad


class Classifier(glassgrad.Module):
    def __init__(self):
        super().__init__()
        self.fc = glassgrad.Linear(4, 3)

    def forward(self, x):
        return self.fc(x)


def my_loss(logits, onehot):
    # A hand-written cross-entropy: softmax, then log. A confident wrong prediction makes a
    # probability exactly 0 in float32, and log(0) = -inf.
    p = glassgrad.softmax(logits, dim=1)
    return -(glassgrad.log(p) * onehot).sum() / logits.shape[0]


model = Classifier()
model.load_state_dict({"fc.weight": 50 * np.eye(3, 4, dtype=np.float32), "fc.bias": np.zeros(3, np.float32)})
x = glassgrad.tensor(np.array([[4, 0, 0, 0], [0, 4, 0, 0]], np.float32))
onehot = glassgrad.tensor(np.array([[0, 1, 0], [0, 1, 0]], np.float32))

loss = my_loss(model(x), onehot)
loss.backward()
print("loss:", loss.item())

# 1. Which parameters got non-finite gradients? (call it between backward() and step())
try:
    glassgrad.check_nan_gradients(model.named_parameters())
except glassgrad.debug.NonFiniteError as e:
    print(e)
model.zero_grad()

# 2. Which op produced the first NaN/Inf? Anomaly mode checks every step's outputs.
print()
with glassgrad.debug.detect_anomaly():
    try:
        my_loss(model(x), onehot).item()
    except glassgrad.debug.NonFiniteError as e:
        print(e)

# 3. Look at the numbers that went in.
print()
logits = model(x)
glassgrad.print_tensor_stats(logits, name="logits")

# 4. The fix: cross_entropy works on logits (log-softmax inside), so it never takes log(0).
loss = glassgrad.cross_entropy(logits, np.array([1, 1]))
loss.backward()
print("cross_entropy:", loss.item())

# 5. Exploding gradients: clip them (graph nodes, run with the optimizer step).
norm = glassgrad.clip_grad_norm_(model.parameters(), max_norm=1.0)
glassgrad.SGD(model.parameters(), lr=0.1).step()
print(f"gradient norm before clipping: {norm.item():.4f}")

# 6. BatchNorm's running variance starts at 1, never 0 (1 / sqrt(0 + eps) would explode).
print("running_var:", glassgrad.BatchNorm2D(4).running_var.numpy())
