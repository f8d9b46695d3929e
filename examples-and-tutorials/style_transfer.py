"""Neural style transfer (Gatys et al. 2016) with glassgrad: the *input image* is the trainable
tensor. A leaf tensor with requires_grad=True holds the pixels, Adam updates it, and the loss
compares the features of a small conv net:

  style loss    sum over layers l of mean((G_l(x) - G_l(style))^2), with the Gram matrix
                G_l = F_l F_l^T / (H W), F_l the layer's features reshaped to [N, C, H*W]
                (a batched matmul: channel-by-channel correlations, blind to where things are)
  content loss  mean((F_c(x) - F_c(content))^2) at one deeper layer (keeps the layout)
  smoothness    total variation: mean |x[i+1, j] - x[i, j]| + mean |x[i, j+1] - x[i, j]|

The feature net is NOT a pretrained VGG (glassgrad downloads nothing): it is a small conv net
with fixed random weights, initialized (PyTorch's default) from glassgrad.manual_seed(seed), so a run is
repeatable. Random conv features with many channels already capture texture statistics well
(Ustyuzhaninov et al., "Texture synthesis using shallow convolutional networks with random
filters", 2016); a trained net would transfer style more faithfully.

    python examples-and-tutorials/style_transfer.py --out style_out          # 128x128, 300 steps
    python examples-and-tutorials/style_transfer.py --content photo.jpg --style painting.png
    python examples-and-tutorials/style_transfer.py --size 32 --steps 20 --width 8   # quick (CI)

Default pictures: scikit-learn's sample photo china.jpg as content (it ships with scikit-learn)
and a generated pattern of colored waves as style. Writes content.png, style.png and result.png
with the small PNG writer below (zlib only).
"""
import argparse
import os
import struct
import sys
import time
import zlib

import numpy as np

import glassgrad as gg


# ---- pictures in and out -------------------------------------------------------------------
def write_png(path, image):
    """image float [H, W, 3] in [0, 1] (clipped) -> an 8-bit RGB PNG. A PNG is a signature and
    chunks (length, type, data, CRC-32): IHDR (size, bit depth 8, color type 2 = RGB), IDAT (the
    zlib-compressed rows, each row prefixed by filter type 0 = none) and IEND."""
    rgb = (np.clip(image, 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8)
    h, w, _ = rgb.shape
    rows = np.concatenate([np.zeros((h, 1), np.uint8), rgb.reshape(h, w * 3)], axis=1)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(rows.tobytes(), 9)) + chunk(b"IEND", b""))
    with open(path, "wb") as f:
        f.write(png)


def load_picture(source, size):
    """A picture as float32 [1, 3, size, size] in [0, 1]: 'china' or 'flower' (scikit-learn's
    sample photos), 'waves' (generated), or a path to an image file (read with Pillow)."""
    if source == "waves":
        return waves(size)
    try:
        from PIL import Image
    except ImportError:
        sys.exit("style_transfer.py: reading pictures needs Pillow (python3 -m pip install pillow), "
                 "or use --content waves --style waves")
    if source in ("china", "flower"):
        try:
            from sklearn.datasets import load_sample_image
        except ImportError:
            sys.exit("style_transfer.py: the default photo ships with scikit-learn "
                     "(python3 -m pip install scikit-learn), or pass --content PATH")
        img = Image.fromarray(load_sample_image(source + ".jpg"))
    else:
        img = Image.open(source).convert("RGB")
    side = min(img.size)  # centre square crop, then resize
    left, top = (img.size[0] - side) // 2, (img.size[1] - side) // 2
    img = img.crop((left, top, left + side, top + side)).resize((size, size), Image.BILINEAR)
    return (np.asarray(img, np.float32) / 255.0).transpose(2, 0, 1)[None].copy()


def waves(size):
    """A style picture made of colored diagonal waves and rings."""
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
    a = np.sin(2 * np.pi * (5 * xx + 3 * yy)) + 0.5 * np.sin(2 * np.pi * 11 * np.hypot(xx - 0.3, yy - 0.6))
    t = (a - a.min()) / (a.max() - a.min())
    rgb = np.stack([0.5 + 0.5 * np.sin(2 * np.pi * (t + c)) for c in (0.0, 0.33, 0.66)])
    return rgb[None].astype(np.float32)


