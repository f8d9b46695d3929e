"""A detection sample through v2 transforms: the boxes and the mask follow the image."""
import numpy as np

import glassgrad as torch
from glassgrad.vision import tv_tensors
from glassgrad.vision.transforms import v2

# --8<-- [start:sample]
image = tv_tensors.Image(np.zeros((3, 40, 60), np.uint8))
target = {
    "boxes": tv_tensors.BoundingBoxes([[4, 6, 20, 24], [30, 2, 58, 38]], format="XYXY", canvas_size=(40, 60)),
    "masks": tv_tensors.Mask(np.zeros((2, 40, 60), np.uint8)),
    "labels": torch.tensor([1, 2]),
}
transform = v2.Compose([
    v2.RandomHorizontalFlip(p=1.0),
    v2.Resize((80, 120)),
    v2.CenterCrop(64),
    v2.ToDtype(torch.float32, scale=True),
    v2.SanitizeBoundingBoxes(),  # drops boxes cropped away, with their labels and masks
])
image, target = transform(image, target)
print(image.shape, target["masks"].shape, target["labels"].tolist())
print(target["boxes"])
# --8<-- [end:sample]
