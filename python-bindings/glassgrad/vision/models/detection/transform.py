"""torchvision.models.detection.transform.GeneralizedRCNNTransform, as torchvision's: each image of
the list is normalized by image_mean / image_std, resized (bilinear, align_corners=False) by the
factor min(min_size / shorter side, max_size / longer side) (training: a min_size drawn from the
tuple at random; eval: the last), and the images are zero-padded into one batch whose height and
width are multiples of size_divisible. The targets' boxes (and keypoints, masks) follow the
resize; postprocess maps detections back to the original image sizes and pastes masks."""
# mypy: disable-error-code="assignment, attr-defined, operator, arg-type, return-value, index"
# (torchvision's algorithm rebinds a name from a list of tensors to their concatenation, and Tensor's
# operators are attached at import, so the checker knows neither; the tests run every path)

from __future__ import annotations

import math
from typing import Any, Optional
import glassgrad as gg
from .... import nn
from ._utils import _assert
from .image_list import ImageList
from .roi_heads import paste_masks_in_image


def _resize_image_and_masks(
    image: Any,
    self_min_size: int,
    self_max_size: int,
    target: Optional[dict[str, Any]] = None,
    fixed_size: Optional[tuple[int, int]] = None,
) -> tuple[Any, Optional[dict[str, Any]]]:
    im_shape = image.shape[-2:]
    size: Optional[list[int]] = None
    scale_factor: Optional[float] = None
    recompute_scale_factor: Optional[bool] = None
    if fixed_size is not None:
        size = [fixed_size[1], fixed_size[0]]
    else:
        scale_factor = min(self_min_size / min(im_shape), self_max_size / max(im_shape))
        recompute_scale_factor = True
    image = gg.nn.functional.interpolate(
        image[None],
        size=size,
        scale_factor=scale_factor,
        mode="bilinear",
        recompute_scale_factor=recompute_scale_factor,
        align_corners=False,
    )[0]
    if target is None:
        return (image, target)
    if "masks" in target:
        mask = target["masks"]
        mask = gg.nn.functional.interpolate(
            mask[:, None].float(), size=size, scale_factor=scale_factor, recompute_scale_factor=recompute_scale_factor
        )[:, 0].byte()
        target["masks"] = mask
    return (image, target)


