"""DCGAN (Radford et al. 2015) on Fashion-MNIST, with pytorch/examples' dcgan architecture and
training loop on glassgrad.

The generator turns a noise vector z [nz, 1, 1] into an image with five transposed convolutions
(1 -> 4 -> 8 -> 16 -> 32 -> 64 pixels, docs/transposed-convolution.md), BatchNorm and ReLU, and
Tanh at the end; the discriminator mirrors it with strided convolutions, BatchNorm and LeakyReLU,
and a Sigmoid probability. Each iteration trains the discriminator on a real and a generated
batch (BCELoss against labels 1 and 0), then the generator to make the discriminator answer 1.
At the end of every epoch it saves a grid of the images generated from one fixed noise batch,
fake_samples_epoch_NNN.png, and real_samples.png (glassgrad.vision.utils.save_image, torchvision's).

    python examples-and-tutorials/dcgan.py                          # 5 epochs, 64x64, ngf = ndf = 64
    python examples-and-tutorials/dcgan.py --epochs 1 --limit 640 --ngf 16 --ndf 16 --device cpu
    python examples-and-tutorials/dcgan.py --data ~/mnist           # MNIST IDX files instead

Fashion-MNIST's 28x28 images are resized to --image-size (bilinear) and scaled to [-1, 1], the
range of the generator's Tanh.
"""
import argparse
import os
import sys
import time

import numpy as np

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F
from glassgrad.vision.utils import save_image


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="Train a DCGAN on Fashion-MNIST with glassgrad.")
    p.add_argument("--data", help="directory with the MNIST IDX files (default: Fashion-MNIST from "
                                   "/usr/share/datasets/fashion-mnist)")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--image-size", type=int, default=64, help="height and width of the images (a multiple of 16)")
    p.add_argument("--nz", type=int, default=100, help="size of the latent vector z")
    p.add_argument("--ngf", type=int, default=64, help="generator width")
    p.add_argument("--ndf", type=int, default=64, help="discriminator width")
    p.add_argument("--lr", type=float, default=0.0002)
    p.add_argument("--beta1", type=float, default=0.5, help="Adam's beta1")
    p.add_argument("--limit", type=int, default=0, help="use only the first N training images (quick runs)")
    p.add_argument("--iterations", type=int, default=0, help="stop after N iterations in all (quick runs)")
    p.add_argument("--out", default="dcgan_out", help="directory for the image grids")
    p.add_argument("--device", default=None, help="cpu or cuda (default: the GPU when one is usable)")
    p.add_argument("--compile", action="store_true", help="replay each iteration with glassgrad.compile")
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


# --8<-- [start:models]
def generator_layers(nn, nz, ngf, nc):
    """pytorch/examples' DCGAN generator: z [nz, 1, 1] -> image [nc, 64, 64] in [-1, 1]."""
    return [
        nn.ConvTranspose2d(nz, ngf * 8, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 8), nn.ReLU(True),  # 4x4
        nn.ConvTranspose2d(ngf * 8, ngf * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 4), nn.ReLU(True),  # 8x8
        nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 2), nn.ReLU(True),  # 16x16
        nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),  # 32x32
        nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False), nn.Tanh(),  # 64x64
    ]


def discriminator_layers(nn, ndf, nc):
    """pytorch/examples' DCGAN discriminator: image [nc, 64, 64] -> probability [1, 1, 1]."""
    return [
        nn.Conv2d(nc, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),  # 32x32
        nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 2), nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(ndf * 2, ndf * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 4), nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(ndf * 4, ndf * 8, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 8), nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(ndf * 8, 1, 4, 1, 0, bias=False), nn.Sigmoid(),  # 1x1
    ]


class Generator(nn.Module):
    def __init__(self, nz, ngf, nc):
        super().__init__()
        self.main = nn.Sequential(*generator_layers(nn, nz, ngf, nc))

    def forward(self, z):
        return self.main(z)


class Discriminator(nn.Module):
    def __init__(self, ndf, nc):
        super().__init__()
        self.main = nn.Sequential(*discriminator_layers(nn, ndf, nc))

    def forward(self, x):
        return self.main(x).view(-1, 1).squeeze(1)


def weights_init(m):
    """DCGAN's initialization: convolution weights N(0, 0.02), BatchNorm weights N(1, 0.02), biases 0."""
    name = type(m).__name__
    if name.find("Conv") != -1:
        nn.init.normal_(m.weight, 0.0, 0.02)
    elif name.find("BatchNorm") != -1:
        nn.init.normal_(m.weight, 1.0, 0.02)
        nn.init.zeros_(m.bias)
# --8<-- [end:models]


