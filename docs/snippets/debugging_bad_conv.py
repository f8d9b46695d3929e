# A conv layer that cannot run on the image it gets is refused where the layer is called,
# before any kernel is launched, with the layer's name, the shapes and what to change.
import numpy as np

import glassgrad


class TooDeep(glassgrad.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = glassgrad.Conv2D(1, 16, 3)
        self.conv2 = glassgrad.Conv2D(16, 32, 5)

    def forward(self, x):
        x = glassgrad.max_pool2d(glassgrad.relu(self.conv1(x)), 2)  # 28 -> 26 -> 13
        x = glassgrad.max_pool2d(x, 2)                               # 13 -> 6
        x = glassgrad.max_pool2d(x, 2)                               # 6 -> 3
        return self.conv2(x)                                         # a 5x5 kernel on a 3x3 image


model = TooDeep()
x = glassgrad.tensor(np.zeros((32, 1, 28, 28), np.float32))
try:
    model(x)
except glassgrad.ShapeError as e:
    print(e)

print()
# Arguments that cannot fit the channels are refused when the layer is built.
try:
    glassgrad.nn.Conv2d(16, 30, 3, groups=4)
except glassgrad.InvalidArgumentError as e:
    print(e)
