"""tv_tensors (Image, Video, Mask, BoundingBoxes) and the v2 transforms moving masks and boxes with
the image (docs/data-loading.md, "Boxes and masks"). The expected boxes below follow torchvision's
documented kernels (flip about the canvas, scale by new/old size, translate and clamp for crop and
pad, the bounds of the moved corners for rotate and affine); where torchvision is installed the
same calls are compared with it."""
import copy
import pickle

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.vision import tv_tensors as tv
from glassgrad.vision.transforms import v2
from glassgrad.vision.transforms.v2 import functional as F

FORMATS = ["XYXY", "XYWH", "CXCYWH"]


def boxes_xyxy():
    return np.array([[2, 3, 10, 12], [25, 1, 29, 19], [0, 0, 30, 20], [14, 7, 15, 8]], np.float32)


def as_format(a, fmt):
    from glassgrad.vision.transforms.v2 import _boxes as B
    return B.convert(a, tv.BoundingBoxFormat.XYXY, tv.BoundingBoxFormat[fmt])


# ---- the types --------------------------------------------------------------------------------

def test_constructors_shapes_and_errors():
    assert tv.Image(np.zeros((4, 5), np.uint8)).shape == (1, 4, 5)
    assert tv.BoundingBoxes([1, 2, 3, 4], format="xyxy", canvas_size=(5, 6)).shape == (1, 4)
    assert tv.Mask(np.zeros((2, 3, 3), bool)).dtype == gg.bool_
    with pytest.raises(ValueError, match="at least 2 dims"):
        tv.Image(np.zeros(3))
    with pytest.raises(ValueError, match="at least 4 dims"):
        tv.Video(np.zeros((3, 4, 5)))
    with pytest.raises(ValueError, match=r"\[N, 4\]"):
        tv.BoundingBoxes(np.zeros((2, 3)), format="XYXY", canvas_size=(4, 4))
    with pytest.raises(ValueError, match="not a box format"):
        tv.BoundingBoxes([1, 2, 3, 4], format="XYZ", canvas_size=(4, 4))
    with pytest.raises(ValueError, match="clamping_mode"):
        tv.BoundingBoxes([1, 2, 3, 4], format="XYXY", canvas_size=(4, 4), clamping_mode="firm")


def test_operations_give_plain_tensors_and_clone_keeps_the_type():
    b = tv.BoundingBoxes([[1, 2, 3, 4]], format="XYWH", canvas_size=(10, 12))
    assert type(b + 1) is gg.Tensor
    assert type(b[0]) is gg.Tensor
    for kept in (b.clone(), b.to(gg.float32), b.detach()):
        assert type(kept) is tv.BoundingBoxes
        assert kept.format is tv.BoundingBoxFormat.XYWH and kept.canvas_size == (10, 12)
    w = tv.wrap(b * 2, like=b, canvas_size=(20, 24))
    assert type(w) is tv.BoundingBoxes and w.canvas_size == (20, 24) and w.tolist() == [[2, 4, 6, 8]]
    assert type(tv.wrap(gg.zeros(2, 3), like=tv.Mask(np.zeros((2, 3))))) is tv.Mask


def test_pickle_and_deepcopy_keep_type_and_metadata():
    b = tv.BoundingBoxes([[1.5, 2, 3, 4]], format="CXCYWH", canvas_size=(7, 9), clamping_mode=None)
    for c in (pickle.loads(pickle.dumps(b)), copy.deepcopy(b)):
        assert type(c) is tv.BoundingBoxes
        assert (c.format, c.canvas_size, c.clamping_mode) == (b.format, (7, 9), None)
        assert c.tolist() == [[1.5, 2.0, 3.0, 4.0]]


def test_repr_as_torchvision():
    b = tv.BoundingBoxes([[1, 2, 3, 4]], format="XYXY", canvas_size=(5, 5))
    assert repr(b) == "BoundingBoxes([[1, 2, 3, 4]], format=BoundingBoxFormat.XYXY, canvas_size=(5, 5), clamping_mode=soft)"
    assert repr(tv.Mask(np.zeros((2, 2), np.float32))) == "Mask([[0., 0.],\n      [0., 0.]])"


# ---- box kernels with hand-derived values -----------------------------------------------------

