"""torchvision.transforms.functional.perspective and transforms.RandomPerspective.

perspective(img, startpoints, endpoints) maps the four corners `startpoints` to `endpoints`. Its
eight coefficients (a..h) send an output pixel (x, y) back to the input pixel
    ((a x + b y + c) / (g x + h y + 1), (d x + e y + f) / (g x + h y + 1)),
solved from the four pairs in float64 and rounded to float32, as torchvision's
_get_perspective_coeffs does. PIL images go through PIL's Image.transform(PERSPECTIVE); tensor
images (and NumPy arrays) through torchvision's tensor path: that map applied to the output pixel
centres, then grid_sample (align_corners=False, zeros outside, the fill blended in), nearest or
bilinear (glassgrad/vision/transforms/_geometric.py's sample_grid)."""
from __future__ import annotations

import numbers
from typing import List, Sequence

import numpy as np

from . import _geometric as G
from . import _image as I
from ._geometry_log import geometric
from .functional import InterpolationMode, interpolation_mode
from .transforms import _rng, _Transform

__all__ = ["perspective", "RandomPerspective"]


def _coefficients(startpoints, endpoints) -> List[float]:
    a: np.ndarray = np.zeros((8, 8), np.float64)
    for i, (p1, p2) in enumerate(zip(endpoints, startpoints)):
        a[2 * i] = [p1[0], p1[1], 1, 0, 0, 0, -p2[0] * p1[0], -p2[0] * p1[1]]
        a[2 * i + 1] = [0, 0, 0, p1[0], p1[1], 1, -p2[1] * p1[0], -p2[1] * p1[1]]
    b = np.asarray(startpoints, np.float64).reshape(8)
    solution = np.linalg.lstsq(a, b, rcond=None)[0]
    return solution.astype(np.float32).tolist()


@geometric
def perspective(img, startpoints: List[List[int]], endpoints: List[List[int]],
                interpolation=InterpolationMode.BILINEAR, fill=None):
    """The image warped so that its corners `startpoints` land on `endpoints` (each four [x, y]
    points: top-left, top-right, bottom-right, bottom-left), keeping its size."""
    from .functional import _PIL_FILTERS
    if len(startpoints) != 4 or len(endpoints) != 4:
        raise ValueError(f"Please provide exactly four corners, got {len(startpoints)} startpoints and "
                         f"{len(endpoints)} endpoints.")
    coeffs = _coefficients(startpoints, endpoints)
    mode = interpolation_mode(interpolation)
    if I.is_pil(img):
        return img.transform(img.size, I.require_pil().PERSPECTIVE, coeffs, _PIL_FILTERS[mode.value],
                             fillcolor=G._pil_fill(fill, img))
    _, h, w = I.dimensions(img)

    def grid(dt, w_: int, h_: int):
        c = [dt.type(v) for v in coeffs]
        xs = I.linspace(0.5, w + 0.5 - 1.0, w, dt)
        ys = I.linspace(0.5, h + 0.5 - 1.0, h, dt)[:, None]
        den = xs * c[6] + ys * c[7] + dt.type(1)
        gx = (xs * (c[0] / dt.type(0.5 * w)) + ys * (c[1] / dt.type(0.5 * w)) + c[2] / dt.type(0.5 * w)) / den
        gy = (xs * (c[3] / dt.type(0.5 * h)) + ys * (c[4] / dt.type(0.5 * h)) + c[5] / dt.type(0.5 * h)) / den
        return gx - dt.type(1), gy - dt.type(1)

    return G._on_tensor(img, lambda a: G.sample_grid(a, grid, w, h, mode.value, fill))


class RandomPerspective(_Transform):
    """With probability p, a perspective warp whose corners move inwards by up to
    distortion_scale times half the width and height (torchvision's get_params)."""

    def __init__(self, distortion_scale: float = 0.5, p: float = 0.5, interpolation=InterpolationMode.BILINEAR,
                 fill=0):
        self.p = p
        self.interpolation = interpolation_mode(interpolation)
        self.distortion_scale = distortion_scale
        if fill is None:
            fill = 0
        elif not isinstance(fill, (Sequence, numbers.Number)):
            raise TypeError("Fill should be either a sequence or a number.")
        self.fill = fill

    @staticmethod
    def get_params(width: int, height: int, distortion_scale: float):
        """(startpoints, endpoints): the image's corners and where they move (integer pixels)."""
        half_h, half_w = height // 2, width // 2
        dw, dh = int(distortion_scale * half_w), int(distortion_scale * half_h)

        def draw(low: int, high: int) -> int:  # torch.randint(low, high): high excluded
            return int(_rng().integers(low, high))

        topleft = [draw(0, dw + 1), draw(0, dh + 1)]
        topright = [draw(width - dw - 1, width), draw(0, dh + 1)]
        botright = [draw(width - dw - 1, width), draw(height - dh - 1, height)]
        botleft = [draw(0, dw + 1), draw(height - dh - 1, height)]
        startpoints = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return startpoints, [topleft, topright, botright, botleft]

    def forward(self, img):
        fill = self.fill
        channels, height, width = I.dimensions(img)
        if not I.is_pil(img):
            fill = [float(fill)] * channels if isinstance(fill, (int, float)) else [float(f) for f in fill]
        if _rng().random() < self.p:
            startpoints, endpoints = self.get_params(width, height, self.distortion_scale)
            return perspective(img, startpoints, endpoints, self.interpolation, fill)
        return img

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p={self.p})"
