"""Predicting sine waves with two LSTMCells unrolled step by step in float64, trained by L-BFGS
with a closure; after training it keeps predicting past the end of the input from its own
outputs, and prints the test loss of that prediction."""
import numpy as np

import glassgrad.nn as nn
import glassgrad.optim as optim
import glassgrad.torch as torch


class Sequence(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.cell1 = nn.LSTMCell(1, hidden)
        self.cell2 = nn.LSTMCell(hidden, hidden)
        self.linear = nn.Linear(hidden, 1)
        self.hidden = hidden

    def forward(self, x, future=0):
        n = x.size(0)
        h1, c1, h2, c2 = (torch.zeros(n, self.hidden, dtype=torch.double) for _ in range(4))
        outputs = []
        for step in x.split(1, dim=1):
            h1, c1 = self.cell1(step, (h1, c1))
            h2, c2 = self.cell2(h1, (h2, c2))
            out = self.linear(h2)
            outputs.append(out)
        for _ in range(future):  # feed the prediction back
            h1, c1 = self.cell1(out, (h1, c1))
            h2, c2 = self.cell2(h1, (h2, c2))
            out = self.linear(h2)
            outputs.append(out)
        return torch.cat(outputs, dim=1)


def main():
    rng = np.random.default_rng(2)
    t = np.arange(40) + rng.integers(-20, 20, (8, 1))
    waves = torch.from_numpy(np.sin(t / 4.0))  # float64 [8, 40]
    x, y = waves[2:, :-1], waves[2:, 1:]
    test_x, test_y = waves[:2, :-1], waves[:2, 1:]
    torch.manual_seed(0)
    model = Sequence().double()
    criterion = nn.MSELoss()
    opt = optim.LBFGS(model.parameters(), lr=0.8, max_iter=5)
    for step in range(3):
        def closure():
            opt.zero_grad()
            loss = criterion(model(x), y)
            print(f"loss: {loss.item():.6f}")
            loss.backward()
            return loss
        opt.step(closure)
        with torch.no_grad():
            future = 10
            pred = model(test_x, future=future)
            print(f"step {step} test loss: {criterion(pred[:, :-future], test_y).item():.6f}, "
                  f"predicted {pred.size(1)} steps")


if __name__ == "__main__":
    main()
