"""datasets.wrap_dataset_for_transforms_v2 (torchvision's) for CocoDetection, VOCDetection and
VOCSegmentation: tv_tensors targets (XYXY boxes from COCO's XYWH, labels, masks), the data set's
transforms applied after wrapping, and v2 transforms moving the boxes with the image."""
import json

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.vision import datasets, tv_tensors
from glassgrad.vision.transforms import v2

from test_vision_voc import voc_root  # noqa: F401  (the VOC tree fixture)

Image = pytest.importorskip("PIL.Image")

COCO = {
    "images": [{"id": 5, "file_name": "a.png", "height": 8, "width": 10},
               {"id": 2, "file_name": "b.png", "height": 8, "width": 10}],
    "annotations": [
        {"id": 1, "image_id": 5, "category_id": 3, "bbox": [1.0, 2.0, 4.0, 3.0], "area": 12.0, "iscrowd": 0,
         "segmentation": [[1, 2, 5, 2, 5, 5, 1, 5]]},
        {"id": 2, "image_id": 5, "category_id": 7, "bbox": [0.0, 0.0, 2.0, 2.0], "area": 4.0, "iscrowd": 0,
         "segmentation": [[0, 0, 2, 0, 2, 2, 0, 2]]},
    ],
    "categories": [{"id": 3, "name": "x", "supercategory": "s"}, {"id": 7, "name": "y", "supercategory": "s"}],
}


@pytest.fixture
def coco(tmp_path):
    for img in COCO["images"]:
        Image.fromarray(np.full((img["height"], img["width"], 3), img["id"], np.uint8)).save(tmp_path / img["file_name"])
    (tmp_path / "ann.json").write_text(json.dumps(COCO))
    return str(tmp_path), str(tmp_path / "ann.json")


def test_coco_targets_become_tv_tensors(coco):
    root, ann = coco
    ds = datasets.wrap_dataset_for_transforms_v2(datasets.CocoDetection(root, ann))
    assert len(ds) == 2 and ds.ids == [2, 5]
    image, target = ds[0]  # image 2 has no annotations
    assert target == {"image_id": 2}
    image, target = ds[1]
    assert sorted(target) == ["boxes", "image_id", "labels"] and target["image_id"] == 5
    boxes = target["boxes"]
    assert isinstance(boxes, tv_tensors.BoundingBoxes) and tuple(boxes.canvas_size) == (8, 10)
    assert "XYXY" in str(boxes.format) and boxes.tolist() == [[1.0, 2.0, 5.0, 5.0], [0.0, 0.0, 2.0, 2.0]]
    assert target["labels"].tolist() == [3, 7] and target["labels"].dtype == gg.int64
    extra = datasets.wrap_dataset_for_transforms_v2(datasets.CocoDetection(root, ann), target_keys=["area", "boxes"])
    assert sorted(extra[1][1]) == ["area", "boxes"] and extra[1][1]["area"] == [12.0, 4.0]
    with pytest.raises(ValueError, match="not known"):
        datasets.wrap_dataset_for_transforms_v2(datasets.CocoDetection(root, ann), target_keys=["colour"])
    with pytest.raises(TypeError, match="not supported"):
        datasets.wrap_dataset_for_transforms_v2(datasets.FakeData(size=2))


def test_wrapped_transforms_run_after_wrapping_and_move_boxes(coco):
    root, ann = coco
    flip = v2.Compose([v2.ToImage(), v2.RandomHorizontalFlip(1.0)])
    ds = datasets.wrap_dataset_for_transforms_v2(datasets.CocoDetection(root, ann, transforms=flip))
    image, target = ds[1]
    assert isinstance(image, tv_tensors.Image) and tuple(image.shape) == (3, 8, 10)
    assert target["boxes"].tolist() == [[5.0, 2.0, 9.0, 5.0], [8.0, 0.0, 10.0, 2.0]]  # x -> 10 - x
    assert target["labels"].tolist() == [3, 7]


