"""torchvision.utils' drawing functions: draw_bounding_boxes, draw_segmentation_masks,
draw_keypoints and flow_to_image. Images are tensors (C, H, W), uint8 or float in [0, 1] (float
images are drawn on at 8 bits and converted back, as torchvision's); the drawing is Pillow's
ImageDraw with torchvision's arguments, so the pixels are torchvision's. The result is a new
tensor on the image's device."""
from __future__ import annotations

import warnings
from typing import List, Optional, Tuple, Union

import numpy as np

from .._tensor import Tensor
from .transforms import _image as I
from .transforms._photometric import _convert

__all__ = ["draw_bounding_boxes", "draw_keypoints", "draw_segmentation_masks", "flow_to_image"]

Color = Union[str, Tuple[int, int, int]]


def _palette(n: int) -> List[Tuple[int, int, int]]:
    """torchvision's automatic colours: i * (2^25 - 1, 2^15 - 1, 2^21 - 1) mod 255."""
    base = (2 ** 25 - 1, 2 ** 15 - 1, 2 ** 21 - 1)
    return [tuple((i * p) % 255 for p in base) for i in range(n)]  # type: ignore[misc]


def _parse_colors(colors, n: int, floating: bool = False) -> list:
    from PIL import ImageColor
    if colors is None:
        colors = _palette(n)
    elif isinstance(colors, list):
        if len(colors) < n:
            raise ValueError(f"Number of colors must be equal or larger than the number of objects, but got "
                             f"{len(colors)} < {n}.")
    elif not isinstance(colors, (tuple, str)):
        raise ValueError(f"colors must be a tuple or a string, or a list thereof, but got {colors}.")
    elif isinstance(colors, tuple) and len(colors) != 3:
        raise ValueError(f"If passed as tuple, colors should be an RGB triplet, but got {colors}.")
    else:
        colors = [colors] * n
    colors = [ImageColor.getrgb(c) if isinstance(c, str) else tuple(c) for c in colors]
    return [tuple(v / 255 for v in c) for c in colors] if floating else colors


def _check_image(what: str, image, channels=(3,)) -> np.ndarray:
    if not isinstance(image, Tensor):
        raise TypeError(f"{what}: the image must be a tensor, got {type(image)}")
    if not (image.dtype == "uint8" or image.is_floating_point()):
        raise ValueError(f"{what}: the image dtype must be uint8 or float, got {image.dtype}")
    if image.dim() != 3:
        raise ValueError(f"{what}: pass individual images, not batches (got shape {list(image.shape)})")
    if image.shape[0] not in channels:
        raise ValueError(f"{what}: " + ("only grayscale and RGB images are supported" if len(channels) > 1 else
                                        "pass an RGB image. Other Image formats are not supported")
                         + f" (got {image.shape[0]} channels)")
    return image.numpy(force=True)


def _to_pil(a: np.ndarray):
    """A (3, H, W) array, uint8 or float in [0, 1], as an RGB PIL image."""
    Image = I.require_pil()
    u8 = _convert(a, np.dtype(np.uint8)) if a.dtype.kind == "f" else a
    return Image.fromarray(np.ascontiguousarray(u8.transpose(1, 2, 0)))


def _back(pil, like: Tensor) -> Tensor:
    a = np.asarray(pil).transpose(2, 0, 1)
    dt = np.dtype(like.numpy(force=True).dtype)
    out = _convert(np.ascontiguousarray(a), dt) if dt.kind == "f" else np.ascontiguousarray(a)
    return I.like(out, like)


