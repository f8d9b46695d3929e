"""An LSTM classifier reading each MNIST image as a sequence of its 28 rows (batch_first), the
last step's output through a Linear layer, Adam under StepLR, and a test pass."""
import argparse

import glassgrad.nn as nn
import glassgrad.nn.functional as F
import glassgrad.optim as optim
import glassgrad.torch as torch
from glassgrad.optim.lr_scheduler import StepLR
from glassgrad.utils.data import DataLoader
from glassgrad.vision import datasets, transforms


class RowReader(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.rnn = nn.LSTM(input_size=28, hidden_size=hidden, num_layers=2, batch_first=True)
        self.norm = nn.BatchNorm1d(hidden)
        self.fc = nn.Linear(hidden, 10)

    def forward(self, x):
        out, (h, c) = self.rnn(x.reshape(-1, 28, 28))
        return F.log_softmax(self.fc(self.norm(out[:, -1, :])), dim=1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data")
    p.add_argument("--epochs", type=int, default=2)
    args = p.parse_args()
    torch.manual_seed(0)
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    train = DataLoader(datasets.MNIST(args.data, train=True, transform=tf), batch_size=16, shuffle=True)
    test = DataLoader(datasets.MNIST(args.data, train=False, transform=tf), batch_size=16)
    model = RowReader()
    opt = optim.Adam(model.parameters(), lr=1e-2)
    sched = StepLR(opt, step_size=1, gamma=0.5)
    for epoch in range(1, args.epochs + 1):
        model.train()
        for x, y in train:
            opt.zero_grad()
            loss = F.nll_loss(model(x), y)
            loss.backward()
            opt.step()
        sched.step()
        model.eval()
        with torch.no_grad():
            total = correct = 0
            for x, y in test:
                out = model(x)
                total += F.nll_loss(out, y, reduction="sum").item()
                correct += (out.argmax(1) == y).sum().item()
        print(f"epoch {epoch} train loss {loss.item():.4f} test loss {total / len(test.dataset):.4f} "
              f"correct {correct}/{len(test.dataset)}")
    torch.save(model.state_dict(), "mnist_rnn.pt")


if __name__ == "__main__":
    main()
