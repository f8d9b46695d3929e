"""GAN variants in the older course style on MNIST-format digits: legacy tensor types
(`Tensor = torch.FloatTensor`, `Tensor(n, 1).fill_(1.0)`, `imgs.type(Tensor)`, `Variable`),
a BatchNorm1d with eps given by position, a class-conditional generator (label Embedding
multiplied into the noise), and one of five losses: BCE (--loss gan), least squares (lsgan),
the Wasserstein critic with weight clipping under RMSprop (wgan) or with a gradient penalty
(wgan-gp: autograd.grad(create_graph=True) through the critic's LeakyReLU(inplace=True), then a
second backward), or an auxiliary classifier head with an implicit-dim Softmax (acgan). --shared-encoders trains two encoders that share a
block with one Adam over their chained parameters (the shared ones listed twice); --adain
normalizes with F.batch_norm over buffers repeated per sample; the sampling grid edits a
repeated label tensor element by element. Sample grids are written with save_image."""
import argparse
import itertools
import os

import numpy as np

import glassgrad.nn as nn
import glassgrad.nn.functional as F
import glassgrad.torch as torch
from glassgrad import autograd
from glassgrad.autograd import Variable
from glassgrad.utils.data import DataLoader
from glassgrad.vision import datasets, transforms
from glassgrad.vision.utils import save_image


class AdaIN(nn.Module):
    """Instance normalization through F.batch_norm over (1, N * C, H, W), its running statistics
    the buffers repeated per sample (computed tensors that batch_norm updates in place)."""

    def __init__(self, channels):
        super().__init__()
        self.weight, self.bias = None, None
        self.register_buffer("running_mean", torch.zeros(channels))
        self.register_buffer("running_var", torch.ones(channels))

    def forward(self, x):
        b, c, h, w = x.size()
        out = F.batch_norm(x.contiguous().view(1, b * c, h, w), self.running_mean.repeat(b),
                           self.running_var.repeat(b), self.weight, self.bias, True, 0.1, 1e-5)
        return out.view(b, c, h, w)


class Generator(nn.Module):
    def __init__(self, latent, classes, adain):
        super().__init__()
        self.label_emb = nn.Embedding(classes, latent)
        self.fc = nn.Sequential(nn.Linear(latent, 64), nn.BatchNorm1d(64, 0.8), nn.LeakyReLU(0.2, inplace=True),
                                nn.Linear(64, 8 * 7 * 7))
        self.adain = AdaIN(8) if adain else None
        self.up = nn.Sequential(nn.Upsample(scale_factor=2), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(),
                                nn.Upsample(scale_factor=2), nn.Conv2d(8, 1, 3, padding=1), nn.Tanh())

    def forward(self, z, labels):
        x = self.fc(torch.mul(self.label_emb(labels), z)).view(z.size(0), 8, 7, 7)
        if self.adain is not None:
            self.adain.weight, self.adain.bias = torch.ones(z.size(0) * 8), torch.zeros(z.size(0) * 8)
            x = self.adain(x)
        return self.up(x)


class Discriminator(nn.Module):
    def __init__(self, classes, loss):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, 8, 3, 2, 1), nn.LeakyReLU(0.2, inplace=True), nn.Dropout2d(0.25),
                                  nn.Conv2d(8, 16, 3, 2, 1), nn.LeakyReLU(0.2, inplace=True))
        self.adv = nn.Sequential(nn.Linear(16 * 7 * 7, 1), *([nn.Sigmoid()] if loss in ("gan", "acgan") else []))
        self.aux = nn.Sequential(nn.Linear(16 * 7 * 7, classes), nn.Softmax()) if loss == "acgan" else None

    def forward(self, img):
        h = self.body(img).view(img.shape[0], -1)
        return self.adv(h), (self.aux(h) if self.aux is not None else None)


def gradient_penalty(D, real, fake, Tensor):
    """WGAN-GP's penalty: ((||dD/dx|| - 1) ** 2).mean() at random points between real and fake
    samples, its gradient built with create_graph=True so d_loss.backward() differentiates it."""
    alpha = Tensor(np.random.random((real.size(0), 1, 1, 1)))
    interpolates = (alpha * real + ((1 - alpha) * fake)).requires_grad_(True)
    d_interpolates, _ = D(interpolates)
    ones = Variable(Tensor(real.shape[0], 1).fill_(1.0), requires_grad=False)
    gradients = autograd.grad(outputs=d_interpolates, inputs=interpolates, grad_outputs=ones, create_graph=True,
                              retain_graph=True, only_inputs=True)[0]
    gradients = gradients.view(gradients.size(0), -1)
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean()