def draw_bounding_boxes(image: Tensor, boxes: Tensor, labels: Optional[List[str]] = None, colors=None,
                        fill: Optional[bool] = False, width: int = 1, font: Optional[str] = None,
                        font_size: Optional[int] = None, label_colors=None, label_background_colors=None,
                        fill_labels: bool = False) -> Tensor:
    """The image with each (x1, y1, x2, y2) box of boxes [N, 4] outlined (width pixels; filled at
    alpha 100/255 with fill) and labelled (torchvision.utils.draw_bounding_boxes)."""
    from PIL import ImageDraw, ImageFont
    a = _check_image("draw_bounding_boxes", image, channels=(1, 3))
    b = boxes.numpy(force=True)
    if b.shape[-1] == 4 and len(b) and ((b[:, 0] > b[:, 2]).any() or (b[:, 1] > b[:, 3]).any()):
        raise ValueError("Boxes need to be in (xmin, ymin, xmax, ymax) format. Use torchvision.ops.box_convert to "
                         "convert them")
    n = b.shape[0]
    if n == 0:
        warnings.warn("boxes doesn't contain any box. No box was drawn")
        return image
    if labels is None:
        labels = [None] * n  # type: ignore[list-item]
    elif len(labels) != n:
        raise ValueError(f"Number of boxes ({n}) and labels ({len(labels)}) mismatch. Please specify labels for each "
                         "box.")
    box_colors = _parse_colors(colors, n)
    text_colors = (_parse_colors(label_colors or "black", n) if label_colors or fill_labels else list(box_colors))
    backgrounds = (_parse_colors(label_background_colors, n) if fill_labels and label_background_colors
                   else list(box_colors))
    if font is None:
        if font_size is not None:
            warnings.warn("Argument 'font_size' will be ignored since 'font' is not set.")
        text_font = ImageFont.load_default()
    else:
        text_font = ImageFont.truetype(font=font, size=font_size or 10)
    if a.shape[0] == 1:
        a = np.tile(a, (3, 1, 1))
    pil = _to_pil(a)
    draw = ImageDraw.Draw(pil, "RGBA") if fill else ImageDraw.Draw(pil)
    for box, color, label, text_color, background in zip(b.astype(np.int64).tolist(), box_colors, labels,
                                                          text_colors, backgrounds):
        draw.rectangle(box, width=width, outline=color, fill=color + (100,) if fill else None)
        if label is not None:
            margin = width + 1
            if fill_labels:
                left, top, right, bottom = draw.textbbox((box[0] + margin, box[1] + margin), label, font=text_font)
                draw.rectangle((left - 1, top - 1, right + 1, bottom + 1), fill=background)
            draw.text((box[0] + margin, box[1] + margin), label, fill=text_color, font=text_font)
    return _back(pil, image)


def draw_segmentation_masks(image: Tensor, masks: Tensor, alpha: float = 0.8, colors=None) -> Tensor:
    """image * (1 - alpha) + painted * alpha, painted the image with each bool mask [N, H, W] (or
    [H, W]) in its colour and pixels under several masks black (torchvision.utils.draw_segmentation_masks)."""
    a = _check_image("draw_segmentation_masks", image)
    m = masks.numpy(force=True)
    if m.ndim == 2:
        m = m[None]
    if m.ndim != 3:
        raise ValueError("masks must be of shape (H, W) or (batch_size, H, W)")
    if m.dtype != np.bool_:
        raise ValueError(f"The masks must be of dtype bool. Got {masks.dtype}\n  fix: masks.bool() or masks > 0.5")
    if m.shape[-2:] != a.shape[-2:]:
        raise ValueError(f"The image and the masks must have the same height and width, got {list(a.shape[-2:])} and "
                         f"{list(m.shape[-2:])}")
    if m.shape[0] == 0:
        warnings.warn("masks doesn't contain any mask. No mask was drawn")
        return image
    painted = a.copy()
    for mask, color in zip(m, _parse_colors(colors, m.shape[0], floating=a.dtype.kind == "f")):
        painted[:, mask] = np.asarray(color, dtype=a.dtype)[:, None]
    painted[:, m.sum(0) > 1] = 0
    work = a.dtype if a.dtype.kind == "f" else np.dtype(np.float32)
    out = a.astype(work) * work.type(1 - alpha) + painted.astype(work) * work.type(alpha)
    return I.like(out.astype(a.dtype), image)