def test_format_conversions_round_trip_and_integer_centres():
    b = tv.BoundingBoxes([[2, 3, 10, 12]], format="XYXY", canvas_size=(20, 30))
    assert F.convert_bounding_box_format(b, new_format="XYWH").tolist() == [[2, 3, 8, 9]]
    # an integer box's centre rounds down: (2 + 10) / 2 = 6, (3 + 12) / 2 = 7.5 -> 7
    c = F.convert_bounding_box_format(b, new_format="CXCYWH")
    assert c.tolist() == [[6, 7, 8, 9]] and c.format is tv.BoundingBoxFormat.CXCYWH
    # back: x1 = cx - ceil(w / 2) = 2, y1 = 7 - ceil(4.5) = 2
    assert F.convert_bounding_box_format(c, new_format="XYXY").tolist() == [[2, 2, 10, 11]]
    with pytest.raises(ValueError, match="old_format"):
        F.convert_bounding_box_format(gg.tensor([[1, 2, 3, 4]]), new_format="XYWH")


def test_flips_crop_pad_resize_by_hand():
    b = tv.BoundingBoxes([[2, 3, 10, 12]], format="XYXY", canvas_size=(20, 30))
    assert F.horizontal_flip(b).tolist() == [[20, 3, 28, 12]]
    assert F.vertical_flip(b).tolist() == [[2, 8, 10, 17]]
    c = F.crop(b, 5, 4, 10, 10)  # shift by (4, 5), clamp to 10 x 10
    assert c.tolist() == [[0, 0, 6, 7]] and c.canvas_size == (10, 10)
    p = F.pad(b, [1, 2, 3, 4])  # left 1, top 2, right 3, bottom 4
    assert p.tolist() == [[3, 5, 11, 14]] and p.canvas_size == (26, 34)
    r = F.resize(b, [10, 15])
    assert r.tolist() == [[1, 1, 5, 6]] and r.canvas_size == (10, 15)
    r = F.resize(tv.BoundingBoxes([[2.0, 3, 10, 12]], format="XYXY", canvas_size=(20, 30)), 40)  # smaller edge 40
    assert r.canvas_size == (40, 60) and r.tolist() == [[4.0, 6.0, 20.0, 24.0]]
    with pytest.raises(ValueError, match="not supported with bounding boxes"):
        F.pad(b, 2, padding_mode="reflect")
    unclamped = tv.BoundingBoxes([[2, 3, 10, 12]], format="XYXY", canvas_size=(20, 30), clamping_mode=None)
    assert F.crop(unclamped, 5, 4, 10, 10).tolist() == [[-2, -2, 6, 7]]


def test_rotate_by_90_degrees_maps_corners_exactly():
    b = tv.BoundingBoxes([[0.0, 0.0, 4.0, 2.0]], format="XYXY", canvas_size=(10, 10))
    # counter-clockwise 90 about (5, 5): (x, y) -> (y, 10 - x); corners (0,0),(4,0),(4,2),(0,2)
    out = F.rotate(b, 90.0)
    np.testing.assert_allclose(out.numpy(), [[0.0, 6.0, 2.0, 10.0]], atol=1e-5)


# ---- samples: masks and boxes follow the image -------------------------------------------------

def _sample():
    img = tv.Image(np.random.default_rng(0).integers(0, 255, (3, 40, 60), dtype=np.uint8))
    a = boxes_xyxy() * 2
    mask = np.zeros((len(a), 40, 60), np.uint8)
    for k, (x1, y1, x2, y2) in enumerate(a.astype(int)):
        mask[k, y1:y2, x1:x2] = 1
    return img, {"boxes": tv.BoundingBoxes(a, format="XYXY", canvas_size=(40, 60)), "masks": tv.Mask(mask),
                 "labels": gg.tensor([1, 2, 3, 4])}


def _mask_bounds(m):
    ys, xs = np.nonzero(m)
    return [xs.min(), ys.min(), xs.max() + 1, ys.max() + 1] if len(xs) else None


@pytest.mark.parametrize("transform", [
    v2.RandomHorizontalFlip(p=1.0), v2.RandomVerticalFlip(p=1.0), v2.Resize((80, 120)), v2.Pad([3, 5, 7, 9]),
    v2.RandomCrop(32, padding=4), v2.CenterCrop(30), v2.RandomResizedCrop(48, scale=(0.5, 1.0)),
    v2.RandomRotation((90, 90)), v2.RandomZoomOut(p=1.0)], ids=lambda t: type(t).__name__)
