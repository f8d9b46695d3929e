"""glassgrad.vision.datasets.VOCSegmentation / VOCDetection (torchvision's) on a VOC tree written
here: split files, images, palette masks, and the annotation XML as torchvision's nested dicts."""
import numpy as np
import pytest

from glassgrad.vision import datasets, transforms

Image = pytest.importorskip("PIL.Image")

XML = """<annotation>
  <folder>VOC2012</folder>
  <filename>{name}.jpg</filename>
  <size><width>6</width><height>4</height><depth>3</depth></size>
  <segmented>1</segmented>
  {objects}
</annotation>"""
OBJECT = """<object><name>{cls}</name><difficult>0</difficult>
    <bndbox><xmin>{x}</xmin><ymin>1</ymin><xmax>5</xmax><ymax>3</ymax></bndbox></object>"""


@pytest.fixture
def voc_root(tmp_path):
    base = tmp_path / "VOCdevkit" / "VOC2012"
    for sub in ("JPEGImages", "SegmentationClass", "Annotations", "ImageSets/Segmentation", "ImageSets/Main"):
        (base / sub).mkdir(parents=True)
    rng = np.random.default_rng(0)
    objects = {"2008_000001": [("dog", 1)], "2008_000002": [("cat", 0), ("person", 2)]}
    for name, objs in objects.items():
        Image.fromarray(rng.integers(0, 256, (4, 6, 3), dtype=np.uint8)).save(base / "JPEGImages" / f"{name}.jpg")
        mask = Image.fromarray(rng.integers(0, 21, (4, 6), dtype=np.uint8), "P")
        mask.putpalette([v for i in range(256) for v in (i, 255 - i, i // 2)])
        mask.save(base / "SegmentationClass" / f"{name}.png")
        body = "\n  ".join(OBJECT.format(cls=c, x=x) for c, x in objs)
        (base / "Annotations" / f"{name}.xml").write_text(XML.format(name=name, objects=body))
    for split in ("Segmentation", "Main"):
        (base / "ImageSets" / split / "train.txt").write_text("2008_000002\n2008_000001\n")
        (base / "ImageSets" / split / "val.txt").write_text("2008_000001\n")
    return str(tmp_path)


def test_voc_segmentation_samples(voc_root):
    ds = datasets.VOCSegmentation(voc_root)
    assert len(ds) == 2 and ds.year == "2012" and ds.image_set == "train"
    assert [p.rsplit("/", 1)[1] for p in ds.images] == ["2008_000002.jpg", "2008_000001.jpg"]
    img, mask = ds[1]
    assert img.mode == "RGB" and img.size == (6, 4) and mask.mode == "P" and mask.size == (6, 4)
    np.testing.assert_array_equal(np.asarray(mask), np.asarray(Image.open(ds.masks[1])))
    assert len(datasets.VOCSegmentation(voc_root, image_set="val")) == 1
    joint = datasets.VOCSegmentation(voc_root, transforms=lambda i, m: (transforms.functional.pil_to_tensor(i),
                                                                         np.asarray(m)))
    t, m = joint[0]
    assert tuple(t.shape) == (3, 4, 6) and m.shape == (4, 6)
    with pytest.raises(ValueError, match="image_set"):
        datasets.VOCSegmentation(voc_root, image_set="test")
    with pytest.raises(RuntimeError, match="Dataset not found"):
        datasets.VOCSegmentation(voc_root, year="2011")


def test_voc_detection_targets_are_nested_dicts(voc_root):
    ds = datasets.VOCDetection(voc_root)
    img, target = ds[0]
    a = target["annotation"]
    assert img.size == (6, 4) and a["filename"] == "2008_000002.jpg" and a["size"] == {"width": "6", "height": "4",
                                                                                          "depth": "3"}
    assert [o["name"] for o in a["object"]] == ["cat", "person"]
    assert a["object"][1]["bndbox"] == {"xmin": "2", "ymin": "1", "xmax": "5", "ymax": "3"}
    one = ds[1][1]["annotation"]["object"]
    assert isinstance(one, list) and len(one) == 1 and one[0]["name"] == "dog"  # a list even for one object
    assert ds.annotations[1].endswith("2008_000001.xml")


def test_voc_matches_torchvision(voc_root):
    pytest.importorskip("torch")
    tvd = pytest.importorskip("torchvision.datasets")
    for ours, theirs in [(datasets.VOCSegmentation(voc_root), tvd.VOCSegmentation(voc_root)),
                         (datasets.VOCDetection(voc_root, image_set="val"), tvd.VOCDetection(voc_root, image_set="val")),
                         (datasets.VOCDetection(voc_root), tvd.VOCDetection(voc_root))]:
        assert len(ours) == len(theirs)
        for i in range(len(ours)):
            (a, t), (b, u) = ours[i], theirs[i]
            assert np.array_equal(np.asarray(a), np.asarray(b))
            if isinstance(t, dict):
                assert t == u
            else:
                assert t.mode == u.mode and np.array_equal(np.asarray(t), np.asarray(u))
