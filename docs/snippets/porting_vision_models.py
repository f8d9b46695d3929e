"""torchvision's models in glassgrad.vision.models (docs/porting.md). tests/test_docs.py runs this
file in a temporary directory; nothing is downloaded."""
import numpy as np

import glassgrad as gg
import glassgrad.nn as nn
from glassgrad.vision import models

gg.manual_seed(0)
# --8<-- [start:load]
model = models.regnet_y_400mf(weights=None)  # torchvision's names, order and initialization
# Stands for torch.save(torchvision.models.regnet_y_400mf(weights=...).state_dict(), "regnet.pth"):
gg.save(model.state_dict(), "regnet.pth")
model.load_state_dict(gg.load("regnet.pth"))  # strict: every name and shape matches torchvision's
try:
    models.regnet_y_400mf(weights="IMAGENET1K_V2")
except gg.GlassgradError as error:
    print(str(error).splitlines()[0])  # nothing is downloaded; the message says how to load a file
# --8<-- [end:load]

# --8<-- [start:finetune]
for p in model.parameters():
    p.requires_grad_(False)
model.fc = nn.Linear(model.fc.in_features, 5)  # the same edit as on torchvision's model
opt = gg.optim.SGD(model.fc.parameters(), lr=0.01)
images, labels = gg.randn(8, 3, 64, 64), gg.tensor(np.arange(8) % 5)
for step in range(3):
    loss = nn.functional.cross_entropy(model(images), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")
# --8<-- [end:finetune]
assert model.stem[0].weight.grad is None
