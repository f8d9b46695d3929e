"""torchvision.transforms.functional's rotate, affine, five_crop and ten_crop (re-exported by
functional.py).

PIL images go through PIL's own Image.rotate / Image.transform(AFFINE), as torchvision sends
them. Tensor images (and NumPy arrays) follow torchvision's tensor path: every output pixel reads
the input where the inverse affine map sends it (grid_sample with align_corners=False, zeros
outside), nearest (round half to even) or bilinear, in float32 (the image's dtype when it is a
float); a fill value is blended in through a sampled mask of ones, as torchvision does."""
from __future__ import annotations

import math
import numbers
from typing import List, Optional, Sequence

import numpy as np

from . import _image as I
from ._geometry_log import geometric

__all__ = ["rotate", "affine", "five_crop", "ten_crop"]


def rss_matrix(angle: float, shear: Sequence[float]) -> List[float]:
    """[a, b, c, d], the row-major 2x2 R(angle) SHy(shear_y) SHx(shear_x) (degrees) of
    inverse_affine_matrix's docstring, before the scale."""
    rot, sx, sy = math.radians(angle), math.radians(shear[0]), math.radians(shear[1])
    return [math.cos(rot - sy) / math.cos(sy), -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot),
            math.sin(rot - sy) / math.cos(sy), -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)]


def inverse_affine_matrix(center: Sequence[float], angle: float, translate: Sequence[float], scale: float,
                          shear: Sequence[float]) -> List[float]:
    """The 2x3 matrix (row-major) mapping output coordinates to input ones for the affine map
    M = T * C * R(angle) S(scale) SHy(shear_y) SHx(shear_x) * C^-1 (T: translate, C: the centre).
    R*S*SH has determinant scale^2, so its inverse is the adjugate divided by it:
    RSS = [[a, b], [c, d]] with a = cos(r - sy)/cos(sy), b = -cos(r - sy) tan(sx)/cos(sy) - sin(r),
    c = sin(r - sy)/cos(sy), d = -sin(r - sy) tan(sx)/cos(sy) + cos(r) (angles in radians)."""
    cx, cy = center
    tx, ty = translate
    a, b, c, d = rss_matrix(angle, shear)
    m = [x / scale for x in (d, -b, 0.0, -c, a, 0.0)]
    m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty) + cx
    m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty) + cy
    return m


def _pil_fill(fill, img):
    """torchvision's fill for PIL: a number per band, ints unless the image is mode 'F'."""
    bands = len(img.getbands())
    fill = 0 if fill is None else fill
    if isinstance(fill, (int, float)) and bands > 1:
        fill = tuple([fill] * bands)
    if isinstance(fill, (list, tuple)):
        if len(fill) == 1:
            fill = tuple(fill) * bands
        elif len(fill) != bands:
            raise ValueError(f"The number of elements in 'fill' does not match the number of channels of the image "
                             f"({len(fill)} != {bands})")
        fill = tuple(fill)
    if img.mode != "F":
        fill = tuple(int(x) for x in fill) if isinstance(fill, tuple) else int(fill)
    return fill


def _sample(a: np.ndarray, matrix: Sequence[float], ow: int, oh: int, mode: str, fill) -> np.ndarray:
    """torchvision's tensor affine on a (..., C, H, W) array: the output (..., C, oh, ow)."""
    def grid(dt, w: int, h: int):
        # The matrix scaled to grid_sample's normalised coordinates first, then applied to the
        # output pixel centres: the order of torchvision's float32 operations, so that nearest
        # sampling rounds the same ties the same way (a rotation by 90 degrees lands exactly on them).
        t = np.asarray(matrix, dt).reshape(2, 3) / np.array([[0.5 * w], [0.5 * h]], dt)
        xs = I.linspace(-ow * 0.5 + 0.5, ow * 0.5 + 0.5 - 1, ow, dt)
        ys = I.linspace(-oh * 0.5 + 0.5, oh * 0.5 + 0.5 - 1, oh, dt)[:, None]
        return xs * t[0, 0] + ys * t[0, 1] + t[0, 2], xs * t[1, 0] + ys * t[1, 1] + t[1, 2]
    return sample_grid(a, grid, ow, oh, mode, fill)


