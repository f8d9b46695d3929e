"""nn.Buffer (docs/save-and-resume.md), checked by the test suite: every assert here is what PyTorch gives."""
import numpy as np

import glassgrad as gg
import glassgrad.nn as nn


# --8<-- [start:buffer]
class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.scale = nn.Buffer(gg.ones(4))  # saved with the model, never trained
        self.mask = nn.Buffer(gg.ones(4), persistent=False)  # moves with .to(), not saved

    def forward(self, x):
        return self.lin(x) * self.scale * self.mask


model = Scaled()
print([n for n, _ in model.named_buffers()], list(model.state_dict()))
# ['scale', 'mask'] ['scale', 'lin.weight', 'lin.bias']
# --8<-- [end:buffer]
assert list(model.state_dict()) == ["scale", "lin.weight", "lin.bias"]
assert len(list(model.parameters())) == 2
assert tuple(model(gg.tensor(np.ones((1, 4), np.float32))).shape) == (1, 4)