# --8<-- [start:model]
class FeatureNet(gg.Module):
    """Four 3x3 conv + ReLU layers (fixed random weights), average-pooled between them.
    Returns the features after every ReLU: [N, w, S, S], [N, w, S, S], [N, 2w, S/2, S/2], [N, 2w, S/4, S/4]."""

    def __init__(self, width):
        super().__init__()
        self.conv1 = gg.Conv2D(3, width, 3, padding=1)
        self.conv2 = gg.Conv2D(width, width, 3, padding=1)
        self.conv3 = gg.Conv2D(width, 2 * width, 3, padding=1)
        self.conv4 = gg.Conv2D(2 * width, 2 * width, 3, padding=1)

    def forward(self, x):
        f1 = gg.relu(self.conv1(x - 0.5))
        f2 = gg.relu(self.conv2(f1))
        f3 = gg.relu(self.conv3(gg.avg_pool2d(f2, 2)))
        f4 = gg.relu(self.conv4(gg.avg_pool2d(f3, 2)))
        return [f1, f2, f3, f4]


def gram(features):
    """[N, C, H, W] -> [N, C, C]: G[n, i, j] = sum_p F[n, i, p] F[n, j, p] / (H W)."""
    n, c, h, w = features.shape
    f = features.reshape(n, c, h * w)
    return (f @ f.transpose(1, 2)) * (1.0 / (h * w))          # batched matmul


def total_variation(x):
    return (x[:, :, 1:, :] - x[:, :, :-1, :]).abs().mean() + (x[:, :, :, 1:] - x[:, :, :, :-1]).abs().mean()
# --8<-- [end:model]


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="Style transfer by optimizing the input image with glassgrad.")
    p.add_argument("--content", default="china", help="'china', 'flower', 'waves' or an image path")
    p.add_argument("--style", default="waves", help="'waves', 'china', 'flower' or an image path")
    p.add_argument("--size", type=int, default=128, help="side of the square pictures, in pixels")
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--lr", type=float, default=0.02)
    p.add_argument("--width", type=int, default=32, help="channels of the feature net's first layers")
    p.add_argument("--style-weight", type=float, default=1e3)
    p.add_argument("--content-weight", type=float, default=1.0)
    p.add_argument("--tv-weight", type=float, default=0.05)
    p.add_argument("--out", default="style_transfer_out", help="directory for the PNGs")
    p.add_argument("--device", default=None)
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    if args.device:
        gg.set_default_device(args.device)
    gg.manual_seed(args.seed)
    os.makedirs(args.out, exist_ok=True)
    content = load_picture(args.content, args.size)
    style = load_picture(args.style, args.size)
    write_png(os.path.join(args.out, "content.png"), content[0].transpose(1, 2, 0))
    write_png(os.path.join(args.out, "style.png"), style[0].transpose(1, 2, 0))

    # --8<-- [start:optimize]
    net = FeatureNet(args.width)
    for p in net.parameters():
        p.requires_grad = False               # the net is fixed; only the image learns
    with gg.no_grad():                        # the targets are constants
        style_grams = [gg.tensor(gram(f).cpu().numpy()) for f in net(gg.tensor(style))]
        content_features = gg.tensor(net(gg.tensor(content))[2].cpu().numpy())

    image = gg.tensor(content.copy(), requires_grad=True)  # start from the content picture
    optimizer = gg.Adam([image], lr=args.lr)
    history = []
    for step in range(args.steps):
        features = net(image)
        style_loss = sum(((gram(f) - g) ** 2).mean() for f, g in zip(features, style_grams))
        content_loss = ((features[2] - content_features) ** 2).mean()
        loss = (args.style_weight * style_loss + args.content_weight * content_loss
                + args.tv_weight * total_variation(image))
        loss.backward()                       # d loss / d pixels lands in image.grad
        optimizer.step()
        optimizer.zero_grad()
        # --8<-- [end:optimize]
        history.append((loss.item(), style_loss.item(), content_loss.item()))
        if step % max(1, args.steps // 10) == 0 or step == args.steps - 1:
            print(f"step {step:4d}  loss {history[-1][0]:.5f}  style {history[-1][1]:.6f}  "
                  f"content {history[-1][2]:.6f}")
    result = os.path.join(args.out, "result.png")
    write_png(result, image.detach().cpu().numpy()[0].transpose(1, 2, 0))
    print(f"wrote {result} (and content.png, style.png); style loss {history[0][1]:.6f} -> {history[-1][1]:.6f}")
    return history


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"done in {time.perf_counter() - start:.1f} s")