def sample_grid(a: np.ndarray, grid, ow: int, oh: int, mode: str, fill) -> np.ndarray:
    """torchvision's _apply_grid_transform on a (..., C, H, W) array: every output pixel reads the
    input at grid(dtype, W, H) -> (gx, gy), grid_sample's normalised coordinates of shape (oh, ow)
    (align_corners=False, zeros outside, the fill blended in through a sampled mask)."""
    if mode not in ("nearest", "bilinear"):
        raise ValueError(f"Interpolation mode '{mode}' is unsupported with Tensor input")
    c, h, w = a.shape[-3:]
    if fill is not None and isinstance(fill, (tuple, list)) and len(fill) > 1 and len(fill) != c:
        raise ValueError(f"The number of elements in 'fill' cannot broadcast to match the number of channels of the "
                         f"image ({len(fill)} != {c})")
    dt = a.dtype if a.dtype.kind == "f" else np.dtype(np.float32)
    work = a.astype(dt).reshape(-1, c, h, w)
    if fill is not None:
        work = np.concatenate([work, np.ones((work.shape[0], 1, h, w), dt)], axis=1)
    gx, gy = grid(dt, w, h)
    px = ((gx + 1) * dt.type(w) - 1) / 2
    py = ((gy + 1) * dt.type(h) - 1) / 2

    def read(yi, xi):
        inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
        v = work[:, :, np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)]
        return np.where(inside, v, dt.type(0))

    if mode == "nearest":
        out = read(np.rint(py).astype(np.int64), np.rint(px).astype(np.int64))
    else:
        x0, y0 = np.floor(px), np.floor(py)
        fx, fy = px - x0, py - y0
        x0, y0 = x0.astype(np.int64), y0.astype(np.int64)
        out = (read(y0, x0) * ((1 - fx) * (1 - fy)) + read(y0, x0 + 1) * (fx * (1 - fy))
               + read(y0 + 1, x0) * ((1 - fx) * fy) + read(y0 + 1, x0 + 1) * (fx * fy))
    out = out.astype(dt)
    if fill is not None:
        mask, out = out[:, -1:], out[:, :-1]
        values = np.asarray(fill if isinstance(fill, (tuple, list)) else [float(fill)], dt).reshape(1, -1, 1, 1)
        values = np.broadcast_to(values, out.shape)
        if mode == "nearest":
            out = np.where(mask < 0.5, values, out)
        else:
            out = out * mask + (1.0 - mask) * values
    out = out.reshape(*a.shape[:-3], c, oh, ow)
    if a.dtype.kind != "f":
        out = np.round(out)
    return out.astype(a.dtype)


def _on_tensor(img, work):
    """work(channels-first array) on a tensor image or a NumPy (H, W[, C]) image."""
    if isinstance(img, np.ndarray):
        return I.chw_to_hwc(work(I.hwc_to_chw(img)), img.ndim == 2)
    return I.like(np.ascontiguousarray(work(I.chw_array(img))), img)


def _mode(interpolation):
    from .functional import interpolation_mode
    return interpolation_mode(interpolation)


def _rotated_size(matrix: Sequence[float], w: int, h: int):
    """The (w, h) that holds the whole rotated image (torchvision's expand=True for tensors)."""
    pts = np.array([[-0.5 * w, -0.5 * h, 1.0], [-0.5 * w, 0.5 * h, 1.0], [0.5 * w, 0.5 * h, 1.0],
                    [0.5 * w, -0.5 * h, 1.0]], np.float32)
    new = pts @ np.asarray(matrix, np.float32).reshape(2, 3).T
    lo, hi = new.min(axis=0) + np.array([w * 0.5, h * 0.5], np.float32), new.max(axis=0) + np.array(
        [w * 0.5, h * 0.5], np.float32)
    tol = 1e-4  # as torchvision: values within 1e-4 of an integer round to it
    size = np.ceil(np.trunc(hi / tol) * tol) - np.floor(np.trunc(lo / tol) * tol)
    return int(size[0]), int(size[1])