class GeneralizedRCNNTransform(nn.Module):
    def __init__(
        self,
        min_size: int,
        max_size: int,
        image_mean: list[float],
        image_std: list[float],
        size_divisible: int = 32,
        fixed_size: Optional[tuple[int, int]] = None,
        **kwargs: Any,
    ):
        super().__init__()
        if not isinstance(min_size, (list, tuple)):
            min_size = (min_size,)
        self.min_size = min_size
        self.max_size = max_size
        self.image_mean = image_mean
        self.image_std = image_std
        self.size_divisible = size_divisible
        self.fixed_size = fixed_size
        self._skip_resize = kwargs.pop("_skip_resize", False)

    def forward(
        self, images: list[Any], targets: Optional[list[dict[str, Any]]] = None
    ) -> tuple[ImageList, Optional[list[dict[str, Any]]]]:
        images = [img for img in images]
        if targets is not None:
            targets_copy: list[dict[str, Any]] = []
            for t in targets:
                data: dict[str, Any] = {}
                for k, v in t.items():
                    data[k] = v
                targets_copy.append(data)
            targets = targets_copy
        for i in range(len(images)):
            image = images[i]
            target_index = targets[i] if targets is not None else None
            if image.dim() != 3:
                raise ValueError(f"images is expected to be a list of 3d tensors of shape [C, H, W], got {image.shape}")
            image = self.normalize(image)
            image, target_index = self.resize(image, target_index)
            images[i] = image
            if targets is not None and target_index is not None:
                targets[i] = target_index
        image_sizes = [img.shape[-2:] for img in images]
        images = self.batch_images(images, size_divisible=self.size_divisible)
        image_sizes_list: list[tuple[int, int]] = []
        for image_size in image_sizes:
            _assert(
                len(image_size) == 2,
                f"Input tensors expected to have in the last two elements H and W, instead got {image_size}",
            )
            image_sizes_list.append((image_size[0], image_size[1]))
        image_list = ImageList(images, image_sizes_list)
        return (image_list, targets)

    def normalize(self, image: Any) -> Any:
        if not image.is_floating_point():
            raise TypeError(
                f"Expected input images to be of floating type (in range [0, 1]), but found type {image.dtype} instead"
            )
        dtype, device = (image.dtype, image.device)
        mean = gg.as_tensor(self.image_mean, dtype=dtype, device=device)
        std = gg.as_tensor(self.image_std, dtype=dtype, device=device)
        return (image - mean[:, None, None]) / std[:, None, None]

    def torch_choice(self, k: list[int]) -> int:
        index = int(gg.empty(1).uniform_(0.0, float(len(k))).item())
        return k[index]

    def resize(
        self, image: Any, target: Optional[dict[str, Any]] = None
    ) -> tuple[Any, Optional[dict[str, Any]]]:
        h, w = image.shape[-2:]
        if self.training:
            if self._skip_resize:
                return (image, target)
            size = self.torch_choice(self.min_size)
        else:
            size = self.min_size[-1]
        image, target = _resize_image_and_masks(image, size, self.max_size, target, self.fixed_size)
        if target is None:
            return (image, target)
        bbox = target["boxes"]
        bbox = resize_boxes(bbox, (h, w), image.shape[-2:])
        target["boxes"] = bbox
        if "keypoints" in target:
            keypoints = target["keypoints"]
            keypoints = resize_keypoints(keypoints, (h, w), image.shape[-2:])
            target["keypoints"] = keypoints
        return (image, target)

    def max_by_axis(self, the_list: list[list[int]]) -> list[int]:
        maxes = the_list[0]
        for sublist in the_list[1:]:
            for index, item in enumerate(sublist):
                maxes[index] = max(maxes[index], item)
        return maxes

    def batch_images(self, images: list[Any], size_divisible: int = 32) -> Any:
        max_size = self.max_by_axis([list(img.shape) for img in images])
        stride = float(size_divisible)
        max_size = list(max_size)
        max_size[1] = int(math.ceil(float(max_size[1]) / stride) * stride)
        max_size[2] = int(math.ceil(float(max_size[2]) / stride) * stride)
        batch_shape = [len(images)] + max_size
        batched_imgs = images[0].new_full(batch_shape, 0)
        for i in range(batched_imgs.shape[0]):
            img = images[i]
            batched_imgs[i, : img.shape[0], : img.shape[1], : img.shape[2]].copy_(img)
        return batched_imgs

    def postprocess(
        self,
        result: list[dict[str, Any]],
        image_shapes: list[tuple[int, int]],
        original_image_sizes: list[tuple[int, int]],
    ) -> list[dict[str, Any]]:
        if self.training:
            return result
        for i, (pred, im_s, o_im_s) in enumerate(zip(result, image_shapes, original_image_sizes)):
            boxes = pred["boxes"]
            boxes = resize_boxes(boxes, im_s, o_im_s)
            result[i]["boxes"] = boxes
            if "masks" in pred:
                masks = pred["masks"]
                masks = paste_masks_in_image(masks, boxes, o_im_s)
                result[i]["masks"] = masks
            if "keypoints" in pred:
                keypoints = pred["keypoints"]
                keypoints = resize_keypoints(keypoints, im_s, o_im_s)
                result[i]["keypoints"] = keypoints
        return result

    def __repr__(self) -> str:
        format_string = f"{self.__class__.__name__}("
        _indent = "\n    "
        format_string += f"{_indent}Normalize(mean={self.image_mean}, std={self.image_std})"
        format_string += f"{_indent}Resize(min_size={self.min_size}, max_size={self.max_size}, mode='bilinear')"
        format_string += "\n)"
        return format_string


def resize_keypoints(keypoints: Any, original_size: list[int], new_size: list[int]) -> Any:
    ratios = [
        gg.tensor(s, dtype=gg.float32, device=keypoints.device)
        / gg.tensor(s_orig, dtype=gg.float32, device=keypoints.device)
        for s, s_orig in zip(new_size, original_size)
    ]
    ratio_h, ratio_w = ratios
    resized_data = keypoints.clone()
    resized_data[..., 0] *= ratio_w
    resized_data[..., 1] *= ratio_h
    return resized_data


def resize_boxes(boxes: Any, original_size: list[int], new_size: list[int]) -> Any:
    ratios = [
        gg.tensor(s, dtype=gg.float32, device=boxes.device) / gg.tensor(s_orig, dtype=gg.float32, device=boxes.device)
        for s, s_orig in zip(new_size, original_size)
    ]
    ratio_height, ratio_width = ratios
    xmin, ymin, xmax, ymax = boxes.unbind(1)
    xmin = xmin * ratio_width
    xmax = xmax * ratio_width
    ymin = ymin * ratio_height
    ymax = ymax * ratio_height
    return gg.stack((xmin, ymin, xmax, ymax), dim=1)
