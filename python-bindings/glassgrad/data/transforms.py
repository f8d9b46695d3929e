"""Data augmentation and conversion on NumPy batches [N, C, H, W]. Every random choice comes
from a numpy.random.Generator passed in, so a seeded run is repeatable."""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np


def _check_batch(x: np.ndarray, fn: str) -> None:
    if x.ndim != 4:
        raise ValueError(f"{fn}: expected a batch [N, C, H, W], got shape {list(x.shape)}\n"
                         f"  fix: for one image use x[None] to add the batch axis")


def random_crop(x: np.ndarray, rng: np.random.Generator, padding: int = 4,
                size: Optional[Sequence[int]] = None) -> np.ndarray:
    """Pads each image with `padding` zeros on every side and cuts a window of `size`
    (default: the original H, W) at an offset drawn uniformly per image."""
    _check_batch(x, "random_crop")
    n, c, h, w = x.shape
    ch, cw = (h, w) if size is None else (int(size[0]), int(size[1]))
    if padding < 0 or ch > h + 2 * padding or cw > w + 2 * padding or ch < 1 or cw < 1:
        raise ValueError(f"random_crop: cannot cut {ch}x{cw} from {h}x{w} images padded by {padding}")
    padded = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    oy = rng.integers(0, h + 2 * padding - ch + 1, size=n)
    ox = rng.integers(0, w + 2 * padding - cw + 1, size=n)
    rows = oy[:, None] + np.arange(ch)  # [N, ch]
    cols = ox[:, None] + np.arange(cw)  # [N, cw]
    return padded[np.arange(n)[:, None, None, None], np.arange(c)[None, :, None, None],
                  rows[:, None, :, None], cols[:, None, None, :]]


def random_horizontal_flip(x: np.ndarray, rng: np.random.Generator, p: float = 0.5) -> np.ndarray:
    """Mirrors each image left-right with probability p."""
    _check_batch(x, "random_horizontal_flip")
    flip = rng.random(x.shape[0]) < p
    out = x.copy()
    out[flip] = x[flip, :, :, ::-1]
    return out


def augment_cifar(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The standard CIFAR-10 training augmentation: random crop with 4 pixels of padding,
    then a random horizontal flip."""
    return random_horizontal_flip(random_crop(x, rng, padding=4), rng)


CIFAR10_MEAN = (0.4914, 0.4822, 0.4465)
CIFAR10_STD = (0.2470, 0.2435, 0.2616)


def to_float(x: np.ndarray, mean: Optional[Sequence[float]] = None,
             std: Optional[Sequence[float]] = None) -> np.ndarray:
    """uint8 [N, C, H, W] -> float32 in [0, 1], then (x - mean[c]) / std[c] when given."""
    out = np.asarray(x, dtype=np.float32) / np.float32(255.0)
    if mean is not None:
        out -= np.asarray(mean, np.float32).reshape(1, -1, 1, 1)
    if std is not None:
        out /= np.asarray(std, np.float32).reshape(1, -1, 1, 1)
    return out
