# Breakpoint hooks: look at a layer's inputs and outputs (NumPy arrays) as the plan runs.
import numpy as np

import glassgrad

glassgrad.manual_seed(0)
model = glassgrad.models.SimpleCNN()
x = glassgrad.tensor(np.random.default_rng(0).random((8, 1, 28, 28), dtype=np.float32))
y = glassgrad.tensor(np.arange(8))


def show(node, inputs, outputs):
    print(f"{node.op} '{node.scope}' ({node.role}) at {node.source}: "
          f"in {[a.shape for a in inputs]} -> out {[a.shape for a in outputs]}, "
          f"{int((outputs[0] > 0).mean() * 100)}% positive")


with glassgrad.debug.register_hook(model.conv2, show):                                     # a layer
    with glassgrad.debug.register_hook("Conv2DBackwardWeight", show, when="backward"):     # an op
        loss = glassgrad.cross_entropy(model(x), y)
        loss.backward()
        glassgrad.realize(loss, model.conv1.weight.grad)