def load_images(args):
    """The training images as float32 [N, 1, S, S] in [-1, 1] (S = --image-size)."""
    try:
        images = (gg.data.load_mnist(args.data) if args.data else gg.data.load_fashion_mnist())[0]
    except gg.data.DatasetNotFoundError as e:
        sys.exit(f"dcgan.py: no training data found.\n{e}")
    if args.limit:
        images = images[:args.limit]
    x = images.astype(np.float32) / 127.5 - 1.0
    out = []
    with gg.no_grad():
        for i in range(0, len(x), 1024):  # resized in chunks on the CPU, like torchvision's Resize
            chunk = gg.tensor(x[i:i + 1024], device="cpu")
            out.append(F.interpolate(chunk, size=(args.image_size, args.image_size), mode="bilinear").cpu().numpy())
    return np.concatenate(out)


# --8<-- [start:step]
def train_step(netD, netG, optimizerD, optimizerG, criterion, real, noise):
    """One DCGAN iteration (pytorch/examples' loop): (1) update D to maximize
    log D(x) + log(1 - D(G(z))), (2) update G to maximize log D(G(z))."""
    batch = real.shape[0]
    real_label = gg.ones(batch, device=real.device)
    fake_label = gg.zeros(batch, device=real.device)
    # (1) the discriminator: a real batch, then a generated one (G is not updated here: detach)
    netD.zero_grad()
    output = netD(real)
    errD_real = criterion(output, real_label)
    errD_real.backward()
    D_x = output.mean()
    fake = netG(noise)
    output = netD(fake.detach())
    errD_fake = criterion(output, fake_label)
    errD_fake.backward()
    D_G_z1 = output.mean()
    optimizerD.step()
    # (2) the generator: make D answer "real" on the same generated batch
    netG.zero_grad()
    output = netD(fake)
    errG = criterion(output, real_label)
    errG.backward()
    D_G_z2 = output.mean()
    optimizerG.step()
    return errD_real + errD_fake, errG, D_x, D_G_z1, D_G_z2
# --8<-- [end:step]


def main(argv=None):
    args = parse_args(argv)
    if args.image_size != 64:
        sys.exit("dcgan.py: the DCGAN architecture makes 64x64 images (--image-size 64)")
    if args.device:
        gg.set_default_device(args.device)
    device = gg.default_device()
    print(f"device: {device}", flush=True)
    gg.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    images = load_images(args)
    nc = images.shape[1]
    os.makedirs(args.out, exist_ok=True)
    save_image(gg.tensor(images[:args.batch_size]), os.path.join(args.out, "real_samples.png"), normalize=True)

    netG = Generator(args.nz, args.ngf, nc)
    netG.apply(weights_init)
    netD = Discriminator(args.ndf, nc)
    netD.apply(weights_init)
    criterion = nn.BCELoss()
    optimizerD = gg.optim.Adam(netD.parameters(), lr=args.lr, betas=(args.beta1, 0.999))
    optimizerG = gg.optim.Adam(netG.parameters(), lr=args.lr, betas=(args.beta1, 0.999))
    fixed_noise = gg.tensor(rng.standard_normal((args.batch_size, args.nz, 1, 1)).astype(np.float32))
    step = train_step
    if args.compile:
        step = gg.compile(train_step)

    batches = len(images) // args.batch_size
    done, start = 0, time.perf_counter()
    for epoch in range(args.epochs):
        order = rng.permutation(len(images))
        for i in range(batches):
            real = gg.tensor(images[order[i * args.batch_size:(i + 1) * args.batch_size]])
            noise = gg.tensor(rng.standard_normal((args.batch_size, args.nz, 1, 1)).astype(np.float32))
            errD, errG, D_x, D_G_z1, D_G_z2 = step(netD, netG, optimizerD, optimizerG, criterion, real, noise)
            done += 1
            if i % 50 == 0 or i == batches - 1 or done == args.iterations:
                print(f"[{epoch}/{args.epochs}][{i}/{batches}] Loss_D: {errD.item():.4f} Loss_G: {errG.item():.4f} "
                      f"D(x): {D_x.item():.4f} D(G(z)): {D_G_z1.item():.4f} / {D_G_z2.item():.4f}", flush=True)
            if done == args.iterations:
                break
        with gg.no_grad():
            fake = netG(fixed_noise)  # in training mode, as pytorch/examples' dcgan saves it
        path = os.path.join(args.out, f"fake_samples_epoch_{epoch:03d}.png")
        save_image(fake.detach(), path, normalize=True)
        print(f"saved {path}", flush=True)
        if done == args.iterations:
            break
    elapsed = time.perf_counter() - start
    print(f"{done} iterations in {elapsed:.1f} s ({1e3 * elapsed / max(done, 1):.1f} ms each)")
    return {"iterations": done, "last_errD": float(errD.item()), "last_errG": float(errG.item())}


if __name__ == "__main__":
    main()