def draw_keypoints(image: Tensor, keypoints: Tensor, connectivity: Optional[List[Tuple[int, int]]] = None,
                   colors: Optional[Color] = None, radius: int = 2, width: int = 3,
                   visibility: Optional[Tensor] = None) -> Tensor:
    """The image with each visible key point of keypoints [num_instances, K, 2] a disc of
    `radius` in `colors`, and the connectivity pairs joined by lines `width` wide
    (torchvision.utils.draw_keypoints)."""
    from PIL import ImageDraw
    a = _check_image("draw_keypoints", image)
    if keypoints.ndim != 3:
        raise ValueError(f"keypoints must be of shape (num_instances, K, 2), got {list(keypoints.shape)}")
    vis = np.ones(tuple(keypoints.shape[:-1]), bool) if visibility is None else visibility.numpy(force=True)
    if vis.ndim == 3:
        vis = vis.squeeze(-1)
    if vis.ndim != 2:
        raise ValueError(f"visibility must be of shape (num_instances, K). Got ndim={vis.ndim}")
    if vis.shape != tuple(keypoints.shape[:-1]):
        raise ValueError(f"keypoints and visibility must have the same dimensionality for num_instances and K. Got "
                         f"visibility.shape={vis.shape} and keypoints.shape={tuple(keypoints.shape)}")
    pil = _to_pil(a)
    draw = ImageDraw.Draw(pil)
    points = keypoints.numpy(force=True).astype(np.int64).tolist()
    for instance, seen in zip(points, vis.astype(bool).tolist()):
        for (x, y), visible in zip(instance, seen):
            if visible:
                draw.ellipse([x - radius, y - radius, x + radius, y + radius], fill=colors, outline=None, width=0)
        for i, j in connectivity or []:
            if seen[i] and seen[j]:
                draw.line(((instance[i][0], instance[i][1]), (instance[j][0], instance[j][1])), width=width)
    return _back(pil, image)


def _colorwheel() -> np.ndarray:
    """[55, 3]: the Middlebury optical-flow colour wheel (Baker et al. 2011): red-yellow 15,
    yellow-green 6, green-cyan 4, cyan-blue 11, blue-magenta 13, magenta-red 6 steps."""
    wheel: np.ndarray = np.zeros((55, 3), np.float32)
    at = 0
    # (steps, channel held at 255, channel that ramps, ramp rising?)
    for steps, full, ramp, rising in ((15, 0, 1, True), (6, 1, 0, False), (4, 1, 2, True), (11, 2, 1, False),
                                      (13, 2, 0, True), (6, 0, 2, False)):
        r = np.floor(255 * np.arange(steps, dtype=np.float32) / steps)
        wheel[at:at + steps, full] = 255
        wheel[at:at + steps, ramp] = r if rising else 255 - r
        at += steps
    return wheel


def flow_to_image(flow: Tensor) -> Tensor:
    """An optical flow (2, H, W) or (N, 2, H, W), float32, as uint8 RGB images: the direction is
    the hue on the colour wheel, the length (over the largest length) the saturation
    (torchvision.utils.flow_to_image)."""
    import glassgrad as gg
    if flow.dtype != gg.float32:
        raise ValueError(f"Flow should be of dtype torch.float, got {flow.dtype}.")
    f = flow.numpy(force=True)
    shape = f.shape
    if f.ndim == 3:
        f = f[None]
    if f.ndim != 4 or f.shape[1] != 2:
        raise ValueError(f"Input flow should have shape (2, H, W) or (N, 2, H, W), got {tuple(shape)}.")
    max_norm = np.sqrt((f ** 2).sum(1)).max()
    f = f / (max_norm + np.finfo(np.float32).eps)
    wheel = _colorwheel()
    cols = wheel.shape[0]
    norm = np.sqrt((f ** 2).sum(1))
    angle = np.arctan2(-f[:, 1], -f[:, 0]) / np.float32(np.pi)
    fk = (angle + 1) / 2 * (cols - 1)
    k0 = np.floor(fk).astype(np.int64)
    k1 = np.where(k0 + 1 == cols, 0, k0 + 1)
    frac = fk - k0
    out = np.zeros((f.shape[0], 3, f.shape[2], f.shape[3]), np.uint8)
    for c in range(3):
        col = (1 - frac) * (wheel[k0, c] / 255.0) + frac * (wheel[k1, c] / 255.0)
        out[:, c] = np.floor(255 * (1 - norm * (1 - col))).astype(np.uint8)
    return I.like(out[0] if len(shape) == 3 else out, flow)
