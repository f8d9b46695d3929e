"""The box kernels of transforms.v2 (torchvision's *_bounding_boxes functions): each takes the
boxes' values as a NumPy array [..., 4] with their format and canvas (height, width) and gives the
moved boxes and the new canvas, computed as torchvision computes them (docs/data-loading.md,
"Boxes and masks"):

- formats convert through XYXY; an integer CXCYWH box converts in float32 and truncates back,
  and an integer centre rounds down;
- flips mirror about the canvas' width (height); resize scales by new/old size in float32 and
  truncates back to an integer dtype; crop and pad translate by (left, top) and clamp to the
  new canvas; affine and rotate move the four corners by the forward matrix and take their
  bounds, then clamp (expand=True translates into the enlarged canvas first).
Clamping works in floating point (float32 for integer boxes) and converts back, truncating."""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import numpy as np

from ...tv_tensors import BoundingBoxFormat as Fmt

Canvas = Tuple[int, int]


def _float_dtype(a: np.ndarray) -> np.dtype:
    return a.dtype if a.dtype == np.float64 else np.dtype(np.float32)


def to_xyxy(a: np.ndarray, fmt: Fmt) -> np.ndarray:
    a = a.copy()
    if fmt is Fmt.XYWH:
        a[..., 2:] += a[..., :2]
    elif fmt is Fmt.CXCYWH:
        f = a.astype(np.float32) if a.dtype.kind in "iub" else a
        f[..., :2] -= f[..., 2:] / 2
        f[..., 2:] += f[..., :2]
        a = f.astype(a.dtype)
    return a


def from_xyxy(a: np.ndarray, fmt: Fmt) -> np.ndarray:
    a = a.copy()
    if fmt is Fmt.XYWH:
        a[..., 2:] -= a[..., :2]
    elif fmt is Fmt.CXCYWH:
        a[..., 2:] -= a[..., :2]
        doubled = a[..., :2] * 2 + a[..., 2:]
        a[..., :2] = np.floor_divide(doubled, 2) if a.dtype.kind in "iu" else doubled / 2
    return a


def convert(a: np.ndarray, old: Fmt, new: Fmt) -> np.ndarray:
    return a.copy() if old is new else from_xyxy(to_xyxy(a, old), new)


def clamp(a: np.ndarray, fmt: Fmt, canvas: Canvas, mode: Optional[str] = "soft") -> np.ndarray:
    """The boxes clamped to the canvas; clamping_mode None leaves them ('soft' and 'hard' are the
    same for boxes that are not rotated)."""
    if mode is None:
        return a.copy()
    xyxy = to_xyxy(a.astype(_float_dtype(a)), fmt)
    xyxy[..., 0::2] = np.clip(xyxy[..., 0::2], 0, canvas[1])
    xyxy[..., 1::2] = np.clip(xyxy[..., 1::2], 0, canvas[0])
    return from_xyxy(xyxy, fmt).astype(a.dtype)


def horizontal_flip(a: np.ndarray, fmt: Fmt, canvas: Canvas) -> Tuple[np.ndarray, Canvas]:
    out = a.copy()
    w = canvas[1]
    if fmt is Fmt.XYXY:
        out[..., 0], out[..., 2] = w - a[..., 2], w - a[..., 0]
    elif fmt is Fmt.XYWH:
        out[..., 0] = w - (a[..., 0] + a[..., 2])
    else:
        out[..., 0] = w - a[..., 0]
    return out, canvas


def vertical_flip(a: np.ndarray, fmt: Fmt, canvas: Canvas) -> Tuple[np.ndarray, Canvas]:
    out = a.copy()
    h = canvas[0]
    if fmt is Fmt.XYXY:
        out[..., 1], out[..., 3] = h - a[..., 3], h - a[..., 1]
    elif fmt is Fmt.XYWH:
        out[..., 1] = h - (a[..., 1] + a[..., 3])
    else:
        out[..., 1] = h - a[..., 1]
    return out, canvas


def resize_to(a: np.ndarray, canvas: Canvas, new: Canvas) -> Tuple[np.ndarray, Canvas]:
    if tuple(new) == tuple(canvas):
        return a.copy(), canvas
    wr, hr = np.float32(new[1] / canvas[1]), np.float32(new[0] / canvas[0])
    ratios = np.array([wr, hr, wr, hr], np.float32)
    return (a.astype(_float_dtype(a)) * ratios).astype(a.dtype), (int(new[0]), int(new[1]))


def resize(a: np.ndarray, canvas: Canvas, size, max_size: Optional[int] = None) -> Tuple[np.ndarray, Canvas]:
    from ..functional import _resized_output_size
    oh, ow = _resized_output_size(canvas[0], canvas[1], size, max_size)
    return resize_to(a, canvas, (oh, ow))