def shared_encoders_step(Tensor):
    """Two encoders sharing their last block, one Adam over the chain (shared weights twice)."""
    shared = nn.Linear(6, 4)
    e1, e2 = nn.Sequential(nn.Linear(5, 6), nn.ReLU(), shared), nn.Sequential(nn.Linear(5, 6), nn.ReLU(), shared)
    opt = torch.optim.Adam(itertools.chain(e1.parameters(), e2.parameters()), lr=1e-3)
    x = Variable(Tensor(np.random.normal(0, 1, (3, 5))))
    before = shared.weight.detach().clone()
    loss = (e1(x) - e2(x)).pow(2).mean() + e1(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    return len(opt.param_groups[0]["params"]), float((shared.weight.detach() - before).abs().max())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data")
    p.add_argument("--loss", choices=["gan", "lsgan", "wgan", "wgan-gp", "acgan"], default="gan")
    p.add_argument("--lambda_gp", type=float, default=10.0)
    p.add_argument("--batch_size", type=int, default=16)
    p.add_argument("--latent_dim", type=int, default=12)
    p.add_argument("--n_classes", type=int, default=10)
    p.add_argument("--clip_value", type=float, default=0.01)
    p.add_argument("--adain", action="store_true")
    p.add_argument("--shared-encoders", action="store_true")
    opt = p.parse_args()
    os.makedirs("images", exist_ok=True)
    np.random.seed(0)
    torch.manual_seed(0)
    Tensor, LongTensor = torch.FloatTensor, torch.LongTensor
    loader = DataLoader(datasets.MNIST(opt.data, train=True, download=True, transform=transforms.Compose(
        [transforms.ToTensor(), transforms.Normalize([0.5], [0.5])])), batch_size=opt.batch_size, shuffle=True)
    generator, discriminator = Generator(opt.latent_dim, opt.n_classes, opt.adain), Discriminator(opt.n_classes, opt.loss)
    if opt.loss == "wgan":
        opt_g = torch.optim.RMSprop(generator.parameters(), lr=5e-5)
        opt_d = torch.optim.RMSprop(discriminator.parameters(), lr=5e-5)
    else:
        opt_g = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
        opt_d = torch.optim.Adam(discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))
    adversarial = torch.nn.MSELoss() if opt.loss == "lsgan" else torch.nn.BCELoss()
    auxiliary = torch.nn.CrossEntropyLoss()
    for i, (imgs, labels) in enumerate(loader):
        valid = Variable(Tensor(imgs.size(0), 1).fill_(1.0), requires_grad=False)
        fake = Variable(Tensor(imgs.size(0), 1).fill_(0.0), requires_grad=False)
        real_imgs, labels = Variable(imgs.type(Tensor)), Variable(labels.type(LongTensor))
        z = Variable(Tensor(np.random.normal(0, 1, (imgs.shape[0], opt.latent_dim))))
        gen_labels = Variable(LongTensor(np.random.randint(0, opt.n_classes, imgs.shape[0])))
        gen_imgs = generator(z, gen_labels)
        # generator
        opt_g.zero_grad()
        validity, pred = discriminator(gen_imgs)
        if opt.loss in ("wgan", "wgan-gp"):
            g_loss = -torch.mean(validity)
        else:
            g_loss = adversarial(validity, valid)
            if pred is not None:
                g_loss = 0.5 * (g_loss + auxiliary(pred, gen_labels))
        g_loss.backward()
        opt_g.step()
        # discriminator, on the generated images detached
        opt_d.zero_grad()
        real_validity, real_pred = discriminator(real_imgs)
        fake_validity, fake_pred = discriminator(gen_imgs.detach())
        if opt.loss == "wgan":
            d_loss = -torch.mean(real_validity) + torch.mean(fake_validity)
        elif opt.loss == "wgan-gp":
            penalty = gradient_penalty(discriminator, real_imgs.data, gen_imgs.data, Tensor)
            d_loss = -torch.mean(real_validity) + torch.mean(fake_validity) + opt.lambda_gp * penalty
            print("gradient penalty: %f" % penalty.item())
        else:
            d_loss = (adversarial(real_validity, valid) + adversarial(fake_validity, fake)) / 2
            if real_pred is not None:
                d_loss = d_loss + (auxiliary(real_pred, labels) + auxiliary(fake_pred, gen_labels)) / 4
        d_loss.backward()
        opt_d.step()
        if opt.loss == "wgan":
            for q in discriminator.parameters():
                q.data.clamp_(-opt.clip_value, opt.clip_value)
        print("[Batch %d/%d] [D loss: %f] [G loss: %f]" % (i, len(loader), d_loss.item(), g_loss.item()))
    if opt.loss == "wgan":
        clipped = max(float(q.detach().abs().max()) for q in discriminator.parameters())
        print("largest critic weight: %f" % clipped)
    # a grid: one row per class; the labels built from a repeated tensor edited in place
    row = Tensor(np.arange(opt.n_classes, dtype=np.float32))
    grid_labels = row.repeat(opt.n_classes, 1)
    for k in range(opt.n_classes):
        grid_labels[k, 0] = k
    generator.eval()
    with torch.no_grad():
        z = Tensor(np.random.normal(0, 1, (opt.n_classes ** 2, opt.latent_dim)))
        sample = generator(z, grid_labels.type(LongTensor).view(-1).sort()[0])
    save_image(sample.data, "images/grid.png", nrow=opt.n_classes, normalize=True)
    print("row tensor unchanged: %s" % (row.tolist() == list(range(opt.n_classes))))
    if opt.shared_encoders:
        n, moved = shared_encoders_step(Tensor)
        print("shared encoders: %d entries, shared weight moved %f" % (n, moved))


if __name__ == "__main__":
    main()
