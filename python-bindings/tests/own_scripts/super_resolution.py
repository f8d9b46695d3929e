"""Super-resolution with a sub-pixel convolution (PixelShuffle): a Dataset reading the luminance
(Y of YCbCr) of the pictures in a folder, the input a downscaled crop and the target the crop,
MSELoss, PSNR on a test folder, a saved model, then one picture upscaled by it and written with
its colour channels resized."""
import argparse
import math
import os

import numpy as np
from PIL import Image

import glassgrad.nn as nn
import glassgrad.optim as optim
import glassgrad.torch as torch
from glassgrad.utils.data import DataLoader, Dataset
from glassgrad.vision import transforms


class Luminance(Dataset):
    def __init__(self, folder, crop, factor):
        self.paths = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith((".png", ".jpg")))
        self.inputs = transforms.Compose([transforms.CenterCrop(crop), transforms.Resize(crop // factor),
                                          transforms.ToTensor()])
        self.targets = transforms.Compose([transforms.CenterCrop(crop), transforms.ToTensor()])

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        y, _, _ = Image.open(self.paths[i]).convert("YCbCr").split()
        return self.inputs(y), self.targets(y)


class SubPixel(nn.Module):
    def __init__(self, factor):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, 16, 5, 1, 2), nn.ReLU(), nn.Conv2d(16, 16, 3, 1, 1), nn.ReLU(),
                                  nn.Conv2d(16, factor ** 2, 3, 1, 1), nn.PixelShuffle(factor))

    def forward(self, x):
        return self.body(x)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--images", default="images")
    p.add_argument("--factor", type=int, default=3)
    p.add_argument("--epochs", type=int, default=2)
    args = p.parse_args()
    torch.manual_seed(0)
    crop = 24 - 24 % args.factor
    train = DataLoader(Luminance(os.path.join(args.images, "train"), crop, args.factor), batch_size=2, shuffle=True)
    test = DataLoader(Luminance(os.path.join(args.images, "test"), crop, args.factor), batch_size=2)
    model = SubPixel(args.factor)
    criterion = nn.MSELoss()
    opt = optim.Adam(model.parameters(), lr=1e-2)
    for epoch in range(1, args.epochs + 1):
        for x, target in train:
            opt.zero_grad()
            loss = criterion(model(x), target)
            loss.backward()
            opt.step()
        with torch.no_grad():
            psnr = sum(10 * math.log10(1 / criterion(model(x), t).item()) for x, t in test) / len(test)
        print(f"epoch {epoch} loss {loss.item():.4f} Avg. PSNR: {psnr:.2f} dB")
    torch.save(model, "model.pth")
    # upscale the first test picture with the saved model
    model = torch.load("model.pth", weights_only=False)
    picture = Image.open(test.dataset.paths[0]).convert("YCbCr")
    y, cb, cr = picture.split()
    with torch.no_grad():
        out = model(transforms.ToTensor()(y).view(1, -1, y.size[1], y.size[0]))[0, 0]
    out_y = Image.fromarray(np.uint8(out.clamp(0, 1).mul(255).round().numpy()))
    size = out_y.size
    Image.merge("YCbCr", [out_y, cb.resize(size, Image.BICUBIC), cr.resize(size, Image.BICUBIC)]).convert(
        "RGB").save("upscaled.png")
    print("upscaled", picture.size, "->", size)


if __name__ == "__main__":
    main()