def test_masks_and_boxes_move_with_the_image(transform):
    gg.manual_seed(3)
    img, target = _sample()
    out_img, out = transform(img, target)
    assert type(out_img) is tv.Image and type(out["boxes"]) is tv.BoundingBoxes and type(out["masks"]) is tv.Mask
    h, w = out_img.shape[-2:]
    assert out["boxes"].canvas_size == (h, w) and out["masks"].shape[-2:] == (h, w)
    assert out["labels"].tolist() == [1, 2, 3, 4]
    for box, m in zip(out["boxes"].numpy(), out["masks"].numpy()):
        bounds = _mask_bounds(m)
        if bounds is None:  # cropped away: the clamped box is empty too
            assert box[2] - box[0] <= 1 or box[3] - box[1] <= 1
            continue
        # nearest-neighbour resampling moves a mask edge by at most one pixel (two after a scale)
        np.testing.assert_allclose(box, bounds, atol=2.01)


def test_a_transform_chain_and_sanitize_drop_boxes_with_their_labels_and_masks():
    img, target = _sample()
    chain = v2.Compose([v2.ToImage(), v2.CenterCrop(20), v2.ToDtype(gg.float32, scale=True), v2.SanitizeBoundingBoxes()])
    out_img, out = chain(img, target)
    assert out_img.dtype == gg.float32 and out["masks"].dtype == gg.uint8  # ToDtype leaves masks
    kept = out["boxes"].numpy()
    assert len(kept) == len(out["labels"]) == out["masks"].shape[0]
    assert ((kept[:, 2] - kept[:, 0]) >= 1).all() and ((kept[:, 3] - kept[:, 1]) >= 1).all()


def test_sanitize_by_hand():
    boxes = tv.BoundingBoxes([[2, 3, 10, 12], [5, 5, 5, 9], [0, 0, 1, 0.5], [31, 2, 40, 9]], format="XYXY",
                             canvas_size=(20, 30))
    out = v2.SanitizeBoundingBoxes()({"boxes": boxes, "labels": gg.tensor([7, 8, 9, 10])})
    assert out["boxes"].tolist() == [[2, 3, 10, 12]] and out["labels"].tolist() == [7]
    with pytest.raises(ValueError, match="labels"):
        v2.SanitizeBoundingBoxes()({"boxes": boxes})
    assert len(v2.SanitizeBoundingBoxes(labels_getter=None)(boxes)) == 1


def test_to_dtype_dict_and_to_pure_tensor():
    img, target = _sample()
    t = v2.ToDtype({tv.Image: gg.float32, tv.Mask: gg.int64, "others": None}, scale=True)
    out_img, out = t(img, target)
    assert out_img.dtype == gg.float32 and float(out_img.max()) <= 1.0
    assert out["masks"].dtype == gg.int64 and type(out["masks"]) is tv.Mask
    assert out["boxes"].dtype == gg.float32 and type(out["boxes"]) is tv.BoundingBoxes
    with pytest.raises(ValueError, match="No dtype was specified"):
        v2.ToDtype({tv.Image: gg.float32})(img, target)
    plain_img, plain = v2.ToPureTensor()(img, target)
    assert type(plain_img) is gg.Tensor and type(plain["boxes"]) is gg.Tensor and type(plain["masks"]) is gg.Tensor


def test_a_users_transform_gets_the_boxes():
    seen = []

    class Shift(v2.Transform):
        def transform(self, inpt, params):
            seen.append(type(inpt).__name__)
            return inpt

    img, target = _sample()
    Shift()(img, target)
    assert sorted(seen) == ["BoundingBoxes", "Image", "Mask"]


def test_boxes_alone_follow_their_canvas_and_unsupported_transforms_say_why():
    # Without an image, torchvision transforms boxes and masks by their own canvas size.
    _, target = _sample()
    a = np.asarray(target["boxes"].tolist())
    flipped = v2.RandomHorizontalFlip(p=1.0)(target)
    assert isinstance(flipped["boxes"], tv.BoundingBoxes) and isinstance(flipped["masks"], tv.Mask)
    np.testing.assert_array_equal(np.asarray(flipped["boxes"].tolist()),
                                  np.stack([60 - a[:, 2], a[:, 1], 60 - a[:, 0], a[:, 3]], 1))
    np.testing.assert_array_equal(flipped["masks"].numpy(), target["masks"].numpy()[:, :, ::-1])
    assert flipped["labels"].tolist() == [1, 2, 3, 4]
    img, target = _sample()
    with pytest.raises(gg.UnsupportedError if hasattr(gg, "UnsupportedError") else Exception, match="BoundingBoxes"):
        v2.RandomPerspective(p=1.0)(img, target)


# ---- against torchvision ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tvf():
    pytest.importorskip("torch")
    pytest.importorskip("torchvision")
    from torchvision.transforms.v2 import functional
    return functional


def _tv_boxes(a, fmt, canvas):
    import torch
    from torchvision import tv_tensors as ttv
    return ttv.BoundingBoxes(torch.from_numpy(np.array(a)), format=fmt, canvas_size=canvas)


