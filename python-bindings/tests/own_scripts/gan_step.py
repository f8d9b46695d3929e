"""A DCGAN-style GAN on MNIST-format digits: a ConvTranspose2d generator against a Conv2d
discriminator, BCELoss with real and fake labels, one Adam optimizer each, sample grids written
with save_image and both state_dicts saved."""
import argparse
import os

import glassgrad.nn as nn
import glassgrad.optim as optim
import glassgrad.torch as torch
from glassgrad.utils.data import DataLoader
from glassgrad.vision import datasets, transforms
from glassgrad.vision.utils import save_image


def init_weights(m):
    if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d)):
        nn.init.normal_(m.weight, 0.0, 0.02)
    elif isinstance(m, nn.BatchNorm2d):
        nn.init.normal_(m.weight, 1.0, 0.02)
        nn.init.zeros_(m.bias)


def generator(nz, width):
    return nn.Sequential(  # [N, nz, 1, 1] -> [N, 1, 28, 28]
        nn.ConvTranspose2d(nz, 2 * width, 7, 1, 0, bias=False), nn.BatchNorm2d(2 * width), nn.ReLU(True),
        nn.ConvTranspose2d(2 * width, width, 4, 2, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(True),
        nn.ConvTranspose2d(width, 1, 4, 2, 1, bias=False), nn.Tanh())


def discriminator(width):
    return nn.Sequential(  # [N, 1, 28, 28] -> [N, 1, 1, 1]
        nn.Conv2d(1, width, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(width, 2 * width, 4, 2, 1, bias=False), nn.BatchNorm2d(2 * width), nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(2 * width, 1, 7, 1, 0, bias=False), nn.Sigmoid())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data")
    p.add_argument("--out", default="out")
    p.add_argument("--nz", type=int, default=16)
    p.add_argument("--width", type=int, default=8)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--workers", type=int, default=0)
    args = p.parse_args()
    torch.manual_seed(1)
    os.makedirs(args.out, exist_ok=True)
    data = datasets.MNIST(args.data, train=True, download=False,
                          transform=transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))]))
    loader = DataLoader(data, batch_size=args.batch_size, shuffle=True, num_workers=args.workers, drop_last=True)
    net_g, net_d = generator(args.nz, args.width), discriminator(args.width)
    net_g.apply(init_weights)
    net_d.apply(init_weights)
    criterion = nn.BCELoss()
    fixed_noise = torch.randn(args.batch_size, args.nz, 1, 1)
    opt_d = optim.Adam(net_d.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_g = optim.Adam(net_g.parameters(), lr=2e-4, betas=(0.5, 0.999))
    for epoch in range(args.epochs):
        for i, (real, _) in enumerate(loader):
            b = real.size(0)
            # discriminator: real images labelled 1, generated ones 0 (the generator not updated)
            net_d.zero_grad()
            label = torch.full((b,), 1.0, dtype=real.dtype)
            err_real = criterion(net_d(real).view(-1), label)
            err_real.backward()
            fake = net_g(torch.randn(b, args.nz, 1, 1))
            label.fill_(0.0)
            out = net_d(fake.detach()).view(-1)
            err_fake = criterion(out, label)
            err_fake.backward()
            opt_d.step()
            # generator: its images labelled real, through the updated discriminator
            net_g.zero_grad()
            label.fill_(1.0)
            err_g = criterion(net_d(fake).view(-1), label)
            err_g.backward()
            opt_g.step()
            print(f"[{epoch}][{i}/{len(loader)}] Loss_D: {(err_real + err_fake).item():.4f} Loss_G: {err_g.item():.4f} "
                  f"D(G(z)): {out.mean().item():.4f}")
        save_image(real, os.path.join(args.out, "real_samples.png"), normalize=True)
        with torch.no_grad():
            save_image(net_g(fixed_noise), os.path.join(args.out, f"fake_samples_epoch_{epoch:03d}.png"), normalize=True)
        torch.save(net_g.state_dict(), os.path.join(args.out, f"netG_epoch_{epoch}.pth"))
        torch.save(net_d.state_dict(), os.path.join(args.out, f"netD_epoch_{epoch}.pth"))


if __name__ == "__main__":
    main()