def test_voc_targets_become_tv_tensors(voc_root):  # noqa: F811
    det = datasets.wrap_dataset_for_transforms_v2(datasets.VOCDetection(voc_root))
    image, target = det[0]
    assert sorted(target) == ["boxes", "labels"] and tuple(target["boxes"].canvas_size) == (4, 6)
    assert target["boxes"].tolist() == [[0, 1, 5, 3], [2, 1, 5, 3]] and target["labels"].tolist() == [8, 15]  # cat, person
    seg = datasets.wrap_dataset_for_transforms_v2(datasets.VOCSegmentation(voc_root))
    image, mask = seg[1]
    assert isinstance(mask, tv_tensors.Mask) and tuple(mask.shape) == (1, 4, 6)  # as pil_to_tensor gives it
    np.testing.assert_array_equal(mask.numpy()[0], np.asarray(Image.open(seg.masks[1])))


def test_wrapping_matches_torchvision(coco, voc_root):  # noqa: F811
    pytest.importorskip("pycocotools")
    torch = pytest.importorskip("torch")
    tvd = pytest.importorskip("torchvision.datasets")
    root, ann = coco
    pairs = [(datasets.wrap_dataset_for_transforms_v2(datasets.CocoDetection(root, ann), target_keys="all"),
              tvd.wrap_dataset_for_transforms_v2(tvd.CocoDetection(root, ann), target_keys="all")),
             (datasets.wrap_dataset_for_transforms_v2(datasets.VOCDetection(voc_root)),
              tvd.wrap_dataset_for_transforms_v2(tvd.VOCDetection(voc_root))),
             (datasets.wrap_dataset_for_transforms_v2(datasets.VOCSegmentation(voc_root)),
              tvd.wrap_dataset_for_transforms_v2(tvd.VOCSegmentation(voc_root)))]
    for ours, theirs in pairs:
        for i in range(len(ours)):
            (a, t), (b, u) = ours[i], theirs[i]
            assert np.array_equal(np.asarray(a), np.asarray(b))
            if not isinstance(t, dict):
                assert np.array_equal(t.numpy(), u.numpy())
                continue
            assert sorted(t) == sorted(u)
            for k in t:
                if isinstance(u[k], torch.Tensor):
                    assert type(t[k]).__name__ == type(u[k]).__name__, k
                    assert np.array_equal(t[k].numpy(), u[k].numpy()), k
                    assert str(t[k].dtype).split(".")[-1] == str(u[k].dtype).split(".")[-1], k
                else:
                    assert t[k] == u[k], k


def test_coco_masks_need_pycocotools(coco, monkeypatch):
    import sys
    root, ann = coco
    monkeypatch.setitem(sys.modules, "pycocotools", None)  # as where it is not installed
    ds = datasets.wrap_dataset_for_transforms_v2(datasets.CocoDetection(root, ann), target_keys=["boxes", "masks"])
    with pytest.raises(ImportError, match="pip install pycocotools"):
        ds[1]
    plain = datasets.wrap_dataset_for_transforms_v2(datasets.CocoDetection(root, ann))
    assert plain[1][1]["labels"].tolist() == [3, 7]  # the built-in index serves the rest


def test_wrapped_datasets_pickle_for_spawned_workers(coco, voc_root):  # noqa: F811
    import pickle
    root, ann = coco
    for ds in (datasets.wrap_dataset_for_transforms_v2(datasets.CocoDetection(root, ann)),
               datasets.wrap_dataset_for_transforms_v2(datasets.VOCDetection(voc_root)),
               datasets.wrap_dataset_for_transforms_v2(datasets.VOCSegmentation(voc_root))):
        again = pickle.loads(pickle.dumps(ds))
        assert len(again) == len(ds)
        a, b = again[1][1], ds[1][1]
        if isinstance(b, dict):
            assert sorted(a) == sorted(b) and a["boxes"].tolist() == b["boxes"].tolist()
        else:
            assert np.array_equal(a.numpy(), b.numpy())
