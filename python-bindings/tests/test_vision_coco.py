"""glassgrad.vision.datasets.CocoDetection / CocoCaptions (torchvision's) on a COCO annotation file
written here: samples, order, targets, transforms, and the `.coco` index's queries (pycocotools'
answers; its COCO object is used when installed, the built-in CocoIndex otherwise)."""
import json

import numpy as np
import pytest

from glassgrad.vision import datasets, transforms
from glassgrad.vision.datasets._coco_index import CocoIndex

Image = pytest.importorskip("PIL.Image")

ANNOTATIONS = {
    "images": [{"id": 7, "file_name": "b.png", "height": 4, "width": 5},
               {"id": 3, "file_name": "a.png", "height": 6, "width": 2},
               {"id": 9, "file_name": "c.png", "height": 3, "width": 3}],
    "annotations": [
        {"id": 11, "image_id": 7, "category_id": 1, "bbox": [0, 0, 2, 2], "area": 4.0, "iscrowd": 0, "caption": "b one"},
        {"id": 12, "image_id": 3, "category_id": 2, "bbox": [1, 1, 1, 3], "area": 3.0, "iscrowd": 1, "caption": "a one"},
        {"id": 13, "image_id": 7, "category_id": 2, "bbox": [1, 0, 3, 3], "area": 9.0, "iscrowd": 0, "caption": "b two"},
    ],
    "categories": [{"id": 1, "name": "cat", "supercategory": "animal"},
                   {"id": 2, "name": "car", "supercategory": "vehicle"}],
}


@pytest.fixture
def coco_files(tmp_path):
    rng = np.random.default_rng(0)
    for img in ANNOTATIONS["images"]:
        Image.fromarray(rng.integers(0, 256, (img["height"], img["width"], 3), dtype=np.uint8)).save(
            tmp_path / img["file_name"])
    path = tmp_path / "instances.json"
    path.write_text(json.dumps(ANNOTATIONS))
    return str(tmp_path), str(path)


@pytest.mark.parametrize("builtin_index", [True, False])
def test_coco_detection_samples_in_image_id_order(coco_files, monkeypatch, builtin_index):
    root, ann = coco_files
    if builtin_index:  # as without pycocotools
        monkeypatch.setattr("glassgrad.vision.datasets.coco.coco_index", CocoIndex)
    ds = datasets.CocoDetection(root, ann)
    assert len(ds) == 3 and ds.ids == [3, 7, 9]
    image, target = ds[1]  # image id 7: b.png, its two annotations in file order
    assert image.mode == "RGB" and image.size == (5, 4)
    np.testing.assert_array_equal(np.asarray(image), np.asarray(Image.open(f"{root}/b.png").convert("RGB")))
    assert [t["id"] for t in target] == [11, 13] and target[1]["bbox"] == [1, 0, 3, 3]
    assert ds[2][1] == []  # an image without annotations
    with pytest.raises(ValueError, match="Index must be of type integer"):
        ds[np.arange(1)]
    captions = datasets.CocoCaptions(root, ann, transform=transforms.PILToTensor(), target_transform=len)
    image, n = captions[1]
    assert tuple(image.shape) == (3, 4, 5) and n == 2
    assert datasets.CocoCaptions(root, ann)[0][1] == ["a one"]
    both = datasets.CocoDetection(root, ann, transforms=lambda img, t: (img.size, [a["category_id"] for a in t]))
    assert both[1] == ((5, 4), [1, 2])


def test_coco_index_queries(coco_files):
    _, ann = coco_files
    c = CocoIndex(ann)
    assert sorted(c.imgs) == [3, 7, 9] and sorted(c.anns) == [11, 12, 13] and c.cats[2]["name"] == "car"
    assert c.getAnnIds() == [11, 12, 13] and c.getAnnIds(7) == [11, 13] and c.getAnnIds([3, 9]) == [12]
    assert c.getAnnIds(catIds=[2]) == [12, 13] and c.getAnnIds(areaRng=[3.5, 10]) == [11, 13]
    assert c.getAnnIds(iscrowd=0) == [11, 13] and c.getAnnIds(imgIds=[7], catIds=2) == [13]
    assert c.getCatIds() == [1, 2] and c.getCatIds(catNms=["car"]) == [2] and c.getCatIds(supNms="animal") == [1]
    assert sorted(c.getImgIds()) == [3, 7, 9] and sorted(c.getImgIds(catIds=[2])) == [3, 7]
    assert c.getImgIds(imgIds=[7], catIds=[1]) == [7] and c.getImgIds(imgIds=[3], catIds=[1]) == []
    assert [a["id"] for a in c.loadAnns([13, 11])] == [13, 11] and c.loadCats(1)[0]["name"] == "cat"
    assert c.loadImgs(np.int64(9))[0]["file_name"] == "c.png"
    assert c.getAnnIds(imgIds=np.array([7])) == [11, 13] and c.getAnnIds(imgIds=np.array([], np.int64)) == [11, 12, 13]
    assert [a["id"] for a in c.imgToAnns[7]] == [11, 13] and sorted(c.catToImgs[2]) == [3, 7]


def test_coco_index_answers_as_pycocotools(coco_files):
    coco = pytest.importorskip("pycocotools.coco")
    _, ann = coco_files
    ours, theirs = CocoIndex(ann), coco.COCO(ann)
    for kw in [{}, {"imgIds": 7}, {"imgIds": [3, 9]}, {"catIds": [2]}, {"areaRng": [3.5, 10]}, {"iscrowd": 0},
               {"imgIds": [7], "catIds": 2}]:
        assert ours.getAnnIds(**kw) == theirs.getAnnIds(**kw), kw
    for kw in [{}, {"catNms": ["car"]}, {"supNms": "animal"}, {"catIds": [2, 5]}]:
        assert ours.getCatIds(**kw) == theirs.getCatIds(**kw), kw
    for kw in [{}, {"catIds": [2]}, {"imgIds": [7], "catIds": [1]}, {"imgIds": [3], "catIds": [1]}]:
        assert sorted(ours.getImgIds(**kw)) == sorted(theirs.getImgIds(**kw)), kw
    assert ours.loadAnns([13, 11]) == theirs.loadAnns([13, 11]) and ours.loadImgs(3) == theirs.loadImgs(3)
    assert dict(ours.imgToAnns) == dict(theirs.imgToAnns)


def test_coco_detection_matches_torchvision(coco_files):
    pytest.importorskip("pycocotools")
    tvd = pytest.importorskip("torchvision.datasets")
    root, ann = coco_files
    for ours, theirs in [(datasets.CocoDetection(root, ann), tvd.CocoDetection(root, ann)),
                         (datasets.CocoCaptions(root, ann), tvd.CocoCaptions(root, ann))]:
        assert len(ours) == len(theirs) and ours.ids == theirs.ids
        for i in range(len(ours)):
            (a, t), (b, u) = ours[i], theirs[i]
            assert np.array_equal(np.asarray(a), np.asarray(b)) and t == u
