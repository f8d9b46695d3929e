"""What several test files train with: the seed's training step, and a small ResNet-18 setup."""
import numpy as np

import glassgrad as gg


class SmallMLP(gg.Module):
    """6 features -> 12 (ReLU) -> 3 classes."""

    def __init__(self):
        super().__init__()
        self.fc1 = gg.Linear(6, 12)
        self.fc2 = gg.Linear(12, 3)

    def forward(self, x):
        return self.fc2(gg.relu(self.fc1(x)))


def train_step(model, opt):
    """The seed's training step: forward, backward, update, clear the gradients."""
    def step(xb, yb):
        loss = gg.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss
    return step


def small_resnet(width=8, batch=16):
    """A narrow ResNet-18 (CIFAR shape) with SGD + momentum, its step and one random batch."""
    gg.manual_seed(0)
    model = gg.models.ResNet18(width=width)
    opt = gg.SGD(model.parameters(), lr=0.01, momentum=0.9)
    rng = np.random.default_rng(0)
    x = gg.tensor(rng.random((batch, 3, 32, 32), dtype=np.float32))
    y = gg.tensor(rng.integers(0, 10, batch))
    return model, opt, train_step(model, opt), x, y
