"""glassgrad.vision.utils' drawing functions (draw_bounding_boxes, draw_segmentation_masks,
draw_keypoints, flow_to_image): hand-checked pixels from the rules torchvision documents, its
argument errors, and, where torchvision is installed, the same pixels as torchvision.utils."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad.vision import utils

pytest.importorskip("PIL.Image")


def _image(dtype=np.uint8, channels=3, seed=0):
    a = np.random.default_rng(seed).integers(0, 256, (channels, 20, 24)).astype(np.uint8)
    return gg.tensor(a if dtype == np.uint8 else (a / 255).astype(dtype))


def test_draw_bounding_boxes_outlines_in_the_given_colour():
    img = gg.zeros(3, 10, 12, dtype=gg.uint8)
    out = utils.draw_bounding_boxes(img, gg.tensor([[1.0, 2.0, 6.0, 8.0]]), colors="red").numpy()
    assert (out[:, 2, 1:7] == [[255], [0], [0]]).all() and (out[:, 2:9, 6] == [[255], [0], [0]]).all()
    assert out[:, 4, 3].tolist() == [0, 0, 0] and out[:, 0, 0].tolist() == [0, 0, 0]
    filled = utils.draw_bounding_boxes(img, gg.tensor([[1, 2, 6, 8]]), colors=(0, 0, 255), fill=True).numpy()
    assert filled[2, 4, 3] == round(255 * 100 / 255)  # the inside blended at alpha 100/255 over black
    gray = utils.draw_bounding_boxes(gg.zeros(1, 10, 12, dtype=gg.uint8), gg.tensor([[0, 0, 5, 5]]), labels=["a"])
    assert gray.shape == (3, 10, 12)
    with pytest.warns(UserWarning, match="No box"):
        assert utils.draw_bounding_boxes(img, gg.zeros(0, 4)) is img
    with pytest.raises(ValueError, match="xmin"):
        utils.draw_bounding_boxes(img, gg.tensor([[5.0, 0.0, 1.0, 3.0]]))
    with pytest.raises(ValueError, match="labels"):
        utils.draw_bounding_boxes(img, gg.tensor([[0, 0, 1, 1]]), labels=["a", "b"])
    with pytest.raises(ValueError, match="batches"):
        utils.draw_bounding_boxes(gg.zeros(1, 3, 4, 4, dtype=gg.uint8), gg.tensor([[0, 0, 1, 1]]))


def test_draw_segmentation_masks_blends_and_blacks_out_overlaps():
    img = gg.full((3, 4, 4), 100, dtype=gg.uint8)
    masks = gg.zeros(2, 4, 4, dtype=gg.bool)
    masks[0, 0, :2] = True
    masks[1, 0, 1:3] = True
    out = utils.draw_segmentation_masks(img, masks, alpha=0.5, colors=["red", (0, 0, 200)]).numpy()
    assert out[:, 0, 0].tolist() == [177, 50, 50]  # 100 * 0.5 + 255 * 0.5 = 177.5, truncated
    assert out[:, 0, 1].tolist() == [50, 50, 50]  # under both masks: black
    assert out[:, 0, 2].tolist() == [50, 50, 150] and out[:, 3, 3].tolist() == [100, 100, 100]
    flt = utils.draw_segmentation_masks(img.float() / 255, masks[0], alpha=1.0, colors="red")
    assert flt.dtype == gg.float32 and flt[:, 0, 0].tolist() == [1.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="bool"):
        utils.draw_segmentation_masks(img, masks.float())
    with pytest.raises(ValueError, match="RGB"):
        utils.draw_segmentation_masks(img[:1], masks)


def test_draw_keypoints_and_flow_to_image():
    img = gg.zeros(3, 12, 12, dtype=gg.uint8)
    points = gg.tensor([[[2.0, 2.0], [9.0, 2.0]]])
    out = utils.draw_keypoints(img, points, connectivity=[(0, 1)], colors="blue", radius=1, width=1).numpy()
    # discs in blue, then the joining line along y = 2 in PIL's default white
    assert out[:, 3, 2].tolist() == [0, 0, 255] and out[:, 2, 5].tolist() == [255, 255, 255]
    hidden = utils.draw_keypoints(img, points, connectivity=[(0, 1)], colors="blue", radius=1, width=1,
                                  visibility=gg.tensor([[True, False]])).numpy()
    assert hidden[:, 2, 5].tolist() == [0, 0, 0] and hidden[:, 3, 9].tolist() == [0, 0, 0]
    flow = gg.zeros(2, 3, 3)
    flow[0, 1, 1] = 1.0  # one pixel moving right: the longest flow, full saturation
    picture = utils.flow_to_image(flow)
    assert picture.dtype == gg.uint8 and picture.shape == (3, 3, 3)
    assert picture[:, 0, 0].tolist() == [255, 255, 255]  # no motion: white
    assert utils.flow_to_image(gg.zeros(4, 2, 5, 5)).shape == (4, 3, 5, 5)
    with pytest.raises(ValueError, match="float"):
        utils.flow_to_image(gg.zeros(2, 3, 3, dtype=gg.float64))


def test_drawing_matches_torchvision():
    torch = pytest.importorskip("torch")
    tvu = pytest.importorskip("torchvision.utils")
    rng = np.random.default_rng(3)
    boxes = np.array([[1, 2, 15, 12], [4, 0, 22, 19], [0, 5, 7, 9]], dtype=np.float32)
    masks = rng.uniform(size=(3, 20, 24)) > 0.6
    kps = rng.uniform(0, 20, (2, 4, 2)).astype(np.float32)
    for dtype in (np.uint8, np.float32):
        img = _image(dtype)
        timg = torch.tensor(img.numpy())
        for kwargs in (dict(), dict(labels=["a", "bb", "c"], width=2), dict(fill=True, colors="green"),
                       dict(labels=["x", "y", "z"], fill_labels=True, label_background_colors="white")):
            mine = utils.draw_bounding_boxes(img, gg.tensor(boxes), **kwargs).numpy()
            np.testing.assert_allclose(mine, tvu.draw_bounding_boxes(timg, torch.tensor(boxes), **kwargs).numpy(),
                                       rtol=0, atol=1e-6)
        for alpha, colors in ((0.8, None), (0.3, ["red", "#00ff00", (10, 20, 30)])):
            mine = utils.draw_segmentation_masks(img, gg.tensor(masks), alpha, colors).numpy()
            theirs = tvu.draw_segmentation_masks(timg, torch.tensor(masks), alpha, colors).numpy()
            np.testing.assert_allclose(mine, theirs, rtol=1e-6, atol=1e-6 if dtype != np.uint8 else 0)
        mine = utils.draw_keypoints(img, gg.tensor(kps), [(0, 1), (2, 3)], "red", 2, 2).numpy()
        np.testing.assert_allclose(mine, tvu.draw_keypoints(timg, torch.tensor(kps), [(0, 1), (2, 3)], "red", 2,
                                                            2).numpy(), rtol=0, atol=1e-6)
    flow = rng.standard_normal((2, 2, 9, 11)).astype(np.float32)
    np.testing.assert_array_equal(utils.flow_to_image(gg.tensor(flow)).numpy(),
                                  tvu.flow_to_image(torch.tensor(flow)).numpy())
