"""glassgrad.save / glassgrad.load (docs/save-and-resume.md). tests/test_docs.py runs this file
in a temporary directory."""
import numpy as np
import glassgrad as gg

# --8<-- [start:save]
model = gg.models.SimpleCNN()
optimizer = gg.Adam(model.parameters(), lr=1e-3)
x = gg.tensor(np.random.rand(16, 1, 28, 28).astype(np.float32))
y = gg.tensor(np.random.randint(0, 10, 16))
loss = gg.cross_entropy(model(x), y)
loss.backward()
optimizer.step()
optimizer.zero_grad()

gg.save({"model": model.state_dict(),          # parameters and BatchNorm statistics
         "optimizer": optimizer.state_dict(),  # Adam's moments and step counts
         "step": 1,                            # plain values ride along
         "data_rng": np.random.default_rng(0).bit_generator.state},
        "checkpoint.gg")
# --8<-- [end:save]

# --8<-- [start:load]
ckpt = gg.load("checkpoint.gg")                # the same tree: tensors, plain values
model = gg.models.SimpleCNN()
optimizer = gg.Adam(model.parameters(), lr=1e-3)
model.load_state_dict(ckpt["model"])
optimizer.load_state_dict(ckpt["optimizer"])
print(ckpt["step"], sorted(ckpt["optimizer"]["state"][0]))
# --8<-- [end:load]
assert sorted(ckpt["optimizer"]["state"][0]) == ["exp_avg", "exp_avg_sq", "step"]

# --8<-- [start:formats]
gg.save({"w": np.ones(3, np.float32)}, "weights.pt")   # PyTorch's zip format: torch.load reads it
gg.save({"w": np.ones(3)}, "weights.npz", format="npz")
print(gg.load("weights.npz"))                  # the format is read from the file, not its name
print(gg.serialization.default_format())       # the other formats' default: 'safetensors' if installed
# --8<-- [end:formats]
try:
    import torch
except ImportError:
    torch = None
if torch is not None:
    assert torch.load("weights.pt", weights_only=True)["w"].tolist() == [1.0, 1.0, 1.0]

# --8<-- [start:layout]
for name, value in optimizer.state_dict()["param_groups"][0].items():
    print(f"{name:13s} {value if name != 'params' else value[:3] + ['...']}")
# --8<-- [end:layout]

# --8<-- [start:whole_model]
import glassgrad.nn as nn


class Net(nn.Module):                          # a script's own model class
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.body(x).relu())


gg.save(Net(), "model.pt")                     # the whole object, as torch.save(model, f)
with gg.serialization.safe_globals([Net, gg.nn.modules.linear.Linear]):
    model = gg.load("model.pt")                # Parameters back, tied weights still tied
model = gg.load("model.pt", weights_only=False)  # or: glassgrad's layers and Net, already imported
print(type(model).__name__, model.head.weight.shape)
# --8<-- [end:whole_model]
assert type(model).__name__ == "Net"