CASES = [
    ("horizontal_flip", (), {}), ("vertical_flip", (), {}), ("crop", (5, 4, 17, 21), {}),
    ("crop", (-3, -2, 30, 40), {}), ("pad", ([1, 2, 3, 4],), {}), ("pad", (5,), {}), ("resize", ([33, 47],), {}),
    ("resize", (25,), {}), ("resize", (15,), {"max_size": 20}), ("center_crop", ([13, 17],), {}),
    ("center_crop", ([27, 37],), {}), ("resized_crop", (2, 3, 14, 18, [28, 36]), {}),
    ("rotate", (33.0,), {}), ("rotate", (-70.0,), {"expand": True}), ("rotate", (45.0,), {"center": [3, 4]}),
    ("affine", (), {"angle": 20.0, "translate": [3, -2], "scale": 1.2, "shear": [10.0, 5.0]}),
]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
@pytest.mark.parametrize("name,args,kwargs", CASES, ids=[f"{c[0]}{i}" for i, c in enumerate(CASES)])
def test_box_kernels_match_torchvision(tvf, fmt, dtype, name, args, kwargs):
    a = as_format(boxes_xyxy(), fmt).astype(dtype)
    ours = getattr(F, name)(tv.BoundingBoxes(a, format=fmt, canvas_size=(20, 30)), *args, **kwargs)
    theirs = getattr(tvf, name)(_tv_boxes(a, fmt, (20, 30)), *args, **kwargs)
    assert tuple(ours.canvas_size) == tuple(theirs.canvas_size)
    tol = 1e-4 if dtype == np.float32 else 0
    np.testing.assert_allclose(ours.numpy().astype(np.float64), theirs.numpy().astype(np.float64), atol=tol)


@pytest.mark.parametrize("old", FORMATS)
@pytest.mark.parametrize("new", FORMATS)
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_conversions_and_clamp_match_torchvision(tvf, old, new, dtype):
    a = (as_format(boxes_xyxy(), old) * np.array([1.3, 1.1, 1.7, 1.9], np.float32) - 3).astype(dtype)
    ours = F.convert_bounding_box_format(tv.BoundingBoxes(a, format=old, canvas_size=(20, 30)), new_format=new)
    theirs = tvf.convert_bounding_box_format(_tv_boxes(a, old, (20, 30)), new_format=new)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-5)
    ours = F.clamp_bounding_boxes(tv.BoundingBoxes(a, format=old, canvas_size=(20, 30)))
    theirs = tvf.clamp_bounding_boxes(_tv_boxes(a, old, (20, 30)))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-5)


def test_masks_match_torchvision_nearest(tvf):
    import torch
    from torchvision import tv_tensors as ttv
    m = np.random.default_rng(1).integers(0, 3, (2, 20, 30)).astype(np.uint8)
    for name, args in [("resize", ([37, 41],)), ("crop", (3, 4, 11, 13)), ("horizontal_flip", ()),
                       ("pad", ([1, 2, 3, 4],)), ("resized_crop", (2, 3, 14, 18, [28, 36]))]:
        ours = getattr(F, name)(tv.Mask(m), *args).numpy()
        theirs = getattr(tvf, name)(ttv.Mask(torch.from_numpy(m)), *args).numpy()
        np.testing.assert_array_equal(ours, theirs, err_msg=name)


def test_random_iou_crop():
    img = tv.Image(np.zeros((3, 100, 120), np.uint8))
    b = tv.BoundingBoxes([[10, 10, 50, 60], [70, 20, 110, 90]], format="XYXY", canvas_size=(100, 120))
    same = v2.RandomIoUCrop(sampler_options=[2.0])(img, {"boxes": b})
    assert same[1]["boxes"].tolist() == b.tolist() and same[0].shape == img.shape  # an option >= 1 leaves it
    gg.manual_seed(5)
    for _ in range(10):
        out_img, out = v2.RandomIoUCrop(sampler_options=[0.0, 0.3])(img, {"boxes": b, "labels": gg.tensor([1, 2])})
        h, w = out_img.shape[-2:]
        assert out["boxes"].canvas_size == (h, w) and (h, w) != (100, 120)
        a = out["boxes"].numpy()
        assert (a[:, 0::2] <= w).all() and (a[:, 1::2] <= h).all() and (a >= 0).all()
        assert (a.sum(axis=1) > 0).any()  # some box's centre is inside the crop
    with pytest.raises(TypeError, match="bounding boxes"):
        v2.RandomIoUCrop()(img)
