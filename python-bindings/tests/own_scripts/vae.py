"""A variational autoencoder on MNIST-format digits: an MLP encoder giving a mean and a log
variance, the reparameterization z = mu + eps * std, a sigmoid decoder, and the loss binary cross
entropy (summed) plus the KL divergence to N(0, 1); test loss under no_grad, sample grids saved."""
import argparse
import os

import glassgrad.nn as nn
import glassgrad.nn.functional as F
import glassgrad.optim as optim
import glassgrad.torch as torch
from glassgrad.utils.data import DataLoader
from glassgrad.vision import datasets, transforms
from glassgrad.vision.utils import save_image


class VAE(nn.Module):
    def __init__(self, hidden=64, latent=8):
        super().__init__()
        self.enc = nn.Linear(784, hidden)
        self.mu = nn.Linear(hidden, latent)
        self.logvar = nn.Linear(hidden, latent)
        self.dec1 = nn.Linear(latent, hidden)
        self.dec2 = nn.Linear(hidden, 784)

    def encode(self, x):
        h = F.relu(self.enc(x))
        return self.mu(h), self.logvar(h)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        return mu + torch.randn_like(std) * std

    def decode(self, z):
        return torch.sigmoid(self.dec2(F.relu(self.dec1(z))))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 784))
        return self.decode(self.reparameterize(mu, logvar)), mu, logvar


def loss_function(recon, mu, logvar, x):
    bce = F.binary_cross_entropy(recon, x.view(-1, 784), reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data")
    p.add_argument("--out", default="results")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=16)
    args = p.parse_args()
    torch.manual_seed(0)
    os.makedirs(args.out, exist_ok=True)
    train = DataLoader(datasets.MNIST(args.data, train=True, transform=transforms.ToTensor()),
                       batch_size=args.batch_size, shuffle=True)
    test = DataLoader(datasets.MNIST(args.data, train=False, transform=transforms.ToTensor()),
                      batch_size=args.batch_size)
    model = VAE()
    opt = optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(1, args.epochs + 1):
        model.train()
        total = 0.0
        for x, _ in train:
            opt.zero_grad()
            loss = loss_function(*model(x), x)
            loss.backward()
            total += loss.item()
            opt.step()
        print(f"Epoch {epoch} train loss: {total / len(train.dataset):.4f}")
        model.eval()
        test_loss = 0.0
        with torch.no_grad():
            for i, (x, _) in enumerate(test):
                recon, mu, logvar = model(x)
                test_loss += loss_function(recon, mu, logvar, x).item()
                if i == 0:
                    n = min(x.size(0), 8)
                    pairs = torch.cat([x[:n], recon.view(-1, 1, 28, 28)[:n]])
                    save_image(pairs, os.path.join(args.out, f"reconstruction_{epoch}.png"), nrow=n)
            save_image(model.decode(torch.randn(16, 8)).view(16, 1, 28, 28),
                       os.path.join(args.out, f"sample_{epoch}.png"))
        print(f"Epoch {epoch} test loss: {test_loss / len(test.dataset):.4f}")


if __name__ == "__main__":
    main()