def crop(a: np.ndarray, fmt: Fmt, top: int, left: int, height: int, width: int, mode: Optional[str] = "soft"
         ) -> Tuple[np.ndarray, Canvas]:
    shift = [left, top, left, top] if fmt is Fmt.XYXY else [left, top, 0, 0]
    out = a - np.asarray(shift, a.dtype)
    canvas = (int(height), int(width))
    return clamp(out, fmt, canvas, mode), canvas


def pad(a: np.ndarray, fmt: Fmt, canvas: Canvas, ltrb: Sequence[int], padding_mode: str = "constant",
        mode: Optional[str] = "soft") -> Tuple[np.ndarray, Canvas]:
    if padding_mode != "constant":
        raise ValueError(f"Padding mode '{padding_mode}' is not supported with bounding boxes\n  fix: padding_mode='constant' "
                         f"(the boxes cannot follow mirrored or repeated borders)")
    left, top, right, bottom = ltrb
    shift = [left, top, left, top] if fmt is Fmt.XYXY else [left, top, 0, 0]
    out = a + np.asarray(shift, a.dtype)
    new = (canvas[0] + top + bottom, canvas[1] + left + right)
    return clamp(out, fmt, new, mode), new


def center_crop(a: np.ndarray, fmt: Fmt, canvas: Canvas, output_size, mode: Optional[str] = "soft"
                ) -> Tuple[np.ndarray, Canvas]:
    from ..functional import _size_pair
    ch, cw = _size_pair(output_size)
    top, left = int(round((canvas[0] - ch) / 2.0)), int(round((canvas[1] - cw) / 2.0))
    return crop(a, fmt, top, left, ch, cw, mode)


def resized_crop(a: np.ndarray, fmt: Fmt, top: int, left: int, height: int, width: int, size,
                 mode: Optional[str] = "soft") -> Tuple[np.ndarray, Canvas]:
    out, canvas = crop(a, fmt, top, left, height, width, mode)
    return resize(out, canvas, size)


def forward_affine_matrix(center: Sequence[float], angle: float, translate: Sequence[float], scale: float,
                          shear: Sequence[float]) -> List[float]:
    """The 2x3 matrix (row-major) of T * C * R(angle) S(scale) SH(shear) * C^-1, input to output
    coordinates: the inverse of _geometric.inverse_affine_matrix (whose docstring derives RSS)."""
    from .._geometric import rss_matrix
    cx, cy = center
    tx, ty = translate
    m = [v * scale for v in rss_matrix(angle, shear)]
    m.insert(2, 0.0)
    m.append(0.0)
    m[2] += m[0] * (-cx) + m[1] * (-cy) + cx + tx
    m[5] += m[3] * (-cx) + m[4] * (-cy) + cy + ty
    return m


def affine(a: np.ndarray, fmt: Fmt, canvas: Canvas, angle: float, translate: Sequence[float], scale: float,
           shear: Sequence[float], center: Optional[Sequence[float]] = None, expand: bool = False,
           mode: Optional[str] = "soft") -> Tuple[np.ndarray, Canvas]:
    from .._geometric import _rotated_size, inverse_affine_matrix
    h, w = canvas
    center = [w * 0.5, h * 0.5] if center is None else [float(c) for c in center]
    dt = _float_dtype(a)
    shape = a.shape
    boxes = to_xyxy(a.astype(dt), fmt).reshape(-1, 4)
    matrix_t = np.asarray(forward_affine_matrix(center, angle, translate, scale, shear), dt).reshape(2, 3).T
    points = boxes[:, [[0, 1], [2, 1], [2, 3], [0, 3]]].reshape(-1, 2)
    points = np.concatenate([points, np.ones((points.shape[0], 1), dt)], axis=1)
    moved = (points @ matrix_t).reshape(-1, 4, 2)
    out = np.concatenate([moved.min(axis=1), moved.max(axis=1)], axis=1)
    if expand:
        frame = np.array([[0.0, 0.0, 1.0], [0.0, float(h), 1.0], [float(w), float(h), 1.0], [float(w), 0.0, 1.0]], dt)
        low = (frame @ matrix_t).min(axis=0)
        out = out - np.tile(low, 2)
        new_w, new_h = _rotated_size(inverse_affine_matrix(center, angle, translate, scale, shear), w, h)
        canvas = (new_h, new_w)
    out = clamp(out, Fmt.XYXY, canvas, mode)
    return from_xyxy(out, fmt).reshape(shape).astype(a.dtype), canvas


def rotate(a: np.ndarray, fmt: Fmt, canvas: Canvas, angle: float, expand: bool = False,
           center: Optional[Sequence[float]] = None, mode: Optional[str] = "soft") -> Tuple[np.ndarray, Canvas]:
    if center is not None and expand:
        center = None  # torchvision: the centre has no effect with expand=True
    return affine(a, fmt, canvas, -angle, [0.0, 0.0], 1.0, [0.0, 0.0], center, expand, mode)