@geometric
def rotate(img, angle: float, interpolation=None, expand: bool = False, center: Optional[List[int]] = None,
           fill: Optional[List[float]] = None):
    """Rotates by `angle` degrees counter-clockwise about `center` (default the image's centre);
    expand=True enlarges the output to hold the whole rotated image."""
    from .functional import InterpolationMode, _PIL_FILTERS
    mode = _mode(InterpolationMode.NEAREST if interpolation is None else interpolation)
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError("Argument center should be a sequence")
    if I.is_pil(img):
        return img.rotate(angle, _PIL_FILTERS[mode.value], expand, center, fillcolor=_pil_fill(fill, img))
    _, h, w = I.dimensions(img)
    center_f = [0.0, 0.0] if center is None else [1.0 * (c - s * 0.5) for c, s in zip(center, [w, h])]
    matrix = inverse_affine_matrix(center_f, -angle, [0.0, 0.0], 1.0, [0.0, 0.0])
    ow, oh = _rotated_size(matrix, w, h) if expand else (w, h)
    return _on_tensor(img, lambda a: _sample(a, matrix, ow, oh, mode.value, fill))


@geometric
def affine(img, angle: float, translate: List[int], scale: float, shear: List[float], interpolation=None,
           fill: Optional[List[float]] = None, center: Optional[List[int]] = None):
    """Rotation (degrees), translation (pixels), scale and shear (degrees, one value for x or two
    for x and y) about `center` (default the image's centre), the image keeping its size."""
    from .functional import InterpolationMode, _PIL_FILTERS
    mode = _mode(InterpolationMode.NEAREST if interpolation is None else interpolation)
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if not isinstance(translate, (list, tuple)):
        raise TypeError("Argument translate should be a sequence")
    if len(translate) != 2:
        raise ValueError("Argument translate should be a sequence of length 2")
    if scale <= 0.0:
        raise ValueError("Argument scale should be positive")
    if not isinstance(shear, (numbers.Number, list, tuple)):
        raise TypeError("Shear should be either a single value or a sequence of two values")
    shear = [shear, 0.0] if isinstance(shear, numbers.Number) else list(shear)
    if len(shear) == 1:
        shear = [shear[0], shear[0]]
    if len(shear) != 2:
        raise ValueError(f"Shear should be a sequence containing two values. Got {shear}")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError("Argument center should be a sequence")
    angle, translate = float(angle), list(translate)
    _, h, w = I.dimensions(img)
    if I.is_pil(img):
        centre = [w * 0.5, h * 0.5] if center is None else center
        matrix = inverse_affine_matrix(centre, angle, translate, scale, shear)
        return img.transform(img.size, I.require_pil().AFFINE, matrix, _PIL_FILTERS[mode.value],
                             fillcolor=_pil_fill(fill, img))
    center_f = [0.0, 0.0] if center is None else [1.0 * (c - s * 0.5) for c, s in zip(center, [w, h])]
    matrix = inverse_affine_matrix(center_f, angle, [1.0 * t for t in translate], scale, shear)
    return _on_tensor(img, lambda a: _sample(a, matrix, w, h, mode.value, fill))


def _crop_size(size):
    """(h, w) of a crop size given as an int, [int] or (h, w)."""
    if isinstance(size, numbers.Number):
        return (int(size), int(size))
    if isinstance(size, (tuple, list)) and len(size) == 1:
        return (size[0], size[0])
    if len(size) != 2:
        raise ValueError("Please provide only two dimensions (h, w) for size.")
    return tuple(size)


@geometric
def five_crop(img, size):
    """(top-left, top-right, bottom-left, bottom-right, centre) crops of size (h, w) or an int."""
    from .functional import center_crop, crop
    size = _crop_size(size)
    _, h, w = I.dimensions(img)
    ch, cw = size
    if cw > w or ch > h:
        raise ValueError(f"Requested crop size {size} is bigger than input size {(h, w)}")
    return (crop(img, 0, 0, ch, cw), crop(img, 0, w - cw, ch, cw), crop(img, h - ch, 0, ch, cw),
            crop(img, h - ch, w - cw, ch, cw), center_crop(img, [ch, cw]))


@geometric
def ten_crop(img, size, vertical_flip: bool = False):
    """five_crop of the image, then five_crop of its mirror (left-right, or top-bottom)."""
    from .functional import hflip, vflip
    size = _crop_size(size)
    return five_crop(img, size) + five_crop(vflip(img) if vertical_flip else hflip(img), size)
