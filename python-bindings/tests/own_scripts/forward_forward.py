"""Forward-forward training of a two-layer MLP on MNIST-format digits: the label written into the
first 10 pixels, each layer trained alone (its own Adam) so that the goodness, the mean square of
its activities, is above a threshold for true labels and below it for wrong ones, the next layer
fed the detached, length-normalized output; prediction by the label with the most goodness."""
import argparse

import glassgrad.nn as nn
import glassgrad.torch as torch
from glassgrad.optim import Adam
from glassgrad.utils.data import DataLoader
from glassgrad.vision import datasets, transforms


def with_label(x, y):
    x = x.clone()
    x[:, :10] = 0.0
    x[torch.arange(x.size(0)), y] = x.max()
    return x


class Layer(nn.Linear):
    def __init__(self, cin, cout, threshold=2.0):
        super().__init__(cin, cout)
        self.relu = nn.ReLU()
        self.opt = Adam(self.parameters(), lr=0.03)
        self.threshold = threshold

    def forward(self, x):
        x = x / (x.norm(2, 1, keepdim=True) + 1e-4)
        return self.relu(super().forward(x))

    def train_layer(self, pos, neg, steps):
        for _ in range(steps):
            g_pos, g_neg = self.forward(pos).pow(2).mean(1), self.forward(neg).pow(2).mean(1)
            loss = torch.log(1 + torch.exp(torch.cat([self.threshold - g_pos, g_neg - self.threshold]))).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
        print(f"layer loss {loss.item():.4f}")
        return self.forward(pos).detach(), self.forward(neg).detach()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data")
    p.add_argument("--steps", type=int, default=20)
    args = p.parse_args()
    torch.manual_seed(0)
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,)),
                             transforms.Lambda(lambda x: torch.flatten(x))])
    x, y = next(iter(DataLoader(datasets.MNIST(args.data, train=True, transform=tf), batch_size=64)))
    tx, ty = next(iter(DataLoader(datasets.MNIST(args.data, train=False, transform=tf), batch_size=32)))
    layers = [Layer(784, 64), Layer(64, 64)]
    pos, neg = with_label(x, y), with_label(x, y[torch.randperm(x.size(0))])
    for i, layer in enumerate(layers):
        print("training layer", i)
        pos, neg = layer.train_layer(pos, neg, args.steps)

    def predict(x):
        goodness = []
        for label in range(10):
            h = with_label(x, torch.full((x.size(0),), label, dtype=torch.long))
            total = 0
            for layer in layers:
                h = layer(h)
                total = total + h.pow(2).mean(1)
            goodness.append(total.unsqueeze(1))
        return torch.cat(goodness, 1).argmax(1)

    with torch.no_grad():
        print(f"train error: {1.0 - predict(x).eq(y).float().mean().item():.3f}")
        print(f"test error: {1.0 - predict(tx).eq(ty).float().mean().item():.3f}")


if __name__ == "__main__":
    main()
