# What will run: the compiled plan of a step, printed before anything runs, and as Graphviz.
import numpy as np

import glassgrad


class Tiny(glassgrad.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = glassgrad.Conv2D(1, 4, 3)
        self.fc = glassgrad.Linear(4 * 6 * 6, 10)

    def forward(self, x):
        x = glassgrad.max_pool2d(glassgrad.relu(self.conv1(x)), 2)
        return self.fc(glassgrad.flatten(x))


glassgrad.manual_seed(0)
model = Tiny()
x = glassgrad.tensor(np.zeros((16, 1, 14, 14), np.float32))
loss = glassgrad.cross_entropy(model(x), np.zeros(16, np.int64))

plan = glassgrad.debug.explain(loss)  # compiles, runs nothing
print(plan.text(buffers=False, max_steps=3))
for b in plan.largest_buffers(3):
    print(f"{b['bytes']:>7d} bytes  {b['label']}  <- {b['where']}")
dot = plan.to_dot("tiny_plan.dot")  # then: dot -Tsvg tiny_plan.dot -o tiny_plan.svg
print(dot.splitlines()[0], "...", len(dot.splitlines()), "lines")
