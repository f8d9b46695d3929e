"""The torchvision object detection finetuning tutorial (PennFudan pedestrians), its code with the
imports changed to glassgrad's, on a tiny synthetic data set the test writes in the tutorial's
layout (PNGImages/*.png, PedMasks/*_mask.png with one integer per instance). Substitutions,
each documented here: weights="DEFAULT" -> weights=None (nothing is downloaded), min_size /
max_size and the proposal counts shrunk to 64-pixel images, two iterations of SGD instead of
the tutorial's epochs, and references/detection's train_one_epoch written out as its loop."""
import os

import numpy as np
from PIL import Image

TUTORIAL = '''
import os
import glassgrad as torch
from glassgrad.vision.io import read_image
from glassgrad.vision.ops.boxes import masks_to_boxes
from glassgrad.vision import tv_tensors
from glassgrad.vision.transforms.v2 import functional as F
from glassgrad.vision.transforms import v2 as T
import glassgrad.vision as torchvision
from glassgrad.vision.models.detection.faster_rcnn import FastRCNNPredictor
from glassgrad.vision.models.detection.mask_rcnn import MaskRCNNPredictor


class PennFudanDataset(torch.utils.data.Dataset):
    def __init__(self, root, transforms):
        self.root = root
        self.transforms = transforms
        self.imgs = list(sorted(os.listdir(os.path.join(root, "PNGImages"))))
        self.masks = list(sorted(os.listdir(os.path.join(root, "PedMasks"))))

    def __getitem__(self, idx):
        img_path = os.path.join(self.root, "PNGImages", self.imgs[idx])
        mask_path = os.path.join(self.root, "PedMasks", self.masks[idx])
        img = read_image(img_path)
        mask = read_image(mask_path)
        obj_ids = torch.unique(mask)
        obj_ids = obj_ids[1:]
        num_objs = len(obj_ids)
        masks = (mask == obj_ids[:, None, None]).to(dtype=torch.uint8)
        boxes = masks_to_boxes(masks)
        labels = torch.ones((num_objs,), dtype=torch.int64)
        image_id = idx
        area = (boxes[:, 3] - boxes[:, 1]) * (boxes[:, 2] - boxes[:, 0])
        iscrowd = torch.zeros((num_objs,), dtype=torch.int64)
        img = tv_tensors.Image(img)
        target = {}
        target["boxes"] = tv_tensors.BoundingBoxes(boxes, format="XYXY", canvas_size=F.get_size(img))
        target["masks"] = tv_tensors.Mask(masks)
        target["labels"] = labels
        target["image_id"] = image_id
        target["area"] = area
        target["iscrowd"] = iscrowd
        if self.transforms is not None:
            img, target = self.transforms(img, target)
        return img, target

    def __len__(self):
        return len(self.imgs)


def get_model_instance_segmentation(num_classes):
    model = torchvision.models.detection.maskrcnn_resnet50_fpn(weights=None, min_size=64, max_size=96,
                                                               rpn_pre_nms_top_n_train=100,
                                                               rpn_post_nms_top_n_train=50,
                                                               box_batch_size_per_image=32)
    in_features = model.roi_heads.box_predictor.cls_score.in_features
    model.roi_heads.box_predictor = FastRCNNPredictor(in_features, num_classes)
    in_features_mask = model.roi_heads.mask_predictor.conv5_mask.in_channels
    hidden_layer = 256
    model.roi_heads.mask_predictor = MaskRCNNPredictor(in_features_mask, hidden_layer, num_classes)
    return model


def get_transform(train):
    transforms = []
    if train:
        transforms.append(T.RandomHorizontalFlip(0.5))
    transforms.append(T.ToDtype(torch.float, scale=True))
    transforms.append(T.ToPureTensor())
    return T.Compose(transforms)


def collate_fn(batch):
    return tuple(zip(*batch))


def run(root):
    torch.manual_seed(0)
    device = torch.device("cpu")
    num_classes = 2
    dataset = PennFudanDataset(root, get_transform(train=True))
    dataset_test = PennFudanDataset(root, get_transform(train=False))
    data_loader = torch.utils.data.DataLoader(dataset, batch_size=2, shuffle=True, collate_fn=collate_fn)
    model = get_model_instance_segmentation(num_classes)
    model.to(device)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params, lr=0.005, momentum=0.9, weight_decay=0.0005)
    lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.1)
    model.train()
    history = []
    for images, targets in data_loader:
        images = list(image.to(device) for image in images)
        targets = [{k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in t.items()} for t in targets]
        loss_dict = model(images, targets)
        losses = sum(loss for loss in loss_dict.values())
        optimizer.zero_grad()
        losses.backward()
        optimizer.step()
        history.append((sorted(loss_dict), losses.item()))
    lr_scheduler.step()
    image, _ = dataset_test[0]
    model.eval()
    with torch.no_grad():
        x = image[:3, ...].to(device)
        predictions = model([x, ])
        pred = predictions[0]
    return history, pred, image
'''


def _write_pennfudan(root, n=4, h=60, w=72):
    """n images with two pedestrians each: rectangles of noise, masks numbered 1 and 2."""
    os.makedirs(os.path.join(root, "PNGImages"))
    os.makedirs(os.path.join(root, "PedMasks"))
    rng = np.random.default_rng(0)
    for i in range(n):
        image = rng.integers(0, 60, (h, w, 3), dtype=np.uint8)
        mask = np.zeros((h, w), np.uint8)
        for k, (x1, y1, x2, y2) in enumerate([(5 + i, 8, 25 + i, 50), (40, 10 + i, 62, 55)], start=1):
            mask[y1:y2, x1:x2] = k
            image[y1:y2, x1:x2] = rng.integers(150, 255, (y2 - y1, x2 - x1, 3), dtype=np.uint8)
        Image.fromarray(image).save(os.path.join(root, "PNGImages", f"FudanPed{i:05d}.png"))
        Image.fromarray(mask).save(os.path.join(root, "PedMasks", f"FudanPed{i:05d}_mask.png"))


def test_pennfudan_finetuning_tutorial(tmp_path):
    _write_pennfudan(str(tmp_path))
    scope = {}
    exec(compile(TUTORIAL, "torchvision_tutorial.py", "exec"), scope)
    history, pred, image = scope["run"](str(tmp_path))
    assert len(history) == 2
    for keys, total in history:
        assert keys == ["loss_box_reg", "loss_classifier", "loss_mask", "loss_objectness", "loss_rpn_box_reg"]
        assert np.isfinite(total)
    assert tuple(image.shape) == (3, 60, 72) and image.dtype.is_floating_point
    assert sorted(pred) == ["boxes", "labels", "masks", "scores"]
    assert tuple(pred["masks"].shape[1:]) == (1, 60, 72) and set(pred["labels"].tolist()) <= {1}
